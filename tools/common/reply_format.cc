#include "common/reply_format.h"

#include <cstdio>
#include <cstring>

namespace vireo::tools {
namespace {

// Text up to the first NUL: redis-cli prints status, error and double texts with "%s".
std::string_view CString(const std::string& s) {
  size_t nul = s.find('\0');
  return nul == std::string::npos ? std::string_view(s) : std::string_view(s.data(), nul);
}

char AggregateMark(Reply::Type type) {
  switch (type) {
    case Reply::Type::kSet:
      return '~';
    case Reply::Type::kMap:
      return '#';
    default:
      return ')';
  }
}

const char* EmptyAggregateText(Reply::Type type) {
  switch (type) {
    case Reply::Type::kArray:
      return "(empty array)\n";
    case Reply::Type::kMap:
      return "(empty hash)\n";
    case Reply::Type::kSet:
      return "(empty set)\n";
    case Reply::Type::kPush:
      return "(empty push)\n";
    default:
      return "(empty aggregate type)\n";
  }
}

void AppendTty(std::string* out, const Reply& r, const std::string& prefix) {
  switch (r.type) {
    case Reply::Type::kError:
      out->append("(error) ").append(CString(r.str)).append("\n");
      return;
    case Reply::Type::kStatus:
      out->append(CString(r.str)).append("\n");
      return;
    case Reply::Type::kInteger:
      out->append("(integer) ").append(std::to_string(r.integer)).append("\n");
      return;
    case Reply::Type::kDouble:
      out->append("(double) ").append(CString(r.str)).append("\n");
      return;
    case Reply::Type::kBigNumber:
      // redis-cli 7.0 exits with "Unknown reply type: 13" here; we print it (COMPATIBILITY.md).
      out->append("(big number) ").append(r.str).append("\n");
      return;
    case Reply::Type::kString:
      AppendRepr(out, r.str);
      out->append("\n");
      return;
    case Reply::Type::kVerbatim:
      out->append(r.str).append("\n");
      return;
    case Reply::Type::kNil:
      out->append("(nil)\n");
      return;
    case Reply::Type::kBool:
      out->append(r.integer ? "(true)\n" : "(false)\n");
      return;
    case Reply::Type::kArray:
    case Reply::Type::kMap:
    case Reply::Type::kSet:
    case Reply::Type::kPush:
      break;
  }
  if (r.elements.empty()) {
    out->append(EmptyAggregateText(r.type));
    return;
  }
  const bool is_map = r.type == Reply::Type::kMap;
  size_t count = is_map ? r.elements.size() / 2 : r.elements.size();
  // Indices are right-aligned to the width of the largest; nested lines indent past them.
  size_t width = 0;
  for (size_t n = count;; n /= 10) {
    ++width;
    if (n < 10) break;
  }
  std::string child_prefix = prefix + std::string(width + 2, ' ');
  const char mark = AggregateMark(r.type);
  char index[32];
  for (size_t i = 0; i < r.elements.size(); ++i) {
    const size_t human = (is_map ? i / 2 : i) + 1;
    // The first line follows the parent's own index, so it gets no prefix.
    if (i != 0) out->append(prefix);
    snprintf(index, sizeof(index), "%*zu%c ", static_cast<int>(width), human, mark);
    out->append(index);
    AppendTty(out, r.elements[i], child_prefix);
    if (is_map && i + 1 < r.elements.size()) {
      ++i;
      out->pop_back();  // the key's newline
      out->append(" => ");
      // An aggregate value that takes several lines starts on a line of its own, indented
      // like its siblings; a one-line value stays on the key's line.
      std::string value;
      AppendTty(&value, r.elements[i], child_prefix);
      if (r.elements[i].IsAggregate() && value.find('\n') + 1 < value.size()) {
        out->append("\n").append(child_prefix);
      }
      out->append(value);
    }
  }
}

void AppendRaw(std::string* out, const Reply& r, std::string_view delim) {
  switch (r.type) {
    case Reply::Type::kNil:
      return;
    case Reply::Type::kError:
      out->append(r.str).append("\n");
      return;
    case Reply::Type::kStatus:
    case Reply::Type::kString:
    case Reply::Type::kVerbatim:
    case Reply::Type::kBigNumber:
      out->append(r.str);
      return;
    case Reply::Type::kBool:
      out->append(r.integer ? "(true)" : "(false)");
      return;
    case Reply::Type::kInteger:
      out->append(std::to_string(r.integer));
      return;
    case Reply::Type::kDouble:
      out->append(CString(r.str));
      return;
    case Reply::Type::kArray:
    case Reply::Type::kSet:
    case Reply::Type::kPush:
      for (size_t i = 0; i < r.elements.size(); ++i) {
        if (i > 0) out->append(delim);
        AppendRaw(out, r.elements[i], delim);
      }
      return;
    case Reply::Type::kMap:
      for (size_t i = 0; i + 1 < r.elements.size(); i += 2) {
        if (i > 0) out->append(delim);
        AppendRaw(out, r.elements[i], delim);
        out->append(" ");
        AppendRaw(out, r.elements[i + 1], delim);
      }
      return;
  }
}

void AppendCsv(std::string* out, const Reply& r) {
  switch (r.type) {
    case Reply::Type::kError:
      out->append("ERROR,");
      AppendRepr(out, CString(r.str));
      return;
    case Reply::Type::kStatus:
    case Reply::Type::kString:
    case Reply::Type::kVerbatim:
      AppendRepr(out, r.str);
      return;
    case Reply::Type::kInteger:
      out->append(std::to_string(r.integer));
      return;
    case Reply::Type::kDouble:
    case Reply::Type::kBigNumber:
      out->append(CString(r.str));
      return;
    case Reply::Type::kNil:
      out->append("NULL");
      return;
    case Reply::Type::kBool:
      out->append(r.integer ? "true" : "false");
      return;
    case Reply::Type::kArray:
    case Reply::Type::kSet:
    case Reply::Type::kPush:
    case Reply::Type::kMap:
      // CSV has no nesting: aggregates (maps too) flatten into one list.
      for (size_t i = 0; i < r.elements.size(); ++i) {
        AppendCsv(out, r.elements[i]);
        if (i + 1 != r.elements.size()) out->append(",");
      }
      return;
  }
}

// --json strings: JSON escapes for quotes, backslashes and control bytes; other bytes (UTF-8
// included) pass through as they are.
void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20) {
          char hex[8];
          snprintf(hex, sizeof(hex), "\\u%04x", c);
          out->append(hex);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

// --quoted-json strings: the terminal form's quoted text with every backslash doubled (its own
// quotes stay the JSON quotes), which is what valkey-cli prints.
void AppendQuotedJsonString(std::string* out, std::string_view s) {
  for (char c : Repr(s)) {
    if (c == '\\') out->push_back('\\');
    out->push_back(c);
  }
}

void AppendJson(std::string* out, const Reply& r, bool quoted) {
  auto string = [&](std::string_view s) {
    quoted ? AppendQuotedJsonString(out, s) : AppendJsonString(out, s);
  };
  switch (r.type) {
    case Reply::Type::kError:
      out->append("error:");
      string(r.str);
      return;
    case Reply::Type::kStatus:
    case Reply::Type::kString:
    case Reply::Type::kVerbatim:
      string(r.str);
      return;
    case Reply::Type::kInteger:
      out->append(std::to_string(r.integer));
      return;
    case Reply::Type::kDouble:
    case Reply::Type::kBigNumber:
      out->append(CString(r.str));
      return;
    case Reply::Type::kNil:
      out->append("null");
      return;
    case Reply::Type::kBool:
      out->append(r.integer ? "true" : "false");
      return;
    case Reply::Type::kArray:
    case Reply::Type::kSet:
    case Reply::Type::kPush:
      out->push_back('[');
      for (size_t i = 0; i < r.elements.size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJson(out, r.elements[i], quoted);
      }
      out->push_back(']');
      return;
    case Reply::Type::kMap:
      out->push_back('{');
      for (size_t i = 0; i + 1 < r.elements.size(); i += 2) {
        if (i > 0) out->push_back(',');
        const Reply& key = r.elements[i];
        const bool text_key = key.type == Reply::Type::kString ||
                              key.type == Reply::Type::kStatus ||
                              key.type == Reply::Type::kVerbatim;
        // Object keys must be strings: other keys print in quotes.
        if (!text_key) out->push_back('"');
        AppendJson(out, key, quoted);
        if (!text_key) out->push_back('"');
        out->push_back(':');
        AppendJson(out, r.elements[i + 1], quoted);
      }
      out->push_back('}');
      return;
  }
}

}  // namespace

std::string FormatJson(const Reply& reply, bool quoted) {
  std::string out;
  AppendJson(&out, reply, quoted);
  return out;
}

void AppendRepr(std::string* out, std::string_view s) {
  out->push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '\\':
      case '"':
        out->push_back('\\');
        out->push_back(static_cast<char>(c));
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\a':
        out->append("\\a");
        break;
      case '\b':
        out->append("\\b");
        break;
      default:
        // Printable ASCII only, whatever the locale: redis-cli runs in the C locale.
        if (c >= 0x20 && c < 0x7f) {
          out->push_back(static_cast<char>(c));
        } else {
          char hex[8];
          snprintf(hex, sizeof(hex), "\\x%02x", c);
          out->append(hex);
        }
    }
  }
  out->push_back('"');
}

