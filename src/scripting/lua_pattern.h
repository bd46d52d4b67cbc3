// Lua 5.1's string patterns (reference manual, section 5.4.1), matched by Vireo's own code
// instead of stock liblua's: the same results and error texts, but the work a match may do is
// checked as it goes. Stock 5.1 backtracks (exponential in the pattern's quantifiers) inside
// one C call that no count hook interrupts, so SCRIPT KILL could not stop it, and recurses
// once per pattern item with no limit. Free of Lua: the bindings are lua_pattern_lib.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vireo {

class PatternMatcher {
 public:
  static constexpr int kMaxCaptures = 32;  // Lua 5.1's LUA_MAXCAPTURES
  // Nested items (quantifiers, captures) one match may recurse through; deeper patterns
  // fail with Lua 5.2's "pattern too complex" instead of overflowing the C stack.
  static constexpr int kMaxDepth = 1000;
  // How many steps (match attempts, repetitions, scanned characters) pass between calls of
  // the step check.
  static constexpr uint64_t kStepsPerCheck = 1u << 16;

  // A capture's length, or one of these: still open, or a position capture "()".
  static constexpr ptrdiff_t kUnfinished = -1;
  static constexpr ptrdiff_t kPosition = -2;
  struct Capture {
    const char* init;
    ptrdiff_t len;
  };

  // The pattern ends at its first NUL byte, as stock 5.1's C-string matcher reads it. Both
  // views must outlive the matcher.
  PatternMatcher(std::string_view subject, std::string_view pattern);

  // check(arg) runs every kStepsPerCheck steps. It may leave by longjmp (a killed script's
  // Lua error): the matcher owns nothing that needs freeing.
  void SetStepCheck(void (*check)(void*), void* arg) {
    check_ = check;
    check_arg_ = arg;
  }

  // Matches the pattern, from pattern position p, at subject position s (captures reset).
  // Returns the end of the match, or nullptr for no match or an error (error() says).
  const char* MatchAt(const char* s, const char* p);

  // Tries MatchAt at s, s + 1, ... up to the subject's end (only s when anchored). Returns the
  // match's end and sets *start, or nullptr.
  const char* Search(const char* s, const char* p, bool anchored, const char** start);

  // nullptr, or the message stock Lua raises ("malformed pattern (ends with '%')", ...).
  const char* error() const { return error_; }

  const char* subject() const { return src_; }
  const char* subject_end() const { return src_end_; }
  const char* pattern() const { return pat_; }
  int level() const { return level_; }
  const Capture& capture(int i) const { return capture_[i]; }

  // Counts a step of work done outside the matcher (a find's scan, a gsub's copy).
  void Step() {
    if (++steps_ % kStepsPerCheck == 0 && check_ != nullptr) check_(check_arg_);
  }

 private:
  char At(const char* p) const { return p < pat_end_ ? *p : '\0'; }
  const char* Fail(const char* message) {
    if (error_ == nullptr) error_ = message;
    return nullptr;
  }
  const char* Match(const char* s, const char* p);
  const char* MatchItems(const char* s, const char* p);
  const char* ClassEnd(const char* p);
  bool SingleMatch(unsigned char c, const char* p, const char* ep);
  bool MatchBracket(unsigned char c, const char* p, const char* ec);
  const char* MatchBalance(const char* s, const char* p);
  const char* MaxExpand(const char* s, const char* p, const char* ep);
  const char* MinExpand(const char* s, const char* p, const char* ep);
  const char* StartCapture(const char* s, const char* p, ptrdiff_t what);
  const char* EndCapture(const char* s, const char* p);
  const char* MatchBackReference(const char* s, char digit);

  const char* src_;
  const char* src_end_;
  const char* pat_;
  const char* pat_end_;  // the first NUL or the end
  int level_ = 0;
  int depth_ = 0;
  uint64_t steps_ = 0;
  const char* error_ = nullptr;
  void (*check_)(void*) = nullptr;
  void* check_arg_ = nullptr;
  Capture capture_[kMaxCaptures];
};

// Whether the pattern has any of Lua's special characters before its first NUL; without
// them string.find looks for the pattern's bytes (all of them) as plain text.
bool HasPatternSpecials(std::string_view pattern);

// Whether c is in character class cl ('a', 'd', 'S', ...), by the C locale's rules as Lua's
// matcher reads them; an unknown letter stands for itself.
bool MatchesClass(unsigned char c, unsigned char cl);

}  // namespace vireo
