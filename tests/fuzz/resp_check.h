// Checks a fuzz target puts on replies: a command's reply bytes must be whole, well-formed
// RESP2/RESP3 values (so a handler that announces three elements and writes two is caught).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace vireo::fuzz {

// Skips one RESP value at *pos, nested to any depth (a script's reply may nest as deep as its
// tables); false if it is malformed or incomplete.
inline bool SkipValue(std::string_view s, size_t* pos) {
  std::vector<long long> pending = {1};  // values still to read at each open aggregate
  while (!pending.empty()) {
    if (pending.back() == 0) {
      pending.pop_back();
      continue;
    }
    --pending.back();
    if (*pos >= s.size()) return false;
    char type = s[*pos];
    size_t eol = s.find("\r\n", *pos);
    if (eol == std::string_view::npos) return false;
    std::string_view line = s.substr(*pos + 1, eol - *pos - 1);
    *pos = eol + 2;
    long long n = 0;
    if (std::string_view("$=!*~>%|").find(type) != std::string_view::npos) {
      if (line.empty()) return false;
      char* end = nullptr;
      std::string text(line);
      n = strtoll(text.c_str(), &end, 10);
      if (*end != '\0') return false;
      if (n < 0 && !(n == -1 && (type == '$' || type == '*'))) return false;
      if (n > static_cast<long long>(s.size())) return false;  // more items than bytes
    }
    switch (type) {
      case '+':
      case '-':
      case ':':
      case ',':
      case '#':
      case '(':
      case '_':
        break;
      case '$':
      case '=':
      case '!':
        if (n < 0) break;
        if (s.size() - *pos < static_cast<size_t>(n) + 2) return false;
        if (s.substr(*pos + static_cast<size_t>(n), 2) != "\r\n") return false;
        *pos += static_cast<size_t>(n) + 2;
        break;
      case '*':
      case '~':
      case '>':
        if (n > 0) pending.push_back(n);
        break;
      case '%':
        if (n > 0) pending.push_back(2 * n);
        break;
      case '|':
        // An attribute precedes the value it describes, which is still to come at this level.
        ++pending.back();
        if (n > 0) pending.push_back(2 * n);
        break;
      default:
        return false;
    }
  }
  return true;
}

// Number of complete RESP values the reply holds; -1 when it is malformed.
inline int CountReplies(std::string_view s) {
  size_t pos = 0;
  int n = 0;
  while (pos < s.size()) {
    if (!SkipValue(s, &pos)) return -1;
    ++n;
  }
  return n;
}

}  // namespace vireo::fuzz