std::string Repr(std::string_view s) {
  std::string out;
  AppendRepr(&out, s);
  return out;
}

std::string FormatTty(const Reply& reply, const std::string& prefix) {
  std::string out;
  AppendTty(&out, reply, prefix);
  return out;
}

std::string FormatRaw(const Reply& reply, std::string_view element_delim) {
  std::string out;
  AppendRaw(&out, reply, element_delim);
  return out;
}

std::string FormatCsv(const Reply& reply) {
  std::string out;
  AppendCsv(&out, reply);
  return out;
}

std::string FormatReply(const Reply& reply, OutputMode mode, bool raw_strings,
                        std::string_view element_delim, std::string_view reply_delim) {
  if (raw_strings) return FormatRaw(reply, element_delim);
  std::string out;
  switch (mode) {
    case OutputMode::kStandard:
      return FormatTty(reply);
    case OutputMode::kRaw:
      out = FormatRaw(reply, element_delim);
      break;
    case OutputMode::kCsv:
      // -D applies to the raw form only.
      return FormatCsv(reply) + "\n";
    case OutputMode::kJson:
    case OutputMode::kQuotedJson:
      return FormatJson(reply, mode == OutputMode::kQuotedJson) + "\n";
  }
  out.append(reply_delim);
  return out;
}

}  // namespace vireo::tools
