#include "scripting/lua_pattern.h"

#include <cstring>

namespace vireo {
namespace {

constexpr char kEsc = '%';

bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool IsLower(unsigned char c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
bool IsAlpha(unsigned char c) { return IsLower(c) || IsUpper(c); }
bool IsSpace(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool IsCntrl(unsigned char c) { return c < 32 || c == 127; }
bool IsPunct(unsigned char c) { return c > 32 && c < 127 && !IsAlpha(c) && !IsDigit(c); }
bool IsXDigit(unsigned char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

}  // namespace

bool MatchesClass(unsigned char c, unsigned char cl) {
  bool in;
  switch (IsUpper(cl) ? cl - 'A' + 'a' : cl) {
    case 'a': in = IsAlpha(c); break;
    case 'c': in = IsCntrl(c); break;
    case 'd': in = IsDigit(c); break;
    case 'l': in = IsLower(c); break;
    case 'p': in = IsPunct(c); break;
    case 's': in = IsSpace(c); break;
    case 'u': in = IsUpper(c); break;
    case 'w': in = IsAlpha(c) || IsDigit(c); break;
    case 'x': in = IsXDigit(c); break;
    case 'z': in = c == 0; break;  // 5.1's class for the NUL byte
    default: return cl == c;
  }
  return IsUpper(cl) ? !in : in;
}

bool HasPatternSpecials(std::string_view pattern) {
  for (char c : pattern) {
    if (c == '\0') return false;
    if (strchr("^$*+?.([%-", c) != nullptr) return true;
  }
  return false;
}

PatternMatcher::PatternMatcher(std::string_view subject, std::string_view pattern)
    : src_(subject.data()),
      src_end_(subject.data() + subject.size()),
      pat_(pattern.data()),
      pat_end_(pattern.data() + pattern.size()) {
  if (const void* nul = memchr(pattern.data(), 0, pattern.size())) {
    pat_end_ = static_cast<const char*>(nul);
  }
}

const char* PatternMatcher::MatchAt(const char* s, const char* p) {
  level_ = 0;
  return Match(s, p);
}

const char* PatternMatcher::Search(const char* s, const char* p, bool anchored,
                                   const char** start) {
  for (;;) {
    const char* e = MatchAt(s, p);
    if (e != nullptr || error_ != nullptr) {
      *start = s;
      return e;
    }
    if (anchored || s >= src_end_) return nullptr;
    ++s;
  }
}

const char* PatternMatcher::Match(const char* s, const char* p) {
  if (depth_ >= kMaxDepth) return Fail("pattern too complex");
  ++depth_;
  Step();
  const char* e = MatchItems(s, p);
  --depth_;
  return e;
}

// One pass over the pattern's items from p; single items loop here, quantified ones and
// captures recurse.
const char* PatternMatcher::MatchItems(const char* s, const char* p) {
  for (;;) {
    if (p >= pat_end_) return s;
    switch (*p) {
      case '(':
        return At(p + 1) == ')' ? StartCapture(s, p + 2, kPosition)
                                : StartCapture(s, p + 1, kUnfinished);
      case ')':
        return EndCapture(s, p + 1);
      case '$':
        if (p + 1 == pat_end_) return s == src_end_ ? s : nullptr;
        break;
      case kEsc: {
        const char next = At(p + 1);
        if (next == 'b') {
          s = MatchBalance(s, p + 2);
          if (s == nullptr) return nullptr;
          p += 4;
          continue;
        }
        if (next == 'f') {
          p += 2;
          if (At(p) != '[') return Fail("missing '[' after '%f' in pattern");
          const char* ep = ClassEnd(p);
          if (ep == nullptr) return nullptr;
          unsigned char prev = s == src_ ? 0 : static_cast<unsigned char>(s[-1]);
          unsigned char cur = s < src_end_ ? static_cast<unsigned char>(*s) : 0;
          if (MatchBracket(prev, p, ep - 1) || !MatchBracket(cur, p, ep - 1)) return nullptr;
          p = ep;
          continue;
        }
        if (IsDigit(static_cast<unsigned char>(next))) {
          s = MatchBackReference(s, next);
          if (s == nullptr) return nullptr;
          p += 2;
          continue;
        }
        break;
      }
      default:
        break;
    }
    // A single-character class, perhaps quantified.
    const char* ep = ClassEnd(p);
    if (ep == nullptr) return nullptr;
    const bool m = s < src_end_ && SingleMatch(static_cast<unsigned char>(*s), p, ep);
    switch (At(ep)) {
      case '?': {
        if (m) {
          const char* e = Match(s + 1, ep + 1);
          if (e != nullptr || error_ != nullptr) return e;
        }
        p = ep + 1;
        continue;
      }
      case '*':
        return MaxExpand(s, p, ep);
      case '+':
        return m ? MaxExpand(s + 1, p, ep) : nullptr;
      case '-':
        return MinExpand(s, p, ep);
      default:
        if (!m) return nullptr;
        ++s;
        p = ep;
        continue;
    }
  }
}

// The end of the single-character class at p: past "%x", past a "[...]" set, else p + 1.
const char* PatternMatcher::ClassEnd(const char* p) {
  const char c = *p++;
  if (c == kEsc) {
    if (p >= pat_end_) return Fail("malformed pattern (ends with '%')");
    return p + 1;
  }
  if (c != '[') return p;
  if (At(p) == '^') ++p;
  // The first character after "[" or "[^" is a member even when it is ']'.
  do {
    if (p >= pat_end_) return Fail("malformed pattern (missing ']')");
    Step();  // a set may be megabytes long: its scans count as work too
    if (*p++ == kEsc && p < pat_end_) ++p;
  } while (At(p) != ']');
  return p + 1;
}

bool PatternMatcher::SingleMatch(unsigned char c, const char* p, const char* ep) {
  switch (*p) {
    case '.': return true;
    case kEsc: return MatchesClass(c, static_cast<unsigned char>(p[1]));
    case '[': return MatchBracket(c, p, ep - 1);
    default: return static_cast<unsigned char>(*p) == c;
  }
}

// p is the set's '[' and ec its closing ']'.
bool PatternMatcher::MatchBracket(unsigned char c, const char* p, const char* ec) {
  bool found = true;
  if (p[1] == '^') {
    found = false;
    ++p;
  }
  while (++p < ec) {
    Step();
    if (*p == kEsc) {
      ++p;
      if (MatchesClass(c, static_cast<unsigned char>(*p))) return found;
    } else if (p[1] == '-' && p + 2 < ec) {
      p += 2;
      if (static_cast<unsigned char>(p[-2]) <= c && c <= static_cast<unsigned char>(*p))
        return found;
    } else if (static_cast<unsigned char>(*p) == c) {
      return found;
    }
  }
  return !found;
}

// "%bxy" from p = "xy": a balanced run from x to its matching y.
const char* PatternMatcher::MatchBalance(const char* s, const char* p) {
  if (p >= pat_end_ || p + 1 >= pat_end_) return Fail("unbalanced pattern");
  if (s >= src_end_ || *s != *p) return nullptr;
  const char open = p[0];
  const char close = p[1];
  int depth = 1;
  while (++s < src_end_) {
    Step();
    if (*s == close) {
      if (--depth == 0) return s + 1;
    } else if (*s == open) {
      ++depth;
    }
  }
  return nullptr;
}

// "x*": as many as match, then fewer until the rest of the pattern matches.
const char* PatternMatcher::MaxExpand(const char* s, const char* p, const char* ep) {
  ptrdiff_t n = 0;
  while (s + n < src_end_ && SingleMatch(static_cast<unsigned char>(s[n]), p, ep)) {
    Step();
    ++n;
  }
  for (; n >= 0; --n) {
    const char* e = Match(s + n, ep + 1);
    if (e != nullptr || error_ != nullptr) return e;
  }
  return nullptr;
}

// "x-": as few as let the rest of the pattern match.
const char* PatternMatcher::MinExpand(const char* s, const char* p, const char* ep) {
  for (;;) {
    const char* e = Match(s, ep + 1);
    if (e != nullptr || error_ != nullptr) return e;
    if (s >= src_end_ || !SingleMatch(static_cast<unsigned char>(*s), p, ep)) return nullptr;
    ++s;
  }
}

const char* PatternMatcher::StartCapture(const char* s, const char* p, ptrdiff_t what) {
  if (level_ >= kMaxCaptures) return Fail("too many captures");
  capture_[level_] = Capture{s, what};
  ++level_;
  const char* e = Match(s, p);
  if (e == nullptr) --level_;
  return e;
}

const char* PatternMatcher::EndCapture(const char* s, const char* p) {
  int open = level_ - 1;
  while (open >= 0 && capture_[open].len != kUnfinished) --open;
  if (open < 0) return Fail("invalid pattern capture");
  capture_[open].len = s - capture_[open].init;
  const char* e = Match(s, p);
  if (e == nullptr) capture_[open].len = kUnfinished;
  return e;
}

// "%1".."%9": the text capture n matched, again.
const char* PatternMatcher::MatchBackReference(const char* s, char digit) {
  const int n = digit - '1';
  if (n < 0 || n >= level_ || capture_[n].len == kUnfinished) {
    return Fail("invalid capture index");
  }
  const ptrdiff_t len = capture_[n].len;
  if (len < 0 || src_end_ - s < len) return nullptr;  // a position capture matches no text
  return memcmp(capture_[n].init, s, static_cast<size_t>(len)) == 0 ? s + len : nullptr;
}

}  // namespace vireo
