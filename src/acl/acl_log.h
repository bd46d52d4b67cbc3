// ACL LOG: recent refusals (commands, keys, channels) and failed authentications, newest
// first. A refusal like one of the last few (same reason, context, object and user, within
// 60 s) counts into that entry instead of adding one, as Valkey does.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

namespace vireo {

struct AclLogEntry {
  uint64_t count = 1;
  std::string reason;   // command, key, channel, auth
  std::string context;  // toplevel, multi, lua
  std::string object;
  std::string username;
  std::string client_info;  // CLIENT LIST line of the client, as of the last refusal
  uint64_t entry_id = 0;
  int64_t created_ms = 0;
  int64_t updated_ms = 0;
};

class AclLog {
 public:
  void Add(AclLogEntry entry, int64_t now_ms, int64_t max_len);
  void Reset() { entries_.clear(); }
  // Drops the oldest entries beyond max_len (acllog-max-len lowered).
  void Trim(int64_t max_len);
  const std::deque<AclLogEntry>& entries() const { return entries_; }

 private:
  std::deque<AclLogEntry> entries_;
  uint64_t next_id_ = 0;
};

}  // namespace vireo
