// PatternMatcher alone, without Lua: Lua 5.1's pattern rules (reference manual 5.4.1), its
// error texts, and the step check that lets a long match be interrupted.
#include "scripting/lua_pattern.h"

#include <gtest/gtest.h>

#include <string>

namespace vireo {
namespace {

// The first match of pattern in subject as string.match would give it, with captures
// joined by '|' ("pos:N" for position captures), "nil" for none, or "error: <text>".
std::string Find(std::string_view subject, std::string_view pattern) {
  PatternMatcher m(subject, pattern);
  const bool anchored = !pattern.empty() && pattern[0] == '^';
  const char* start = nullptr;
  const char* e = m.Search(subject.data(), pattern.data() + (anchored ? 1 : 0), anchored, &start);
  if (m.error() != nullptr) return std::string("error: ") + m.error();
  if (e == nullptr) return "nil";
  if (m.level() == 0) return std::string(start, e);
  std::string out;
  for (int i = 0; i < m.level(); ++i) {
    const PatternMatcher::Capture& c = m.capture(i);
    if (i > 0) out += '|';
    if (c.len == PatternMatcher::kPosition) {
      out += "pos:" + std::to_string(c.init - subject.data() + 1);
    } else if (c.len == PatternMatcher::kUnfinished) {
      out += "unfinished";
    } else {
      out.append(c.init, static_cast<size_t>(c.len));
    }
  }
  return out;
}

TEST(PatternMatcherTest, SingleCharacterClasses) {
  EXPECT_EQ(Find("hello world", "o w"), "o w");
  EXPECT_EQ(Find("x=42;", "%d%d"), "42");
  EXPECT_EQ(Find("abc DEF", "%u"), "D");
  EXPECT_EQ(Find("abc DEF", "%l%l"), "ab");
  EXPECT_EQ(Find("ab \t\ncd", "%s+"), " \t\n");
  EXPECT_EQ(Find("ab,cd", "%p"), ",");
  EXPECT_EQ(Find("zz09afAG", "%x+"), "09afA");
  EXPECT_EQ(Find("a\x01z", "%c"), "\x01");
  EXPECT_EQ(Find("ab_1!", "%w+"), "ab");
  EXPECT_EQ(Find("abc123", "%D+"), "abc");
  EXPECT_EQ(Find("a.b", "%."), ".");
  EXPECT_EQ(Find("aqb", "%q"), "q");  // an unknown class letter stands for itself
  EXPECT_EQ(Find(std::string_view("a\0b", 3), "%z"), std::string(1, '\0'));
  EXPECT_EQ(Find("a\xe9", "%a+"), "a");  // the C locale: no letters past ASCII
  EXPECT_EQ(Find("abc", "."), "a");
}

TEST(PatternMatcherTest, Sets) {
  EXPECT_EQ(Find("hello", "[aeiou]+"), "e");
  EXPECT_EQ(Find("hello", "[^aeiou]+"), "h");
  EXPECT_EQ(Find("x-1y", "[a-z]+"), "x");
  EXPECT_EQ(Find("x-1y", "[%d-]+"), "-1");
  EXPECT_EQ(Find("a]b", "[]]"), "]");   // first member may be ']'
  EXPECT_EQ(Find("a]b^", "[^]a]"), "b");
  EXPECT_EQ(Find("a-z", "[z-]"), "-");  // '-' at the end is a member
  EXPECT_EQ(Find("a%b", "[%%]"), "%");
  EXPECT_EQ(Find("A1b", "[%u%d]+"), "A1");
}

TEST(PatternMatcherTest, QuantifiersAndAnchors) {
  EXPECT_EQ(Find("aaab", "a*"), "aaa");
  EXPECT_EQ(Find("baaa", "a*"), "");
  EXPECT_EQ(Find("aaab", "a+b"), "aaab");
  EXPECT_EQ(Find("<a><b>", "<.->"), "<a>");
  EXPECT_EQ(Find("<a><b>", "<.*>"), "<a><b>");
  EXPECT_EQ(Find("color colour", "colou?r"), "color");
  EXPECT_EQ(Find("xab", "^ab"), "nil");
  EXPECT_EQ(Find("abx", "^ab"), "ab");
  EXPECT_EQ(Find("abab", "ab$"), "ab");
  EXPECT_EQ(Find("a$b", "$b"), "$b");  // '$' not at the end is a character
  EXPECT_EQ(Find("a^b", "a^"), "a^");  // so is '^' not at the start
  EXPECT_EQ(Find("", ""), "");
  EXPECT_EQ(Find("", "a*$"), "");
}

TEST(PatternMatcherTest, Captures) {
  EXPECT_EQ(Find("key = value", "(%w+)%s*=%s*(%w+)"), "key|value");
  EXPECT_EQ(Find("hello", "()ll()"), "pos:3|pos:5");
  EXPECT_EQ(Find("abcabc", "((a)(b))"), "ab|a|b");
  EXPECT_EQ(Find("say \"hi\" ok", "([\"'])(.-)%1"), "\"|hi");
  EXPECT_EQ(Find("abab", "(ab)%1"), "ab");
  EXPECT_EQ(Find("THE (quick) fox", "%((%a+)%)"), "quick");
  EXPECT_EQ(Find("x", "()%1"), "nil");  // a position capture matches no text
  EXPECT_EQ(Find("a", "(a"), "unfinished");  // Lua raises "unfinished capture" when pushing it
}

TEST(PatternMatcherTest, BalancedAndFrontier) {
  EXPECT_EQ(Find("f(a(b)c) d", "%b()"), "(a(b)c)");
  EXPECT_EQ(Find("((x)", "%b()"), "(x)");
  EXPECT_EQ(Find("''x'", "%b''"), "''");
  EXPECT_EQ(Find("THE (quick) fox", "%f[%a]%a+"), "THE");
  EXPECT_EQ(Find("THE (quick) fox", "%f[%l]%a+"), "quick");
  EXPECT_EQ(Find("hello", "%f[%z]"), "");  // the subject's end reads as NUL
  EXPECT_EQ(Find("ab", "b%f[%z]"), "b");
}

TEST(PatternMatcherTest, PatternEndsAtItsFirstNul) {
  EXPECT_EQ(Find(std::string_view("a\0b", 3), std::string_view("a\0b", 3)), "a");
  EXPECT_EQ(Find("xyz", std::string_view("\0abc", 4)), "");
  EXPECT_FALSE(HasPatternSpecials(std::string_view("a\0.", 3)));
  EXPECT_TRUE(HasPatternSpecials("a."));
  EXPECT_FALSE(HasPatternSpecials("plain text"));
}

TEST(PatternMatcherTest, MalformedPatternsGiveLuasErrors) {
  EXPECT_EQ(Find("abc", "%"), "error: malformed pattern (ends with '%')");
  EXPECT_EQ(Find("abc", "[a"), "error: malformed pattern (missing ']')");
  EXPECT_EQ(Find("abc", "[a%"), "error: malformed pattern (missing ']')");
  EXPECT_EQ(Find("abc", "[]"), "error: malformed pattern (missing ']')");
  EXPECT_EQ(Find("abc", "%b"), "error: unbalanced pattern");
  EXPECT_EQ(Find("abc", "%bx"), "error: unbalanced pattern");
  EXPECT_EQ(Find("abc", "%fa"), "error: missing '[' after '%f' in pattern");
  EXPECT_EQ(Find("abc", "%1"), "error: invalid capture index");
  EXPECT_EQ(Find("abc", "%0"), "error: invalid capture index");
  EXPECT_EQ(Find("abc", "(a%1)"), "error: invalid capture index");
  EXPECT_EQ(Find("abc", "a)"), "error: invalid pattern capture");
  EXPECT_EQ(Find(std::string(40, 'a'), [] {
              std::string p;
              for (int i = 0; i < 33; ++i) p += "(a)";
              return p;
            }()),
            "error: too many captures");
  // Reached only when the matcher gets there.
  EXPECT_EQ(Find("xyz", "a%"), "nil");
}

TEST(PatternMatcherTest, DepthIsBounded) {
  // Each matched "a?" recurses for the rest of the pattern.
  const std::string subject(PatternMatcher::kMaxDepth + 10, 'a');
  std::string items;
  for (int i = 0; i < PatternMatcher::kMaxDepth - 1; ++i) items += "a?";
  EXPECT_EQ(Find(subject, items), subject.substr(0, PatternMatcher::kMaxDepth - 1));
  items += "a?a?";
  EXPECT_EQ(Find(subject, items), "error: pattern too complex");
  EXPECT_EQ(Find("aaa", items), "aaa");  // unmatched items do not recurse
}

TEST(PatternMatcherTest, LongMatchesCallTheStepCheck) {
  // Backtracking: 8 stars share 16 a's in C(24, 8) ways before the missing 'b' fails.
  const std::string subject(16, 'a');
  std::string pattern;
  for (int i = 0; i < 8; ++i) pattern += "a*";
  pattern += 'b';
  int calls = 0;
  auto count = [](void* n) { ++*static_cast<int*>(n); };
  PatternMatcher slow(subject, pattern);
  slow.SetStepCheck(count, &calls);
  EXPECT_EQ(slow.MatchAt(slow.subject(), slow.pattern()), nullptr);
  EXPECT_GT(calls, 5);
  // A short match does not reach a check.
  calls = 0;
  PatternMatcher quick("hello world", "(%w+) (%w+)");
  quick.SetStepCheck(count, &calls);
  EXPECT_NE(quick.MatchAt(quick.subject(), quick.pattern()), nullptr);
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace vireo
