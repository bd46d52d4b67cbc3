// oom-score-adj: how eagerly the Linux OOM killer picks this process, set by role as Valkey
// does (oom-score-adj-values: primary, replica, background child; Vireo forks no child).
#pragma once

#include <string>

namespace vireo {

class OomScore {
 public:
  // Reads the score the process started with: the base of "yes"/"relative", and what "no"
  // puts back.
  void Init();
  // Sets /proc/self/oom_score_adj for `mode` (no, yes, relative, absolute) and the role's
  // value from `values` ("0 200 800"). Writes only on a change; false (logged) when the
  // kernel refuses, e.g. a negative score without CAP_SYS_RESOURCE.
  bool Apply(const std::string& mode, const std::string& values, bool replica);

 private:
  int base_ = 0;
  int current_ = 0;
  bool adjusted_ = false;  // whether this process has written a score
};

}  // namespace vireo
