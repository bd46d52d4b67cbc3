#include "server/oom_score.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "common/log.h"

namespace vireo {
namespace {

constexpr const char* kPath = "/proc/self/oom_score_adj";

bool ReadScore(int* out) {
  FILE* f = std::fopen(kPath, "r");
  if (f == nullptr) return false;
  const bool ok = std::fscanf(f, "%d", out) == 1;
  std::fclose(f);
  return ok;
}

bool WriteScore(int score) {
  FILE* f = std::fopen(kPath, "w");
  if (f == nullptr) return false;
  const bool ok = std::fprintf(f, "%d", score) > 0;
  return std::fclose(f) == 0 && ok;
}

}  // namespace

void OomScore::Init() {
  if (!ReadScore(&base_)) base_ = 0;
  current_ = base_;
}

bool OomScore::Apply(const std::string& mode, const std::string& values, bool replica) {
  int target = base_;
  if (mode != "no") {
    std::istringstream in(values);
    int primary = 0, replica_value = 0;
    in >> primary >> replica_value;
    const int value = replica ? replica_value : primary;
    target = std::clamp(mode == "absolute" ? value : base_ + value, -1000, 1000);
  } else if (!adjusted_) {
    return true;  // never changed: nothing to put back
  }
  if (target == current_ && adjusted_) return true;
  if (!WriteScore(target)) {
    LogWarning("Unable to write oom_score_adj: %s", std::strerror(errno));
    return false;
  }
  adjusted_ = true;
  current_ = target;
  return true;
}

}  // namespace vireo
