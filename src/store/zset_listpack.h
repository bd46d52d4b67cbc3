// A small sorted set packed in one listpack: member, score, member, score... ordered by score
// then member, scores written exactly as Valkey writes them (integers as listpack integers,
// other values as text in Valkey 8's reply form), so the blob is the one RDB files carry.
#pragma once

#include <cstddef>
#include <string_view>

#include "store/listpack.h"

namespace vireo::zlp {

// The score held by the element at p (a score element).
double ScoreAt(const unsigned char* p);
// The score element's text as stored (ZSCAN replies it as is); buf >= 24 bytes.
inline std::string_view ScoreTextAt(const unsigned char* p, char* buf) {
  return lp::Get(p).View(buf);
}
// The member at p as text; integer members are formatted into buf (>= 24 bytes).
std::string_view MemberAt(const unsigned char* p, char* buf);

// Number of members.
inline size_t Length(const unsigned char* lp) { return lp::Length(lp) / 2; }
// The member element equal to member, or nullptr; *score receives its score when found.
lp::Ptr Find(unsigned char* lp, std::string_view member, double* score);
// Inserts a member that is not present at its ordered position.
unsigned char* Insert(unsigned char* lp, std::string_view member, double score);
// Appends a pair (the caller keeps the order).
unsigned char* Append(unsigned char* lp, std::string_view member, double score);
// Deletes the pair whose member element is at p.
unsigned char* Erase(unsigned char* lp, lp::Ptr p);

}  // namespace vireo::zlp
