#include "store/zset_listpack.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "common/numbers.h"
#include "store/zset_node.h"

namespace vireo::zlp {

namespace {

// A score as Valkey stores it in a listpack: integral values within +-2^62 as integers (so
// -0 is stored as 0), everything else as text in its reply form (FormatDoubleDtoaTo's, which
// is FormatDoubleTo's for these values).
std::string_view StoredScore(char* buf, double score) {
  int64_t i;
  if (DoubleToInt64Exact(score, &i)) return {buf, FormatInt64To(buf, i)};
  return {buf, FormatDoubleDtoaTo(buf, score)};
}

}  // namespace

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
