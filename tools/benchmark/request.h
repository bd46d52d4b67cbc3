// The bytes of a benchmark request and the placeholders rewritten before each send, so a
// pipeline is built once and sending it is one write.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vireo::benchmark {

inline constexpr std::string_view kRandPlaceholder = "__rand_int__";  // 12 bytes
inline constexpr std::string_view kTagPlaceholder = "{tag}";          // 5 bytes

struct RequestTemplate {
  std::string bytes;                   // the request(s) as sent
  std::vector<uint32_t> rand_offsets;  // where each "__rand_int__" starts, ascending
  std::vector<uint32_t> tag_offsets;   // where each "{tag}" starts, ascending
};

// The RESP array of bulk strings for args.
std::string EncodeCommand(const std::vector<std::string>& args);

// Locates the placeholders in bytes (left to right, not overlapping).
RequestTemplate MakeRequestTemplate(std::string bytes);

// `count` copies of one request back to back, with the placeholders of every copy.
RequestTemplate RepeatRequest(const RequestTemplate& one, int count);

// Writes value % 10^12 as 12 zero-padded digits at p (over a "__rand_int__").
void WriteRandInt(char* p, uint64_t value);

// Writes a slot's hash tag (1 to 3 characters) over a "{tag}" placeholder at p. A shorter tag
// is padded with '}' ("{8M}}"), as redis-benchmark does: the key still hashes to the tag.
void WriteSlotTag(char* p, std::string_view tag);

}  // namespace vireo::benchmark
