// The command logs of Valkey 8.1's COMMANDLOG: the latest commands that ran longer, or whose
// request or reply was bigger, than a threshold. SLOWLOG is the slow one. Execution thread
// only.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace vireo {

enum class CommandLogType { kSlow = 0, kLargeRequest = 1, kLargeReply = 2 };
inline constexpr int kCommandLogTypes = 3;

struct CommandLogEntry {
  uint64_t id;
  int64_t time_s;
  int64_t value;  // microseconds (slow) or bytes (large-request, large-reply)
  std::vector<std::string> args;
  std::string peer;
  std::string client_name;
};

class CommandLog {
 public:
  // Records a command as the newest entry, its arguments trimmed and secrets redacted as
  // Valkey does, then drops the oldest beyond max_len.
  void Push(const std::vector<std::string_view>& args, int64_t value, std::string_view peer,
            std::string_view client_name, int64_t max_len);
  const std::deque<CommandLogEntry>& entries() const { return entries_; }
  void Reset() { entries_.clear(); }

 private:
  std::deque<CommandLogEntry> entries_;
  uint64_t next_id_ = 0;  // each log counts its own entries, as in Valkey
};

// COMMANDLOG's type argument: slow, large-request or large-reply, any case.
bool ParseCommandLogType(std::string_view name, CommandLogType* type);

}  // namespace vireo
