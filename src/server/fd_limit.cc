#include "server/fd_limit.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/log.h"

namespace vireo {

int64_t AdjustOpenFilesLimit(int64_t maxclients) {
  const rlim_t wanted = static_cast<rlim_t>(maxclients + kReservedFds);
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    LogWarning("Unable to obtain the current NOFILE limit (%s), assuming 1024 and setting the "
               "max clients configuration accordingly.", strerror(errno));
    return std::min<int64_t>(maxclients, 1024 - kReservedFds);
  }
  const rlim_t original = limit.rlim_cur;
  if (original >= wanted) return maxclients;
  // Above the hard limit only a privileged process may go; the hard limit itself always works.
  rlimit raised{wanted, std::max(limit.rlim_max, wanted)};
  int set_errno = 0;
  if (setrlimit(RLIMIT_NOFILE, &raised) != 0) {
    set_errno = errno;
    raised = {limit.rlim_max, limit.rlim_max};
    if (limit.rlim_max <= original || setrlimit(RLIMIT_NOFILE, &raised) != 0) raised = limit;
  }
  const rlim_t best = raised.rlim_cur;
  if (best >= wanted) {
    LogNotice("Increased maximum number of open files to %llu (it was originally set to %llu).",
              static_cast<unsigned long long>(best), static_cast<unsigned long long>(original));
    return maxclients;
  }
  if (best <= static_cast<rlim_t>(kReservedFds)) {
    LogWarning("Your current 'ulimit -n' of %llu is not enough for the server to start. Please "
               "increase your open file limit to at least %llu. Exiting.",
               static_cast<unsigned long long>(original),
               static_cast<unsigned long long>(wanted));
    return -1;
  }
  const int64_t reduced = static_cast<int64_t>(best) - kReservedFds;
  LogWarning("You requested maxclients of %lld requiring at least %llu max file descriptors.",
             static_cast<long long>(maxclients), static_cast<unsigned long long>(wanted));
  LogWarning("Server can't set maximum open files to %llu because of OS error: %s.",
             static_cast<unsigned long long>(wanted), strerror(set_errno));
  LogWarning("Current maximum open files is %llu. maxclients has been reduced to %lld to "
             "compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'.",
             static_cast<unsigned long long>(best), static_cast<long long>(reduced));
  return reduced;
}

}  // namespace vireo
