// Inputs the parser fuzzer (fuzz/parser_fuzzer.cc) once found to misbehave; the same bytes
// are in fuzz/corpus/parser_fuzzer/ too.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "protocol/request_parser.h"

namespace vireo {
namespace {

// A bulk-length line that is only "\r\n": the number was parsed from a view of length -1
// (pointer overflow; harmless only because the byte after '\r' is always '\n').
TEST(RequestParserRegress, BareCrlfWhereBulkLengthExpected) {
  const std::string in = "*2\r\n$3\r\nget\r\n\r\nkey\r\n";
  RequestParser parser;
  size_t consumed = 0;
  std::vector<std::string_view> args;
  EXPECT_EQ(parser.Parse(in.data(), in.size(), ParserLimits{}, &consumed, &args),
            RequestParser::Result::kError);
  EXPECT_EQ(parser.Error(), "Protocol error: expected '$', got '\r'");
}

}  // namespace
}  // namespace vireo
