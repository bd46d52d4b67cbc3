#include "server/redact.h"

#include "common/numbers.h"

namespace vireo {
namespace {

// Directives whose CONFIG SET values Valkey redacts (its SENSITIVE_CONFIG ones), by every name.
constexpr const char* kSensitiveConfigs[] = {
    "requirepass", "primaryauth", "masterauth", "primaryuser", "masteruser",
    "tls-key-file-pass", "tls-client-key-file-pass"};

void MarkFrom(std::vector<bool>* secret, size_t first, size_t count) {
  for (size_t j = first; j < first + count && j < secret->size(); ++j) (*secret)[j] = true;
}

}  // namespace

std::vector<bool> SecretArguments(const std::vector<std::string_view>& args) {
  std::vector<bool> secret(args.size(), false);
  if (args.empty()) return secret;
  std::string_view cmd = args[0];
  if (EqualsIgnoreCase(cmd, "auth")) {
    MarkFrom(&secret, 1, args.size());
  } else if (EqualsIgnoreCase(cmd, "hello")) {
    // HELLO [protover [AUTH username password] [SETNAME clientname]]
    for (size_t i = 2; i < args.size(); ++i) {
      if (EqualsIgnoreCase(args[i], "auth")) {
        MarkFrom(&secret, i + 1, 2);
        i += 2;
      } else if (EqualsIgnoreCase(args[i], "setname")) {
        ++i;
      }
    }
  } else if (EqualsIgnoreCase(cmd, "migrate")) {
    // MIGRATE host port key db timeout [COPY] [REPLACE] [AUTH pw | AUTH2 user pw] [KEYS ...]
    for (size_t i = 6; i < args.size() && !EqualsIgnoreCase(args[i], "keys"); ++i) {
      size_t values = EqualsIgnoreCase(args[i], "auth")    ? 1
                      : EqualsIgnoreCase(args[i], "auth2") ? 2
                                                           : 0;
      MarkFrom(&secret, i + 1, values);
      i += values;
    }
  } else if (EqualsIgnoreCase(cmd, "config") && args.size() > 1 &&
             EqualsIgnoreCase(args[1], "set")) {
    // CONFIG SET name value [name value ...]
    for (size_t i = 2; i + 1 < args.size(); i += 2) {
      for (const char* name : kSensitiveConfigs) {
        if (EqualsIgnoreCase(args[i], name)) secret[i + 1] = true;
      }
    }
  } else if (EqualsIgnoreCase(cmd, "acl") && args.size() > 1 &&
             EqualsIgnoreCase(args[1], "setuser")) {
    MarkFrom(&secret, 2, args.size());
  }
  return secret;
}

}  // namespace vireo
