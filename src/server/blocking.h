// Clients blocked on keys (BLPOP, BZPOPMIN, BLMOVE, XREAD BLOCK, ...): who waits on which key,
// in arrival order, and the deadlines. When a write makes a watched key ready, the waiting
// clients re-run their command in arrival order after the writing command finishes (the way
// Valkey 7 serves them), so each family's blocking logic is just its non-blocking logic.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/entry.h"

namespace vireo {

// What a client gets when its wait times out (or CLIENT UNBLOCK ... TIMEOUT).
enum class BlockTimeoutReply : uint8_t {
  kNullArray,  // BLPOP, BRPOP, BLMPOP, BZPOPMIN/MAX, BZMPOP, XREAD: "*-1" (RESP3 "_")
  kNullBulk,   // BLMOVE, BRPOPLPUSH: "$-1" (RESP3 "_")
};

// Parses a blocking command's timeout in seconds (float allowed, 0 = forever) into an absolute
// deadline in unix ms (0 = none). On failure *error is Valkey's text: "timeout is not a float
// or out of range", "timeout is negative", "timeout is out of range".
bool ParseBlockTimeout(std::string_view arg, int64_t now_ms, int64_t* deadline_ms,
                       std::string* error);
// Same for a timeout given in milliseconds (XREAD BLOCK ms).
bool ParseBlockTimeoutMs(std::string_view arg, int64_t now_ms, int64_t* deadline_ms,
                         std::string* error);

// A blocked client's wait (held by the client).
struct BlockState {
  std::vector<std::string> args;  // the command to run again
  std::vector<std::string> keys;
  int db = 0;
  int64_t deadline_ms = 0;        // 0 = forever
  ObjType type = ObjType::kList;  // the value type that wakes the client
  BlockTimeoutReply on_timeout = BlockTimeoutReply::kNullArray;
  bool unblock_on_nokey = false;  // also wake when the key is deleted or changes type (XREADGROUP)
  int64_t since_ms = 0;
};

}  // namespace vireo
