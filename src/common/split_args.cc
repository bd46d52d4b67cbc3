#include "common/split_args.h"

#include <cstdio>

namespace vireo {
namespace {

bool IsInlineSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\0'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool SplitQuotedArgs(std::string_view line, std::string* storage,
                     std::vector<std::string_view>* args) {
  // Reserving the whole line up front keeps the views valid: unescaping never grows it.
  storage->clear();
  storage->reserve(line.size());
  size_t i = 0;
  const size_t n = line.size();
  while (true) {
    while (i < n && IsInlineSpace(line[i])) ++i;
    if (i >= n) return true;
    const size_t start = storage->size();
    bool in_dq = false, in_sq = false, done = false;
    while (!done) {
      if (in_dq) {
        if (i >= n) return false;
        char c = line[i];
        if (c == '\\' && i + 3 < n && line[i + 1] == 'x' && HexValue(line[i + 2]) >= 0 &&
            HexValue(line[i + 3]) >= 0) {
          storage->push_back(static_cast<char>(HexValue(line[i + 2]) * 16 + HexValue(line[i + 3])));
          i += 4;
        } else if (c == '\\' && i + 1 < n) {
          char e = line[i + 1];
          switch (e) {
            case 'n': e = '\n'; break;
            case 'r': e = '\r'; break;
            case 't': e = '\t'; break;
            case 'b': e = '\b'; break;
            case 'a': e = '\a'; break;
            default: break;
          }
          storage->push_back(e);
          i += 2;
        } else if (c == '"') {
          // The closing quote must end the argument.
          if (i + 1 < n && !IsInlineSpace(line[i + 1])) return false;
          done = true;
          ++i;
        } else {
          storage->push_back(c);
          ++i;
        }
      } else if (in_sq) {
        if (i >= n) return false;
        char c = line[i];
        if (c == '\\' && i + 1 < n && line[i + 1] == '\'') {
          storage->push_back('\'');
          i += 2;
        } else if (c == '\'') {
          if (i + 1 < n && !IsInlineSpace(line[i + 1])) return false;
          done = true;
          ++i;
        } else {
          storage->push_back(c);
          ++i;
        }
      } else {
        if (i >= n || IsInlineSpace(line[i])) {
          done = true;
        } else if (line[i] == '"') {
          in_dq = true;
          ++i;
        } else if (line[i] == '\'') {
          in_sq = true;
          ++i;
        } else {
          storage->push_back(line[i]);
          ++i;
        }
      }
    }
    args->emplace_back(storage->data() + start, storage->size() - start);
  }
}


bool SplitQuotedArgs(std::string_view line, std::vector<std::string>* args) {
  std::string storage;
  std::vector<std::string_view> views;
  if (!SplitQuotedArgs(line, &storage, &views)) return false;
  args->assign(views.begin(), views.end());
  return true;
}

std::string QuoteArg(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      default:
        if (c < 32 || c >= 127) {
          char buf[8];
          snprintf(buf, sizeof(buf), "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace vireo
