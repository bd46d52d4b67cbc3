#include "store/zset_listpack.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/numbers.h"
#include "store/zset_node.h"

namespace vireo::zlp {

namespace {

// A score as Valkey stores it in a listpack: integral values within +-2^62 as integers (so
// -0 is stored as 0), everything else as "%.17g" text.
std::string_view StoredScore(char* buf, double score) {
  constexpr double kLimit = static_cast<double>(INT64_MAX / 2);
  if (score >= -kLimit && score <= kLimit) {
    int64_t i = static_cast<int64_t>(score);
    if (static_cast<double>(i) == score) return {buf, FormatInt64To(buf, i)};
  }
  return {buf, FormatScore(buf, score)};
}

}  // namespace

size_t FormatScore(char* buf, double score) {
  if (std::isinf(score)) {
    const char* s = score > 0 ? "inf" : "-inf";
    size_t n = std::strlen(s);
    std::memcpy(buf, s, n);
    return n;
  }
  // Integral scores are the common case and "%.17g" prints them as plain digits: skip printf.
  // (-0 is left to printf, which keeps its sign as Valkey does.)
  if (score >= -1e15 && score <= 1e15 && !(score == 0 && std::signbit(score))) {
    int64_t i = static_cast<int64_t>(score);
    if (static_cast<double>(i) == score) return FormatInt64To(buf, i);
  }
  return static_cast<size_t>(std::snprintf(buf, 32, "%.17g", score));
}

double ScoreAt(const unsigned char* p) {
  lp::Value v = lp::Get(p);
  if (v.IsInt()) return static_cast<double>(v.ival);
  // Valkey parses stored scores with strtod on a bounded copy.
  char buf[128];
  size_t n = v.len < sizeof(buf) - 1 ? v.len : sizeof(buf) - 1;
  std::memcpy(buf, v.str, n);
  buf[n] = '\0';
  return std::strtod(buf, nullptr);
}

std::string_view MemberAt(const unsigned char* p, char* buf) { return lp::Get(p).View(buf); }

lp::Ptr Find(unsigned char* lp, std::string_view member, double* score) {
  lp::Ptr p = lp::Find(lp, lp::First(lp), member, 1);
  if (p != nullptr) *score = ScoreAt(lp::Next(lp, p));
  return p;
}

unsigned char* Insert(unsigned char* lp, std::string_view member, double score) {
  char sbuf[32];
  std::string_view score_text = StoredScore(sbuf, score);
  char mbuf[24];
  for (lp::Ptr p = lp::First(lp); p != nullptr;) {
    lp::Ptr sp = lp::Next(lp, p);
    double s = ScoreAt(sp);
    if (s > score || (s == score && CompareMembers(MemberAt(p, mbuf), member) > 0)) {
      lp::Ptr inserted = nullptr;
      lp = lp::Insert(lp, p, member, false, &inserted);
      return lp::Insert(lp, inserted, score_text, true);
    }
    p = lp::Next(lp, sp);
  }
  lp = lp::Append(lp, member);
  return lp::Append(lp, score_text);
}

unsigned char* Append(unsigned char* lp, std::string_view member, double score) {
  char sbuf[32];
  lp = lp::Append(lp, member);
  return lp::Append(lp, StoredScore(sbuf, score));
}

unsigned char* Erase(unsigned char* lp, lp::Ptr p) { return lp::DeleteRange(lp, &p, 2); }

}  // namespace vireo::zlp
