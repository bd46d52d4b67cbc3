// DEBUG: introspection and test helpers (gated by enable-debug-command in the dispatcher).
#include <openssl/evp.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include "cluster/cluster.h"
#include "commands/context.h"
#include "commands/digest.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "commands/server_family.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/numbers.h"
#include "persistence/aof_loader.h"
#include "persistence/aof_writer.h"
#include "persistence/snapshot.h"
#include "server/server.h"
#include "store/value.h"

namespace vireo {
namespace {

ValueDigestFn g_value_digests[8] = {};

// SHA1 through one reused EVP context: OpenSSL 3's one-shot SHA1() fetches the algorithm and
// takes locks on every call, which dominates DEBUG DIGEST over millions of keys.
class Sha1 {
 public:
  Sha1() : md_(EVP_MD_fetch(nullptr, "SHA1", nullptr)), ctx_(EVP_MD_CTX_new()) {}
  ~Sha1() {
    EVP_MD_CTX_free(ctx_);
    EVP_MD_free(md_);
  }
  Sha1(const Sha1&) = delete;
  Sha1& operator=(const Sha1&) = delete;

  // out = SHA1(a || b)
  void Hash(std::string_view a, std::string_view b, unsigned char out[kDigestSize]) {
    EVP_DigestInit_ex2(ctx_, md_, nullptr);
    EVP_DigestUpdate(ctx_, a.data(), a.size());
    if (!b.empty()) EVP_DigestUpdate(ctx_, b.data(), b.size());
    EVP_DigestFinal_ex(ctx_, out, nullptr);
  }

 private:
  EVP_MD* md_;
  EVP_MD_CTX* ctx_;
};

Sha1& Hasher() {
  static thread_local Sha1 sha1;
  return sha1;
}

using Digest = unsigned char[kDigestSize];

std::string DigestHex(const unsigned char* d) {
  static const char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * kDigestSize);
  for (size_t i = 0; i < kDigestSize; ++i) {
    s += kHex[d[i] >> 4];
    s += kHex[d[i] & 15];
  }
  return s;
}

void DigestOfString(const Entry* e, unsigned char out[kDigestSize]) {
  char buf[32];
  Hasher().Hash(StringValue(e, buf), {}, out);
}

// Digest of what a key holds: its type, its value's content and its expiry time (not the key).
void ValueDigest(const Entry* e, unsigned char out[kDigestSize]) {
  memset(out, 0, kDigestSize);
  MixDigest(out, TypeName(e->type()));
  Digest value = {};
  ValueDigestFn fn = e->type() == ObjType::kString
                         ? DigestOfString
                         : g_value_digests[static_cast<size_t>(e->type())];
  if (fn != nullptr) fn(e, value);
  MixDigest(out, std::string_view(reinterpret_cast<const char*>(value), kDigestSize));
  if (e->expire_ms() != 0) MixDigest(out, "!expire!" + std::to_string(e->expire_ms()));
}

// Bytes the RDB format would take for a string (no LZF compression is assumed): small
// integers are stored as 1, 2 or 4 bytes, other strings with a 1/2/5/9-byte length prefix.
size_t RdbStringLength(std::string_view s) {
  int64_t v;
  if (s.size() <= 11 && ParseInt64(s, &v)) {
    if (v >= INT8_MIN && v <= INT8_MAX) return 2;
    if (v >= INT16_MIN && v <= INT16_MAX) return 3;
    if (v >= INT32_MIN && v <= INT32_MAX) return 5;
  }
  size_t prefix = s.size() < 64 ? 1 : s.size() < 16384 ? 2 : s.size() <= UINT32_MAX ? 5 : 9;
  return prefix + s.size();
}

// Parses a non-negative integer argument; false after replying Valkey's error.
bool PositiveArg(CommandContext& ctx, std::string_view arg, int64_t* out) {
  if (!ParseInt64(arg, out) || *out < 0) {
    ctx.reply.Error("ERR value is out of range, must be positive");
    return false;
  }
  return true;
}

// DEBUG OBJECT key
void DebugObject(CommandContext& ctx) {
  Entry* e = ctx.db->Find(ctx.arg(2));
  if (e == nullptr) {
    ctx.reply.Error(errors::kNoSuchKey);
    return;
  }
  size_t serialized = 0;
  if (e->type() == ObjType::kString) {
    char buf[32];
    serialized = RdbStringLength(StringValue(e, buf));
  }
  char line[256];
  snprintf(line, sizeof(line),
           "Value at:%p refcount:1 encoding:%s serializedlength:%zu lru:%u lru_seconds_idle:%llu",
           static_cast<void*>(e), EncodingName(e->encoding()), serialized, e->lru(),
           static_cast<unsigned long long>(LruIdleSeconds(e->lru())));
  ctx.reply.Simple(line);
}

// DEBUG POPULATE count [prefix] [size]
// Creates prefix:0 .. prefix:count-1 holding "value:N" (zero-padded or cut to size when size
// is given), skipping keys that exist. Used to fill a server fast for memory measurements.
void DebugPopulate(CommandContext& ctx) {
  int64_t count, size = 0;
  if (!PositiveArg(ctx, ctx.arg(2), &count)) return;
  std::string_view prefix = ctx.argc() > 3 ? ctx.arg(3) : "key";
  if (ctx.argc() > 4 && !PositiveArg(ctx, ctx.arg(4), &size)) return;
  std::string key(prefix);
  key += ':';
  const size_t key_base = key.size();
  std::string value = "value:";
  const size_t value_base = value.size();
  char digits[24];
  // Sized up front, as Valkey expands its table first: an empty keyspace skips the doublings,
  // and the figure read right after is not inflated by a rehash still holding two arrays.
  ctx.db->Reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    size_t n = FormatInt64To(digits, i);
    key.resize(key_base);
    key.append(digits, n);
    if (ctx.db->Find(key) != nullptr) continue;
    value.resize(value_base);
    value.append(digits, n);
    if (size > 0) value.resize(static_cast<size_t>(size), '\0');
    Entry* e = ctx.db->Add(key);
    SetStringValue(e, value);
    // Not a dataset change to persist or propagate (as in Valkey), but WATCH must see it.
    ctx.KeyModified(ctx.db, key, 0);
  }
  ctx.reply.Ok();
}

