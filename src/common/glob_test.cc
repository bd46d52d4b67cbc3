#include "common/glob.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vireo {
namespace {

using namespace std::string_view_literals;

struct Case {
  std::string_view pattern;
  std::string_view str;
  bool match;
};

// Observed from redis-server 7.0.15 by storing `str` as the only key and checking whether
// KEYS `pattern` returns it. The quirky rows (unterminated classes, "[a-]", signed-char ranges,
// the empty string) are deliberate: they are what Valkey does.
constexpr Case kCaseSensitive[] = {
    {"h?llo"sv, "hello"sv, true},
    {"h?llo"sv, "hllo"sv, false},
    {"h*llo"sv, "heeeello"sv, true},
    {"h*llo"sv, "hllo"sv, true},
    {"h[ae]llo"sv, "hallo"sv, true},
    {"h[ae]llo"sv, "hillo"sv, false},
    {"h[^e]llo"sv, "hallo"sv, true},
    {"h[^e]llo"sv, "hello"sv, false},
    {"h[a-b]llo"sv, "hbllo"sv, true},
    {"a*"sv, "a"sv, true},
    {"a*"sv, "b"sv, false},
    {"a*b"sv, "ab"sv, true},
    {"a*b"sv, "a"sv, false},
    {"*a"sv, "a"sv, true},
    {"a?"sv, "a"sv, false},
    {"a*b*c"sv, "axxbyyc"sv, true},
    {"a*b*c"sv, "axxbyy"sv, false},
    {"*ab"sv, "aab"sv, true},
    {"*?*"sv, "a"sv, true},
    {"a*a*a*b"sv, "aaaaaaa"sv, false},
    {"*a*b*"sv, "xxaxxbxx"sv, true},
    {"*a*b*"sv, "xxbxxaxx"sv, false},
    {"H?LLO"sv, "hello"sv, false},
    {"[H]ello"sv, "hello"sv, false},
    // Escapes outside a class; a trailing '\' is a literal backslash.
    {"\\*"sv, "*"sv, true},
    {"\\*"sv, "a"sv, false},
    {"\\?"sv, "?"sv, true},
    {"\\?"sv, "a"sv, false},
    {"\\a"sv, "a"sv, true},
    {"\\\\"sv, "\\"sv, true},
    {"\\"sv, "\\"sv, true},
    {"a\\"sv, "a\\"sv, true},
    // Escapes inside a class: the escaped byte is never a range end.
    {"[\\]]"sv, "]"sv, true},
    {"[\\-]"sv, "-"sv, true},
    {"[\\^]"sv, "^"sv, true},
    {"[^\\^]"sv, "^"sv, false},
    {"[\\a-z]"sv, "-"sv, true},
    {"[\\a-z]"sv, "b"sv, false},
    {"[\\a-z]"sv, "z"sv, true},
    {"[a\\"sv, "\\"sv, true},
    {"[a\\"sv, "a"sv, true},
    {"[\\"sv, "\\"sv, true},
    // "[]" is an empty class and "[^]" is any byte; ']' first does not open the set.
    {"[]"sv, "a"sv, false},
    {"[]"sv, "]"sv, false},
    {"[]]"sv, "]"sv, false},
    {"[]]"sv, "a]"sv, false},
    {"[]-a]"sv, "_"sv, false},
    {"[^]"sv, "a"sv, true},
    {"[^]"sv, "]"sv, true},
    {"[^]a"sv, "xa"sv, true},
    {"[^]]"sv, "x]"sv, true},
    // A class without ']' runs to the end of the pattern and still matches one byte.
    {"["sv, "["sv, false},
    {"["sv, "a"sv, false},
    {"a["sv, "a["sv, false},
    {"a["sv, "a"sv, false},
    {"[abc"sv, "b"sv, true},
    {"[abc"sv, "d"sv, false},
    {"[abc"sv, "["sv, false},
    {"[^"sv, "x"sv, true},
    {"[^"sv, "xy"sv, false},
    {"[^a"sv, "b"sv, true},
    {"[^a"sv, "a"sv, false},
    // Ranges: reversed ends swap; "[a-]" is the range ']'..'a' in an unterminated class.
    {"[z-a]"sv, "m"sv, true},
    {"[z-a]"sv, "z"sv, true},
    {"[a-z]"sv, "A"sv, false},
    {"[a-]"sv, "-"sv, false},
    {"[a-]"sv, "^"sv, true},
    {"[a-]"sv, "]"sv, true},
    {"[a-]"sv, "a"sv, true},
    {"[a-]"sv, "b"sv, false},
    {"[a-]b"sv, "b"sv, true},
    {"[a-]b"sv, "ab"sv, false},
    {"[a-"sv, "-"sv, true},
    {"[a-"sv, "a"sv, true},
    {"[a-"sv, "b"sv, false},
    {"[-a]"sv, "-"sv, true},
    {"[^-]"sv, "-"sv, false},
    {"[a-c-e]"sv, "d"sv, false},
    {"[a-c-e]"sv, "-"sv, true},
    {"[a-c-e]"sv, "e"sv, true},
    // Range ends compare as signed char, so bytes >= 0x80 sort below '\0'.
    {"[\x80-\xff]"sv, "\x90"sv, true},
    {"[\x80-\xff]"sv, "a"sv, false},
    {"[a-\xff]"sv, "\x01"sv, true},
    {"[a-\xff]"sv, "b"sv, false},
    {"[a-\xff]"sv, "\xfe"sv, false},
    {"[a-\xff]"sv, "\xff"sv, true},
    {"[\x01-\x80]"sv, "a"sv, false},
    {"[\x01-\x80]"sv, "\x90"sv, true},
    {"[\x01-\x80]"sv, "\x00"sv, true},
    // NUL is an ordinary byte.
    {"?"sv, "\x00"sv, true},
    {"a\x00"
     "b"sv,
     "a\x00"
     "b"sv,
     true},
    {"[\x00]"sv, "\x00"sv, true},
    {"*\x00"sv, "ab\x00"sv, true},
    // Only an empty pattern matches the empty string. (KEYS and SCAN answer a lone "*" without
    // the matcher, so there "*" does list the empty key; "**" does not, nor does SCAN MATCH **,
    // and PSUBSCRIBE * does not receive PUBLISH to "".)
    {""sv, ""sv, true},
    {"*"sv, ""sv, false},
    {"**"sv, ""sv, false},
    {"?*"sv, ""sv, false},
    {"[^]"sv, ""sv, false},
    {""sv, "a"sv, false},
};

TEST(Glob, MatchesRedisCaseSensitive) {
  for (const Case& c : kCaseSensitive) {
    EXPECT_EQ(GlobMatch(c.pattern, c.str), c.match)
        << "pattern \"" << c.pattern << "\" string \"" << c.str << "\"";
  }
}

// Observed from redis-server 7.0.15 with CONFIG GET `pattern`, which matches config names with
// nocase set, checking whether "maxmemory" is listed. Escaped bytes inside a class are compared
// without folding, and range ends are swapped before they are folded, so "[a-M]" (swapped to
// "M-a", folded to "m-a") is empty.
TEST(Glob, MatchesRedisNocase) {
  struct NocaseCase {
    std::string_view pattern;
    bool match;
  };
  constexpr NocaseCase kCases[] = {
      {"MAXMEM*"sv, true},           {"[M]axmemory"sv, true},    {"[^M]axmemory"sv, false},
      {"\\Maxmem?ry"sv, true},       {"[\\M]axmemory"sv, false}, {"[\\m]axmemory"sv, true},
      {"max[\\M-N]emory*"sv, false}, {"[L-N]AXMEMORY"sv, true},  {"[l-n]AXMEMOR?"sv, true},
      {"MAX[M-M]EMORY"sv, true},     {"[a-M]axmemory"sv, false}, {"[^a-M]axmemory"sv, true},
      {"[M-a]axmemory"sv, false},    {"[Z-a]axmemory"sv, false},
  };
  for (const NocaseCase& c : kCases) {
    EXPECT_EQ(GlobMatch(c.pattern, "maxmemory", /*nocase=*/true), c.match)
        << "pattern \"" << c.pattern << "\"";
  }
}

TEST(Glob, NocaseFoldsOnlyAscii) {
  EXPECT_TRUE(GlobMatch("HELLO", "hello", true));
  EXPECT_TRUE(GlobMatch("h?LLo", "HeLlO", true));
  EXPECT_FALSE(GlobMatch("\\[", "{", true));
  EXPECT_FALSE(GlobMatch("\xc9", "\xe9", true));
  EXPECT_TRUE(GlobMatch("[A-C]", "b", true));
}

TEST(Glob, HonorsViewBounds) {
  // Bytes past the end of either view must not be read or matched.
  const std::string pattern = "ab*]";
  const std::string str = "abc";
  EXPECT_FALSE(GlobMatch(std::string_view(pattern).substr(0, 1), str));
  EXPECT_TRUE(
      GlobMatch(std::string_view(pattern).substr(0, 2), std::string_view(str).substr(0, 2)));
  const std::string unterminated = "[ab]";
  EXPECT_TRUE(GlobMatch(std::string_view(unterminated).substr(0, 3), "b"));
  EXPECT_FALSE(GlobMatch(std::string_view(unterminated).substr(0, 1), "]"));
}

TEST(Glob, NoExponentialBlowUp) {
  // A naive backtracking matcher needs astronomically many steps for these; the iterative one
  // is bounded by |pattern| * |string|.
  const std::string as(100000, 'a');
  EXPECT_FALSE(GlobMatch("a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", as));
  EXPECT_TRUE(GlobMatch("a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a", as));
  std::string stars;
  for (int i = 0; i < 200; ++i) stars += "*a";
  EXPECT_FALSE(GlobMatch(stars + "*b", as));
  EXPECT_TRUE(GlobMatch(stars + "*", as));
  EXPECT_FALSE(GlobMatch("*[a-z]*[^b]?*[ab]*?b", as));
}

// A memoized recursive matcher over the plain glob subset ('*', '?', literals, simple "[..]"),
// whose correctness is obvious, to check the iterative backtracking on random inputs.
bool ReferenceMatch(std::string_view p, std::string_view s, size_t i, size_t j,
                    std::vector<int8_t>* memo) {
  int8_t& slot = (*memo)[i * (s.size() + 1) + j];
  if (slot >= 0) return slot;
  bool result;
  if (i == p.size()) {
    result = j == s.size();
  } else if (p[i] == '*') {
    result = ReferenceMatch(p, s, i + 1, j, memo) ||
             (j < s.size() && ReferenceMatch(p, s, i, j + 1, memo));
  } else if (j == s.size()) {
    result = false;
  } else if (p[i] == '[') {
    const size_t close = p.find(']', i);
    const std::string_view set = p.substr(i + 1, close - i - 1);
    result =
        set.find(s[j]) != std::string_view::npos && ReferenceMatch(p, s, close + 1, j + 1, memo);
  } else {
    result = (p[i] == '?' || p[i] == s[j]) && ReferenceMatch(p, s, i + 1, j + 1, memo);
  }
  slot = result;
  return result;
}

TEST(Glob, AgreesWithReferenceOnRandomPatterns) {
  const std::string_view atoms[] = {"a", "b", "*", "*", "?", "[ab]", "[bc]"};
  uint32_t state = 12345;
  auto next = [&state](uint32_t bound) {
    state = state * 1103515245u + 12345u;
    return (state >> 16) % bound;
  };
  for (int round = 0; round < 20000; ++round) {
    std::string pattern;
    const uint32_t atoms_len = 1 + next(8);
    for (uint32_t k = 0; k < atoms_len; ++k) pattern += atoms[next(std::size(atoms))];
    std::string str;
    const uint32_t str_len = 1 + next(12);  // Nonempty: "" is Valkey's special case above.
    for (uint32_t k = 0; k < str_len; ++k) str += static_cast<char>('a' + next(3));
    std::vector<int8_t> memo((pattern.size() + 1) * (str.size() + 1), -1);
    ASSERT_EQ(GlobMatch(pattern, str), ReferenceMatch(pattern, str, 0, 0, &memo))
        << "pattern \"" << pattern << "\" string \"" << str << "\"";
  }
}

}  // namespace
}  // namespace vireo
