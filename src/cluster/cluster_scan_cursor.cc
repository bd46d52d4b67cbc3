#include "cluster/cluster_scan_cursor.h"

#include <cstdint>
#include <vector>

#include "common/crc16.h"
#include "common/hash.h"

namespace vireo {
namespace {

constexpr char kTagAlphabet[] =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
constexpr int kTagAlphabetSize = 62;

// Every slot is reached by some string of three characters or fewer (62^3 > 16384 many times
// over); built once, on first use, by trying the strings shortest first in alphabet order.
std::vector<std::string> BuildSlotTags() {
  std::vector<std::string> tags(kClusterSlots);
  int found = 0;
  std::string s;
  for (int len = 1; len <= 3 && found < kClusterSlots; ++len) {
    int total = 1;
    for (int i = 0; i < len; ++i) total *= kTagAlphabetSize;
    s.assign(static_cast<size_t>(len), '0');
    for (int n = 0; n < total && found < kClusterSlots; ++n) {
      int v = n;
      for (int i = len - 1; i >= 0; --i) {  // first character most significant
        s[static_cast<size_t>(i)] = kTagAlphabet[v % kTagAlphabetSize];
        v /= kTagAlphabetSize;
      }
      std::string& tag = tags[Crc16(s) & (kClusterSlots - 1)];
      if (tag.empty()) {
        tag = s;
        ++found;
      }
    }
  }
  return tags;
}

}  // namespace

const std::string& SlotHashTag(int slot) {
  static const std::vector<std::string> tags = BuildSlotTags();
  return tags[static_cast<size_t>(slot)];
}

bool ParseClusterScanCursor(std::string_view text, ClusterScanCursor* out) {
  *out = ClusterScanCursor();
  if (text == "0") {
    out->start = true;
    return true;
  }
  const size_t dash = text.find('-');
  if (dash == std::string_view::npos || dash == 0) return false;
  out->fingerprint = std::string(text.substr(0, dash));
  std::string_view rest = text.substr(dash + 1);
  if (rest.size() < 2 || rest[0] != '{') return false;
  const size_t close = rest.find('}');
  if (close == std::string_view::npos || close == 1) return false;
  std::string_view tag = rest.substr(1, close - 1);
  rest = rest.substr(close + 1);
  if (rest.size() < 2 || rest[0] != '-') return false;
  // Digits only; leading zeros allowed (a fresh cursor's local part is not read at all).
  uint64_t local = 0;
  for (char c : rest.substr(1)) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (local > (UINT64_MAX - d) / 10) return false;
    local = local * 10 + d;
  }
  out->local = local;
  out->slot = Crc16(tag) & (kClusterSlots - 1);
  return true;
}

std::string FormatClusterScanCursor(std::string_view fingerprint, int slot, uint64_t local) {
  std::string out(fingerprint);
  out += "-{";
  out += SlotHashTag(slot);
  out += "}-";
  out += std::to_string(local);
  return out;
}

bool PackScanLocal(uint64_t table_cursor, int end_slot, uint64_t* local) {
  if (table_cursor > (UINT64_MAX - kClusterSlots) / kClusterSlots) return false;
  *local = table_cursor * kClusterSlots + static_cast<uint64_t>(end_slot);
  return true;
}

void UnpackScanLocal(uint64_t local, uint64_t* table_cursor, int* end_slot) {
  *table_cursor = local / kClusterSlots;
  *end_slot = static_cast<int>(local % kClusterSlots);
}

const std::string& LocalScanFingerprint() {
  static const std::string fingerprint = [] {
    // HashBytes is seeded: the same text gives another value under another seed.
    uint64_t h = HashBytes("vireo-clusterscan-1");
    if (h == 0) h = 1;
    std::string s;
    while (h != 0) {
      s += kTagAlphabet[h % kTagAlphabetSize];
      h /= kTagAlphabetSize;
    }
    return s;
  }();
  return fingerprint;
}

}  // namespace vireo
