#include "common/random_hex.h"

#include <sys/random.h>

#include <cstdlib>

namespace vireo {

std::string RandomHex(size_t n) {
  static const char kHex[] = "0123456789abcdef";
  std::string s(n, '0');
  unsigned char buf[64];
  for (size_t i = 0; i < n; i += sizeof(buf)) {
    if (getrandom(buf, sizeof(buf), 0) != sizeof(buf)) {
      for (unsigned char& b : buf) b = static_cast<unsigned char>(rand());
    }
    for (size_t j = 0; j < sizeof(buf) && i + j < n; ++j) s[i + j] = kHex[buf[j] & 15];
  }
  return s;
}

}  // namespace vireo
