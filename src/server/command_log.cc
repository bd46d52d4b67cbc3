#include "server/command_log.h"

#include <algorithm>

#include "common/clock.h"
#include "common/numbers.h"
#include "server/redact.h"

namespace vireo {
namespace {

// Valkey keeps at most 32 arguments of at most 128 bytes each.
constexpr size_t kMaxArgs = 32;
constexpr size_t kMaxArgBytes = 128;

}  // namespace

void CommandLog::Push(const std::vector<std::string_view>& args, int64_t value,
                      std::string_view peer, std::string_view client_name, int64_t max_len) {
  if (max_len <= 0) {
    entries_.clear();
    return;
  }
  CommandLogEntry e;
  e.id = next_id_++;
  e.time_s = NowMs() / 1000;
  e.value = value;
  std::vector<bool> secret = SecretArguments(args);
  size_t n = std::min(args.size(), kMaxArgs);
  for (size_t i = 0; i < n; ++i) {
    if (i == kMaxArgs - 1 && args.size() > kMaxArgs) {
      e.args.push_back("... (" + std::to_string(args.size() - i) + " more arguments)");
      break;
    }
    if (secret[i]) {
      e.args.emplace_back("(redacted)");
    } else if (args[i].size() > kMaxArgBytes) {
      e.args.push_back(std::string(args[i].substr(0, kMaxArgBytes)) + "... (" +
                       std::to_string(args[i].size() - kMaxArgBytes) + " more bytes)");
    } else {
      e.args.emplace_back(args[i]);
    }
  }
  e.peer = peer;
  e.client_name = client_name;
  entries_.push_front(std::move(e));
  while (static_cast<int64_t>(entries_.size()) > max_len) entries_.pop_back();
}

bool ParseCommandLogType(std::string_view name, CommandLogType* type) {
  if (EqualsIgnoreCase(name, "slow")) {
    *type = CommandLogType::kSlow;
  } else if (EqualsIgnoreCase(name, "large-request")) {
    *type = CommandLogType::kLargeRequest;
  } else if (EqualsIgnoreCase(name, "large-reply")) {
    *type = CommandLogType::kLargeReply;
  } else {
    return false;
  }
  return true;
}

}  // namespace vireo
