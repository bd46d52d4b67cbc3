// Value checks of the directives Vireo stores without acting on them (config_directives.h),
// so CONFIG SET refuses what Valkey refuses, with its words.
#include <arpa/inet.h>
#include <locale.h>

#include <cctype>

#include "server/config_directives.h"

namespace vireo {

std::string CheckGenericValue(GenericCheck check, const std::string& value) {
  switch (check) {
    case GenericCheck::kNone:
      return "";
    case GenericCheck::kIpv4:
    case GenericCheck::kIpv6: {
      if (value.empty()) return "";  // unset
      const bool v4 = check == GenericCheck::kIpv4;
      unsigned char addr[sizeof(struct in6_addr)];
      if (inet_pton(v4 ? AF_INET : AF_INET6, value.c_str(), addr) == 1) return "";
      return v4 ? "Invalid IPv4 address" : "Invalid IPv6 address";
    }
    case GenericCheck::kHostname:
      for (char c : value) {
        if (!isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') {
          return "Hostnames may only contain alphanumeric characters, hyphens or dots";
        }
      }
      return "";
    case GenericCheck::kLocale: {
      // Valkey calls setlocale(LC_COLLATE, value); asking for the locale without installing it
      // answers the same question ("" is the environment's locale). Vireo itself compares in
      // the C locale (SORT ... ALPHA), so the process's locale is left alone.
      locale_t loc = newlocale(LC_COLLATE_MASK, value.c_str(), static_cast<locale_t>(0));
      if (loc == static_cast<locale_t>(0)) return "Invalid locale name";
      freelocale(loc);
      return "";
    }
  }
  return "";
}

}  // namespace vireo
