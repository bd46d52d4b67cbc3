#include "server/notify_flags.h"

namespace vireo {
namespace {

struct FlagLetter {
  char letter;
  uint32_t flag;
};

// CONFIG GET prints the classes in this order, then K, E and m (Valkey's order).
constexpr FlagLetter kClassLetters[] = {
    {'g', kNotifyGeneric}, {'$', kNotifyString}, {'l', kNotifyList},    {'s', kNotifySet},
    {'h', kNotifyHash},    {'z', kNotifyZset},   {'x', kNotifyExpired}, {'e', kNotifyEvicted},
    {'t', kNotifyStream},  {'d', kNotifyModule}, {'n', kNotifyNew},
};

}  // namespace

bool ParseNotifyFlags(std::string_view letters, uint32_t* flags) {
  uint32_t f = 0;
  for (char ch : letters) {
    switch (ch) {
      case 'A': f |= kNotifyAll; break;
      case 'K': f |= kNotifyKeyspace; break;
      case 'E': f |= kNotifyKeyevent; break;
      case 'm': f |= kNotifyKeyMiss; break;
      default: {
        bool found = false;
        for (const FlagLetter& l : kClassLetters) {
          if (l.letter == ch) {
            f |= l.flag;
            found = true;
          }
        }
        if (!found) return false;
      }
    }
  }
  *flags = f;
  return true;
}

std::string FormatNotifyFlags(uint32_t flags) {
  std::string s;
  // As in Valkey (7.0 and 8), "A" stands for its classes and then 'n' is not printed.
  if ((flags & kNotifyAll) == kNotifyAll) {
    s += 'A';
  } else {
    for (const FlagLetter& l : kClassLetters) {
      if (flags & l.flag) s += l.letter;
    }
  }
  if (flags & kNotifyKeyspace) s += 'K';
  if (flags & kNotifyKeyevent) s += 'E';
  if (flags & kNotifyKeyMiss) s += 'm';
  return s;
}

}  // namespace vireo
