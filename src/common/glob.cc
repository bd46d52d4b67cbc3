#include "common/glob.h"

#include <cstddef>

// Valkey's stringmatchlen recurses at every '*' and bounds the blow-up with a "skip longer
// matches" flag. Because every token other than '*' consumes exactly one byte, the same language
// is matched by the classic iterative scan that, on a mismatch, retries from the most recent '*'
// with that star absorbing one more byte: O(|pattern| * |string|) time, O(1) space.
//
// Everything else below reproduces Valkey's quirks, all observed against redis-server 7.0:
//  - An empty string is matched only by an empty pattern, not even by "*" (the matcher never
//    enters its loop). KEYS and SCAN special-case a lone "*" before calling it; PSUBSCRIBE "*"
//    does not receive PUBLISH to "".
//  - A class missing its ']' runs to the end of the pattern and still matches one byte:
//    "[abc" matches "a", "[^" matches any byte, "[" matches nothing.
//  - "[]" is an empty class (matches nothing), "[^]" matches any byte.
//  - Inside a class '\' escapes the next byte, which is then compared without case folding even
//    when nocase is set. A '\' that ends the pattern is a literal backslash, in or out of a class.
//  - A range "a-z" swaps reversed ends ("[z-a]" == "[a-z]") and only then folds case, so under
//    nocase "[a-M]" (swapped to "M-a", folded to "m-a") matches nothing.
//  - Range ends compare as signed char (x86-64, the reference platform), so bytes >= 0x80 sort
//    below '\0'.
//  - "[a-]" is the range 'a'..']' with no closing bracket, not 'a' or '-'.

namespace vireo {
namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

// tolower() in the C locale: ASCII only.
int Fold(int c) { return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c; }

int Byte(char c) { return static_cast<unsigned char>(c); }

// The signed-char value Valkey compares range ends with on x86-64.
int RangeValue(char c) { return static_cast<signed char>(c); }

bool SameByte(char a, char b, bool nocase) {
  return nocase ? Fold(Byte(a)) == Fold(Byte(b)) : a == b;
}

// Matches c against the class whose '[' is at pattern[open]; returns where the class ends
// (one past its ']', or the pattern's end when it has none). How far a class reaches never
// depends on c.
size_t MatchClass(std::string_view pattern, size_t open, char c, bool nocase, bool* matched) {
  const size_t n = pattern.size();
  size_t i = open + 1;
  const bool negate = i < n && pattern[i] == '^';
  if (negate) ++i;
  bool match = false;
  while (true) {
    if (i + 1 < n && pattern[i] == '\\') {
      ++i;
      if (pattern[i] == c) match = true;  // Deliberately case-sensitive, as in Valkey.
    } else if (i < n && pattern[i] == ']') {
      ++i;
      break;
    } else if (i == n) {
      break;
    } else if (i + 2 < n && pattern[i + 1] == '-') {
      int lo = RangeValue(pattern[i]);
      int hi = RangeValue(pattern[i + 2]);
      int v = RangeValue(c);
      if (lo > hi) {
        const int t = lo;
        lo = hi;
        hi = t;
      }
      if (nocase) {
        lo = Fold(lo);
        hi = Fold(hi);
        v = Fold(v);
      }
      if (v >= lo && v <= hi) match = true;
      i += 2;
    } else if (SameByte(pattern[i], c, nocase)) {
      match = true;
    }
    ++i;
  }
  *matched = match != negate;
  return i;
}

// Matches c against the one-byte token (anything but '*') at pattern[p]; returns the position
// after the token, or kNone when c does not match.
size_t MatchToken(std::string_view pattern, size_t p, char c, bool nocase) {
  switch (pattern[p]) {
    case '?':
      return p + 1;
    case '[': {
      bool matched;
      const size_t next = MatchClass(pattern, p, c, nocase, &matched);
      return matched ? next : kNone;
    }
    case '\\':
      if (p + 1 < pattern.size()) {
        return SameByte(pattern[p + 1], c, nocase) ? p + 2 : kNone;
      }
      break;  // A trailing '\' is itself.
    default:
      break;
  }
  return SameByte(pattern[p], c, nocase) ? p + 1 : kNone;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view str, bool nocase) {
  if (str.empty()) return pattern.empty();
  const size_t n = pattern.size();
  size_t p = 0;
  size_t s = 0;
  size_t star_p = kNone;  // Pattern position just after the latest run of '*'.
  size_t star_s = 0;      // String position that run currently starts consuming from.
  while (s < str.size()) {
    if (p < n && pattern[p] == '*') {
      while (p < n && pattern[p] == '*') ++p;
      if (p == n) return true;
      star_p = p;
      star_s = s;
      continue;
    }
    const size_t next = p < n ? MatchToken(pattern, p, str[s], nocase) : kNone;
    if (next != kNone) {
      p = next;
      ++s;
      continue;
    }
    if (star_p == kNone) return false;
    // Let the latest star swallow one more byte; earlier stars never need to, since any match
    // they would enable is also reachable by extending the latest one.
    p = star_p;
    s = ++star_s;
  }
  while (p < n && pattern[p] == '*') ++p;
  return p == n;
}

}  // namespace vireo