// DEBUG DIGEST
void DebugDigest(CommandContext& ctx) {
  Digest total = {};
  for (int i = 0; i < ctx.server.db_count(); ++i) {
    Db* db = ctx.server.db(i);
    if (db->Size() == 0) continue;
    Digest db_digest = {};
    bool any = false;
    db->ForEach([&](Entry* e) {
      Digest key_digest = {};
      MixDigest(key_digest, e->Key());
      Digest value;
      ValueDigest(e, value);
      MixDigest(key_digest, std::string_view(reinterpret_cast<const char*>(value), kDigestSize));
      for (size_t b = 0; b < kDigestSize; ++b) db_digest[b] ^= key_digest[b];
      any = true;
    });
    if (!any) continue;
    MixDigest(db_digest, "db" + std::to_string(i));
    for (size_t b = 0; b < kDigestSize; ++b) total[b] ^= db_digest[b];
  }
  ctx.reply.Simple(DigestHex(total));
}

// DEBUG DIGEST-VALUE [key ...]
void DebugDigestValue(CommandContext& ctx) {
  ctx.reply.Array(ctx.argc() - 2);
  for (size_t i = 2; i < ctx.argc(); ++i) {
    Digest d = {};
    Entry* e = ctx.db->Find(ctx.arg(i));
    if (e != nullptr) ValueDigest(e, d);
    ctx.reply.Simple(DigestHex(d));
  }
}

