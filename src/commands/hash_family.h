// Helpers shared by the hash command files (hash_commands.cc, hash_expire_commands.cc).
#pragma once

#include <string_view>

#include "commands/command_table.h"
#include "commands/context.h"
#include "store/hash_value.h"

namespace vireo::hash_cmd {

// hash-max-listpack-entries / -value as configured now (CONFIG SET applies to new writes).
hash::Limits LimitsOf(const CommandContext& ctx);

// Finds key for a hash command. Returns false after replying WRONGTYPE when key holds another
// type; otherwise *out is the entry, or nullptr when the key is missing. Fields whose TTL has
// passed are purged first, and a hash left empty by that is deleted (reads as missing).
// for_write skips the hit/miss statistics, as Valkey's lookupKeyWrite.
bool FindHash(CommandContext& ctx, std::string_view key, bool for_write, Entry** out);
// Adds key as a new empty hash.
Entry* AddHash(CommandContext& ctx, std::string_view key);
// Deletes key when its hash is empty; returns true if it did.
bool DeleteIfEmpty(CommandContext& ctx, Entry* e, std::string_view key);
// After n fields of key were removed because their TTL passed: counts them, fires "hexpired"
// (then "del" if the hash went with them, returning true) and invalidates WATCHes.
bool FieldsExpired(CommandContext& ctx, Entry* e, std::string_view key, size_t n);

// Replies a field or value as a bulk string.
inline void ReplyItem(ReplyBuilder& reply, const hash::Item& item) {
  if (item.IsInt()) {
    reply.BulkInt(item.ival);
  } else {
    reply.Bulk(std::string_view(reinterpret_cast<const char*>(item.str), item.len));
  }
}

// "ERR wrong number of arguments for '<command>' command".
void ReplyArityError(CommandContext& ctx);

// The field-expiry commands (HEXPIRE ... HSETEX), from hash_expire_commands.cc.
void RegisterHashExpireCommands(CommandTable& t);

}  // namespace vireo::hash_cmd
