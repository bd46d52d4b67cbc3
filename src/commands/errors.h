// Every error text the server replies, named once (Valkey's exact wording).
#pragma once

namespace vireo::errors {

inline constexpr const char* kSyntax = "ERR syntax error";
inline constexpr const char* kNotInteger = "ERR value is not an integer or out of range";
// HGETEX, HSETEX, HPERSIST, HEXPIRE..., HGETDEL: a FIELDS block whose count does not fit.
inline constexpr const char* kNumFieldsMismatch =
    "ERR numfields should be greater than 0 and match the provided number of fields";
inline constexpr const char* kNotFloat = "ERR value is not a valid float";
inline constexpr const char* kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr const char* kNoSuchKey = "ERR no such key";
inline constexpr const char* kNoAuth = "NOAUTH Authentication required.";
inline constexpr const char* kWrongPass =
    "WRONGPASS invalid username-password pair or user is disabled.";
inline constexpr const char* kAuthNotSet =
    "ERR AUTH <password> called without any password configured for the default user. Are you "
    "sure your configuration is correct?";
inline constexpr const char* kDbIndexOutOfRange = "ERR DB index is out of range";
inline constexpr const char* kInvalidDbIndex = "ERR invalid DB index";
inline constexpr const char* kOverflow = "ERR increment or decrement would overflow";
inline constexpr const char* kStringTooLong =
    "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
inline constexpr const char* kInvalidExpire = "ERR invalid expire time in '%s' command";
inline constexpr const char* kMaxClients = "ERR max number of clients reached";
inline constexpr const char* kReplicaKeyspace = "ERR Replica can't interact with the keyspace";
inline constexpr const char* kOutOfRange = "ERR index out of range";
inline constexpr const char* kOffsetOutOfRange = "ERR offset is out of range";
inline constexpr const char* kSameObject = "ERR source and destination objects are the same";
inline constexpr const char* kNanOrInf = "ERR increment would produce NaN or Infinity";
inline constexpr const char* kInvalidCursor = "ERR invalid cursor";
inline constexpr const char* kIntRange =
    "ERR value is out of range, value must between -2147483648 and 2147483647";
inline constexpr const char* kInvalidFirstDb = "ERR invalid first DB index";
inline constexpr const char* kInvalidSecondDb = "ERR invalid second DB index";
inline constexpr const char* kExpireNxConflict =
    "ERR NX and XX, GT or LT options at the same time are not compatible";
// Followed by the option as given.
inline constexpr const char* kUnsupportedOptionPrefix = "ERR Unsupported option ";
inline constexpr const char* kExpireGtLtConflict =
    "ERR GT and LT options at the same time are not compatible";
// maxmemory reached and nothing (more) can be evicted.
inline constexpr const char* kOom = "OOM command not allowed when used memory > 'maxmemory'.";
inline constexpr const char* kLfuNotSelected =
    "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note "
    "that when switching between policies at runtime LRU and LFU data will take some time to "
    "adjust.";
inline constexpr const char* kLfuSelected =
    "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
    "switching between policies at runtime LRU and LFU data will take some time to adjust.";
inline constexpr const char* kTimeoutNotInteger = "ERR timeout is not an integer or out of range";
inline constexpr const char* kDecrementOverflow = "ERR decrement would overflow";
inline constexpr const char* kLcsNotStrings = "ERR The specified keys must contain string values";
inline constexpr const char* kLcsIdxAndLen =
    "ERR If you want both the length and indexes, please just use IDX.";
inline constexpr const char* kLcsTooLarge =
    "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len";
inline constexpr const char* kLcsNoMemory =
    "ERR Insufficient memory, failed allocating transient memory for LCS";
// Transactions.
inline constexpr const char* kNotAllowedInMulti = "ERR Command not allowed inside a transaction";
inline constexpr const char* kExecWithoutMulti = "ERR EXEC without MULTI";
inline constexpr const char* kDiscardWithoutMulti = "ERR DISCARD without MULTI";
inline constexpr const char* kExecAbort =
    "EXECABORT Transaction discarded because of previous errors.";
inline constexpr const char* kMonitorDenyBlocking =
    "ERR MONITOR isn't allowed for DENY BLOCKING client";
// Followed by the refused EXEC's own error, without its leading "-".
inline constexpr const char* kExecAbortPrefix = "EXECABORT Transaction discarded because of: ";

// CLUSTER SLOT-STATS (Valkey 8.0.1's wording).
inline constexpr const char* kClusterDisabled = "ERR This instance has cluster support disabled";
inline constexpr const char* kInvalidSlot = "ERR Invalid or out of range slot";
inline constexpr const char* kSlotStatsMetric = "ERR Unrecognized sort metric for ORDERBY.";
inline constexpr const char* kSlotStatsLimit =
    "ERR Limit has to lie in between 1 and 16384 (maximum number of slots).";
inline constexpr const char* kSlotStatsRepeated =
    "ERR Multiple filters of the same type are disallowed.";

// CLUSTERSCAN (Valkey 9.1). Its documentation gives no texts; these hold the words Valkey's
// own tests match ("Invalid cursor", "Cursor slot mismatch", "SLOT option can only be
// specified once").
inline constexpr const char* kClusterScanCursor = "ERR Invalid cursor";
inline constexpr const char* kClusterScanSlotMismatch = "ERR Cursor slot mismatch";
inline constexpr const char* kScanSlotRepeated = "ERR SLOT option can only be specified once";

}  // namespace vireo::errors
