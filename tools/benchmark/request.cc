#include "benchmark/request.h"

#include "common/connection.h"

namespace vireo::benchmark {
namespace {

void FindAll(std::string_view haystack, std::string_view needle, std::vector<uint32_t>* out) {
  for (size_t at = haystack.find(needle); at != std::string_view::npos;
       at = haystack.find(needle, at + needle.size())) {
    out->push_back(static_cast<uint32_t>(at));
  }
}

}  // namespace

std::string EncodeCommand(const std::vector<std::string>& args) {
  std::string out;
  tools::AppendCommand(&out, args);
  return out;
}

RequestTemplate MakeRequestTemplate(std::string bytes) {
  RequestTemplate t;
  t.bytes = std::move(bytes);
  FindAll(t.bytes, kRandPlaceholder, &t.rand_offsets);
  FindAll(t.bytes, kTagPlaceholder, &t.tag_offsets);
  return t;
}

RequestTemplate RepeatRequest(const RequestTemplate& one, int count) {
  RequestTemplate t;
  t.bytes.reserve(one.bytes.size() * count);
  for (int i = 0; i < count; ++i) {
    auto base = static_cast<uint32_t>(t.bytes.size());
    t.bytes += one.bytes;
    for (uint32_t off : one.rand_offsets) t.rand_offsets.push_back(base + off);
    for (uint32_t off : one.tag_offsets) t.tag_offsets.push_back(base + off);
  }
  return t;
}

void WriteRandInt(char* p, uint64_t value) {
  for (int i = 11; i >= 0; --i) {
    p[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
}

void WriteSlotTag(char* p, std::string_view tag) {
  p[1] = tag.empty() ? '}' : tag[0];
  p[2] = tag.size() >= 2 ? tag[1] : '}';
  p[3] = tag.size() >= 3 ? tag[2] : '}';
}

}  // namespace vireo::benchmark
