#include "store/zset_node.h"

#include <bit>
#include <cstddef>

#include "store/memory.h"

namespace vireo {
namespace {

size_t NodeBytes(size_t member_len) {
  return offsetof(ZNode, bytes) + member_len + (member_len >= 255 ? sizeof(uint32_t) : 0);
}

}  // namespace

ZNode* NewZNode(std::string_view member, double score) {
  ZNode* n = static_cast<ZNode*>(ZMalloc(NodeBytes(member.size())));
  n->next = nullptr;
  n->score = score;
  char* dst = n->bytes;
  if (member.size() < 255) {
    n->short_len = static_cast<uint8_t>(member.size());
  } else {
    n->short_len = 255;
    uint32_t len = static_cast<uint32_t>(member.size());
    std::memcpy(dst, &len, sizeof(len));
    dst += sizeof(len);
  }
  if (!member.empty()) std::memcpy(dst, member.data(), member.size());
  return n;
}

void FreeZNode(ZNode* node) { ZFree(node); }

size_t ZNodeAllocSize(size_t member_len) {
  // jemalloc's size classes: 8, 16-byte steps to 128, then four classes per doubling.
  size_t n = NodeBytes(member_len);
  if (n <= 8) return 8;
  if (n <= 128) return (n + 15) & ~size_t{15};
  size_t spacing = size_t{1} << (std::bit_width(n - 1) - 3);
  return (n + spacing - 1) & ~(spacing - 1);
}

}  // namespace vireo
