// Fuzzes the RESP request parser (multibulk and inline) with any bytes, and checks its
// promise that any split of the byte stream gives the same commands: the input is parsed
// once whole and once fed in pieces, the way a connection's read buffer fills.
//
// Input: byte 0 picks the limits (bit 0: unauthenticated client, bit 1: small limits so
// the limit errors are reached), byte 1 seeds the piece sizes, the rest is the stream.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/request_parser.h"

namespace {

using vireo::ParserLimits;
using vireo::RequestParser;

struct Outcome {
  std::vector<std::vector<std::string>> commands;  // kEmpty commands appear as {}
  bool error = false;
};

void Record(const std::vector<std::string_view>& args, Outcome* out) {
  out->commands.emplace_back(args.begin(), args.end());
}

// The whole stream in one buffer.
Outcome ParseWhole(std::string_view data, const ParserLimits& limits) {
  Outcome out;
  RequestParser parser;
  std::vector<std::string_view> args;
  size_t off = 0;
  while (off < data.size()) {
    size_t consumed = 0;
    args.clear();
    auto r = parser.Parse(data.data() + off, data.size() - off, limits, &consumed, &args);
    if (r == RequestParser::Result::kIncomplete) break;
    if (r == RequestParser::Result::kError) {
      out.error = true;
      break;
    }
    if (consumed == 0 || consumed > data.size() - off) abort();  // no progress / overrun
    if (r == RequestParser::Result::kCommand) {
      Record(args, &out);
    } else {
      out.commands.emplace_back();
    }
    off += consumed;
  }
  return out;
}

// The same stream arriving in pieces of 1..16 bytes into a buffer the consumed front is cut
// from, as a connection does.
Outcome ParsePieces(std::string_view data, const ParserLimits& limits, uint32_t seed) {
  Outcome out;
  RequestParser parser;
  std::vector<std::string_view> args;
  std::string buf;
  size_t fed = 0;
  while (fed < data.size()) {
    seed = seed * 1103515245u + 12345u;
    size_t piece = 1 + (seed >> 16) % 16;
    if (piece > data.size() - fed) piece = data.size() - fed;
    buf.append(data.data() + fed, piece);
    fed += piece;
    for (;;) {
      if (buf.empty()) break;
      size_t consumed = 0;
      args.clear();
      auto r = parser.Parse(buf.data(), buf.size(), limits, &consumed, &args);
      if (r == RequestParser::Result::kIncomplete) break;
      if (r == RequestParser::Result::kError) {
        out.error = true;
        return out;
      }
      if (consumed == 0 || consumed > buf.size()) abort();
      if (r == RequestParser::Result::kCommand) {
        Record(args, &out);
      } else {
        out.commands.emplace_back();
      }
      buf.erase(0, consumed);
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  ParserLimits limits;
  limits.authenticated = (data[0] & 1) == 0;
  if (data[0] & 2) {
    limits.max_bulk_len = 64;
    limits.max_multibulk = 8;
    limits.max_inline = 32;
  }
  uint32_t seed = data[1];
  std::string_view stream(reinterpret_cast<const char*>(data + 2), size - 2);
  Outcome whole = ParseWhole(stream, limits);
  Outcome pieces = ParsePieces(stream, limits, seed);
  // What the whole parse refuses, the pieces may refuse earlier, never later.
  if (whole.error && !pieces.error) abort();
  if (pieces.error) {
    // A line-length limit trips on a partial buffer whose newline has not arrived yet (as in
    // Valkey), so with the small limits the pieces may stop early, after the same commands.
    if (!whole.error && (data[0] & 2) == 0) abort();
    if (pieces.commands.size() > whole.commands.size()) abort();
    for (size_t i = 0; i < pieces.commands.size(); ++i) {
      if (pieces.commands[i] != whole.commands[i]) abort();
    }
    return 0;
  }
  if (pieces.commands != whole.commands) abort();
  return 0;
}
