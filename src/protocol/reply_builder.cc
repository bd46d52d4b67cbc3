#include "protocol/reply_builder.h"

#include <cstring>

#include "common/numbers.h"

namespace vireo {
namespace {

ErrorReplyHook g_error_hook = nullptr;

}  // namespace

void SetErrorReplyHook(ErrorReplyHook hook) { g_error_hook = hook; }

void ReplyBuilder::Header(char type, int64_t n) {
  char buf[24];
  buf[0] = type;
  size_t len = FormatInt64To(buf + 1, n) + 1;
  buf[len++] = '\r';
  buf[len++] = '\n';
  out_->append(buf, len);
}

namespace {

// Values up to this size are sent with one append: header, bytes and "\r\n" built on the
// stack (each std::string append costs a capacity check and a memcpy call).
constexpr size_t kSmallBulk = 64;

}  // namespace

void ReplyBuilder::Simple(std::string_view s) {
  if (!Fits(s.size())) return;
  out_->push_back('+');
  out_->append(s);
  out_->append("\r\n", 2);
}

void ReplyBuilder::Error(std::string_view msg) {
  if (!Fits(msg.size())) return;
  if (g_error_hook != nullptr) g_error_hook(msg);
  out_->push_back('-');
  // A newline inside an error would break the protocol: Valkey replaces them with spaces.
  size_t start = out_->size();
  out_->append(msg);
  for (size_t i = start; i < out_->size(); ++i) {
    if ((*out_)[i] == '\r' || (*out_)[i] == '\n') (*out_)[i] = ' ';
  }
  out_->append("\r\n", 2);
}

void ReplyBuilder::Integer(int64_t v) { Header(':', v); }

void ReplyBuilder::Bulk(std::string_view s) {
  if (!Fits(s.size())) return;
  if (s.size() <= kSmallBulk) {
    char buf[kSmallBulk + 8];  // "$64\r\n" + 64 bytes + "\r\n"
    buf[0] = '$';
    size_t len = FormatInt64To(buf + 1, static_cast<int64_t>(s.size())) + 1;
    buf[len++] = '\r';
    buf[len++] = '\n';
    if (!s.empty()) std::memcpy(buf + len, s.data(), s.size());  // an empty view may be null
    len += s.size();
    buf[len++] = '\r';
    buf[len++] = '\n';
    out_->append(buf, len);
    return;
  }
  Header('$', static_cast<int64_t>(s.size()));
  out_->append(s);
  out_->append("\r\n", 2);
}

void ReplyBuilder::BulkRef(const OutputRef& ref) {
  Header('$', static_cast<int64_t>(ref.size));
  conn_->AppendRef(ref);
  out_->append("\r\n", 2);
}

void ReplyBuilder::BulkInt(int64_t v) {
  char buf[24];
  size_t n = FormatInt64To(buf, v);
  Bulk(std::string_view(buf, n));
}

void ReplyBuilder::Null() {
  if (resp3_) {
    out_->append("_\r\n", 3);
  } else {
    out_->append("$-1\r\n", 5);
  }
}

void ReplyBuilder::NullArray() {
  if (resp3_) {
    out_->append("_\r\n", 3);
  } else {
    out_->append("*-1\r\n", 5);
  }
}

void ReplyBuilder::Array(size_t n) { Header('*', static_cast<int64_t>(n)); }

void ReplyBuilder::Map(size_t pairs) {
  if (resp3_) {
    Header('%', static_cast<int64_t>(pairs));
  } else {
    Header('*', static_cast<int64_t>(pairs * 2));
  }
}

void ReplyBuilder::Set(size_t n) { Header(resp3_ ? '~' : '*', static_cast<int64_t>(n)); }

void ReplyBuilder::Push(size_t n) { Header(resp3_ ? '>' : '*', static_cast<int64_t>(n)); }

void ReplyBuilder::Double(double v) {
  char buf[kDoubleTextSize + 3];
  if (!resp3_) {
    Bulk(std::string_view(buf, FormatDoubleTo(buf, v)));
    return;
  }
  buf[0] = ',';
  size_t n = 1 + FormatDoubleTo(buf + 1, v);
  buf[n++] = '\r';
  buf[n++] = '\n';
  out_->append(buf, n);
}

void ReplyBuilder::Bool(bool v) {
  if (resp3_) {
    out_->append(v ? "#t\r\n" : "#f\r\n", 4);
  } else {
    Integer(v ? 1 : 0);
  }
}

void ReplyBuilder::BigNumber(std::string_view digits) {
  if (!resp3_) {
    Bulk(digits);
    return;
  }
  if (!Fits(digits.size())) return;
  out_->push_back('(');
  out_->append(digits);
  out_->append("\r\n", 2);
}

void ReplyBuilder::Verbatim(std::string_view format, std::string_view text) {
  if (!resp3_) {
    Bulk(text);
    return;
  }
  if (!Fits(text.size())) return;
  Header('=', static_cast<int64_t>(text.size() + 4));
  // Always three bytes, as the length says: a shorter format is padded with spaces (Valkey's
  // reply to a script's {verbatim_string={format='n'}}), a longer one cut.
  format = format.substr(0, 3);
  out_->append(format);
  out_->append(3 - format.size(), ' ');
  out_->push_back(':');
  out_->append(text);
  out_->append("\r\n", 2);
}

}  // namespace vireo
