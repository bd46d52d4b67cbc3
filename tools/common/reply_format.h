// Turning replies into text exactly as redis-cli prints them: the terminal form
// ("(integer) 1", "1) \"a\"", nested indentation), the raw form (plain lines, used when stdout is
// not a terminal), CSV and valkey-cli's JSON.
#pragma once

#include <string>
#include <string_view>

#include "common/resp_reader.h"

namespace vireo::tools {

// kQuotedJson is --quoted-json: strings in the terminal form's escapes, ASCII only.
enum class OutputMode { kStandard, kRaw, kCsv, kJson, kQuotedJson };

// Appends s in double quotes with C-like escapes for '\\', '"', \n \r \t \a \b and \xHH for
// other non-printable bytes (redis-cli's sdscatrepr).
void AppendRepr(std::string* out, std::string_view s);
std::string Repr(std::string_view s);

// The terminal form. Every reply ends with a newline; `prefix` indents the continuation lines
// of nested aggregates.
std::string FormatTty(const Reply& reply, const std::string& prefix = "");
// The raw form without the trailing delimiter: strings as they are, aggregates joined by
// `element_delim` (-d), nil as nothing.
std::string FormatRaw(const Reply& reply, std::string_view element_delim = "\n");
// One CSV line without the newline.
std::string FormatCsv(const Reply& reply);
// One JSON value without the newline, as valkey-cli --json / --quoted-json print it: maps become
// objects (non-string keys quoted), errors `error:"text"`, doubles their text (inf stays inf).
std::string FormatJson(const Reply& reply, bool quoted);

// What redis-cli writes for a command's reply: raw_strings (INFO, CLIENT LIST...) prints the raw
// form with no delimiter even on a terminal; otherwise the mode's form, the raw one followed by
// `reply_delim` (-D), CSV by a newline.
std::string FormatReply(const Reply& reply, OutputMode mode, bool raw_strings,
                        std::string_view element_delim = "\n", std::string_view reply_delim = "\n");

}  // namespace vireo::tools