// DEBUG SLEEP seconds
void DebugSleep(CommandContext& ctx) {
  // strtod semantics, as Valkey: garbage sleeps 0 seconds.
  std::string arg(ctx.arg(2));
  double seconds = strtod(arg.c_str(), nullptr);
  if (seconds > 0) {
    auto us = static_cast<int64_t>(seconds * 1e6);
    timespec ts{static_cast<time_t>(us / 1000000), static_cast<long>((us % 1000000) * 1000)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
  }
  ctx.reply.Ok();
}

// DEBUG SET-ACTIVE-EXPIRE 0|1
void DebugSetActiveExpire(CommandContext& ctx) {
  ctx.server.config().active_expire_enabled = atoi(std::string(ctx.arg(2)).c_str()) != 0;
  ctx.reply.Ok();
}

// DEBUG SLOTMIGRATION PREVENT-PAUSE|PREVENT-FAILOVER 0|1: holds an atomic slot migration
// before its hand-off (Valkey 9's test hook), so tests can write while it streams.
void DebugSlotMigration(CommandContext& ctx) {
  Cluster* cluster = ctx.server.cluster();
  if (cluster == nullptr) {
    ctx.reply.Error(errors::kClusterDisabled);
    return;
  }
  const bool on = atoi(std::string(ctx.arg(3)).c_str()) != 0;
  if (EqualsIgnoreCase(ctx.arg(2), "prevent-pause")) {
    cluster->migrations().set_prevent_pause(on);
  } else if (EqualsIgnoreCase(ctx.arg(2), "prevent-failover")) {
    cluster->migrations().set_prevent_failover(on);
  } else {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  ctx.reply.Ok();
}

// DEBUG LOG message
void DebugLog(CommandContext& ctx) {
  LogWarning("DEBUG LOG: %s", std::string(ctx.arg(2)).c_str());
  ctx.reply.Ok();
}

// DEBUG ERROR message: replies message as an error, verbatim (client tests use it). Written
// raw, as Valkey does, so it stays out of the error statistics.
void DebugError(CommandContext& ctx) {
  std::string line = "-" + std::string(ctx.arg(2));
  for (char& ch : line) {
    if (ch == '\r' || ch == '\n') ch = ' ';
  }
  ctx.reply.Raw(line + "\r\n");
}

// DEBUG RELOAD: save the dataset, empty it, load the file back (RDB round trip).
void DebugReload(CommandContext& ctx) {
  std::string error;
  if (!ReloadSnapshot(ctx.server, &error)) {
    ctx.reply.Error("ERR Error trying to load the RDB dump, check server logs.");
    return;
  }
  ctx.reply.Ok();
}

// DEBUG LOADAOF: write out the AOF buffer, empty the dataset, load the AOF back.
void DebugLoadAof(CommandContext& ctx) {
  std::string error;
  if (!ReloadAof(ctx.server, &error)) {
    ctx.reply.Error("ERR Error loading the AOF, check server logs.");
    return;
  }
  ctx.reply.Ok();
}

// DEBUG AOF-FSYNC-DELAY <ms> (Vireo's): the AOF's background fsyncs start <ms> later, as on
// a disk that is behind.
void DebugAofFsyncDelay(CommandContext& ctx) {
  int64_t ms = 0;
  if (!ParseInt64(ctx.arg(2), &ms) || ms < 0 || ms > 600000) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  ctx.server.aof()->SetDebugFsyncDelay(static_cast<int>(ms));
  ctx.reply.Ok();
}

void DebugHelp(CommandContext& ctx) {
  ReplyHelp(ctx.reply, ctx.arg(0),
            {"DIGEST", "    Output a hex signature representing the current DB content.",
             "DIGEST-VALUE <key> [<key> ...]",
             "    Output a hex signature of the values of all the specified keys.",
             "ERROR <string>",
             "    Return a Redis protocol error with <string> as message. Useful for clients",
             "    unit tests to simulate Redis errors.", "LOG <message>",
             "    Write <message> to the server log.", "OBJECT <key>",
             "    Show low level info about `key` and associated value.",
             "POPULATE <count> [<prefix>] [<size>]",
             "    Create <count> string keys named key:<num>. If <prefix> is specified then",
             "    it is used instead of the 'key' prefix.", "SET-ACTIVE-EXPIRE <0|1>",
             "    Setting it to 0 disables expiring keys in background when they are not",
             "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
             "    default.", "SLEEP <seconds>",
             "    Stop the server for <seconds>. Decimals allowed."});
}

struct DebugSubcommand {
  const char* name;
  size_t min_argc, max_argc;  // counting DEBUG and the subcommand name
  void (*handler)(CommandContext&);
};

constexpr size_t kAny = SIZE_MAX;
constexpr DebugSubcommand kDebugSubcommands[] = {
    {"help", 2, 2, DebugHelp},
    {"object", 3, 3, DebugObject},
    {"populate", 3, 5, DebugPopulate},
    {"digest", 2, 2, DebugDigest},
    {"digest-value", 2, kAny, DebugDigestValue},
    {"sleep", 3, 3, DebugSleep},
    {"set-active-expire", 3, 3, DebugSetActiveExpire},
    {"log", 3, 3, DebugLog},
    {"slotmigration", 4, 4, DebugSlotMigration},
    {"error", 3, 3, DebugError},
    {"reload", 2, 2, DebugReload},
    {"loadaof", 2, 2, DebugLoadAof},
    {"aof-fsync-delay", 3, 3, DebugAofFsyncDelay},
};

// DEBUG subcommand [arg ...]
void CmdDebug(CommandContext& ctx) {
  std::string_view sub = ctx.arg(1);
  for (const DebugSubcommand& d : kDebugSubcommands) {
    if (EqualsIgnoreCase(sub, d.name) && ctx.argc() >= d.min_argc && ctx.argc() <= d.max_argc) {
      d.handler(ctx);
      return;
    }
  }
  ctx.reply.Error("ERR unknown subcommand or wrong number of arguments for '" +
                  std::string(sub) + "'. Try DEBUG HELP.");
}

}  // namespace

void RegisterValueDigest(ObjType type, ValueDigestFn fn) {
  g_value_digests[static_cast<size_t>(type)] = fn;
}

void MixDigest(unsigned char digest[kDigestSize], std::string_view bytes) {
  Hasher().Hash(std::string_view(reinterpret_cast<const char*>(digest), kDigestSize), bytes,
                digest);
}

void XorDigest(unsigned char digest[kDigestSize], std::string_view bytes) {
  Digest h;
  Hasher().Hash(bytes, {}, h);
  for (size_t i = 0; i < kDigestSize; ++i) digest[i] ^= h[i];
}

void RegisterDebugCommand(CommandTable& t) {
  t.Add({.name = "debug", .arity = -2,
         .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale | kCmdProtected,
         .acl = kAclAdmin | kAclSlow | kAclDangerous, .handler = CmdDebug, .group = "server",
         .summary = "A container for debugging commands.", .since = "1.0.0",
         .complexity = "Depends on subcommand."});
}

}  // namespace vireo
