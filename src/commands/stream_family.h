// Pieces shared by the stream command files (stream_commands.cc: entries,
// stream_read_commands.cc: XREAD/XREADGROUP, stream_group_commands.cc: consumer groups,
// stream_info_command.cc: XINFO).
#pragma once

#include <string>
#include <string_view>

#include "commands/command_table.h"
#include "commands/context.h"
#include "protocol/reply_builder.h"
#include "store/stream.h"

namespace vireo::streamcmd {

inline constexpr const char* kInvalidId =
    "ERR Invalid stream ID specified as stream command argument";
inline constexpr const char* kInvalidStart = "ERR invalid start ID for the interval";
inline constexpr const char* kInvalidEnd = "ERR invalid end ID for the interval";

// The stream at key, for reading (counts keyspace hits/misses) or writing. *wrong_type is set
// (and nullptr returned) when the key holds another type.
Stream* ReadStream(CommandContext& ctx, std::string_view key, bool* wrong_type);
Stream* WriteStream(CommandContext& ctx, std::string_view key, bool* wrong_type);

// Parses an ID (strict: "-" / "+" refused) or replies the invalid-ID error.
bool ParseIdOrReply(CommandContext& ctx, std::string_view arg, StreamID* id, uint64_t missing_seq,
                    bool strict);
// Parses an interval bound of XRANGE / XPENDING / XAUTOCLAIM ("(" = exclusive, turned into
// the next / previous ID) or replies the error.
bool ParseRangeStartOrReply(CommandContext& ctx, std::string_view arg, StreamID* id);
bool ParseRangeEndOrReply(CommandContext& ctx, std::string_view arg, StreamID* id);

// s as Valkey's "%s" prints it into an error text: up to the first NUL byte.
inline std::string CText(std::string_view s) { return std::string(s.substr(0, s.find('\0'))); }

void ReplyId(ReplyBuilder& reply, StreamID id);
// [id, [field, value, ...]] for the iterator's current entry.
void ReplyEntry(ReplyBuilder& reply, const StreamIterator& it);
// Replies [id, [field, value, ...]] for entry id; false (nothing written) when it is gone.
bool ReplyEntryById(ReplyBuilder& reply, const Stream& s, StreamID id);

// An array whose length is known only after its elements were written: they go to a side
// buffer, then Finish writes the header and the elements to the real reply.
class DeferredArray {
 public:
  explicit DeferredArray(ReplyBuilder& out) : out_(out), sub_(&buf_) { sub_.SetResp3(out.Resp3()); }
  ReplyBuilder& items() { return sub_; }
  void Finish(size_t n) {
    out_.Array(n);
    out_.Raw(buf_);
  }
  // The same for a map of n pairs (a flat array in RESP2).
  void FinishMap(size_t n) {
    out_.Map(n);
    out_.Raw(buf_);
  }

 private:
  ReplyBuilder& out_;
  std::string buf_;
  ReplyBuilder sub_;
};

// Registration of the other stream command files.
// Propagation of what a consumer group hands out (Valkey 7): each entry as an XCLAIM with its
// absolute delivery time and count, FORCE and JUSTID, and the group's last ID, so a replay
// never depends on the clock. XREADGROUP, XCLAIM and XAUTOCLAIM propagate only these.
void PropagateStreamClaim(CommandContext& ctx, std::string_view key, std::string_view group,
                          const StreamGroup& g, StreamID id, const StreamNack& nack);

void RegisterStreamReadCommands(CommandTable& t);
void RegisterStreamGroupCommands(CommandTable& t);
void RegisterStreamInfoCommand(CommandTable& t);

}  // namespace vireo::streamcmd
