// Which permission (%R / %W) each key of a command needs, from Redis 7.0's key specs:
// read for ACCESS, write for INSERT / DELETE / UPDATE. Generated from redis-server 7.0's
// COMMAND INFO; each entry starts at an argument index or after a keyword.
#include "acl/key_access.h"

#include <unordered_map>

#include "acl/selector.h"
#include "common/numbers.h"

namespace vireo {
namespace {

struct KeySpecAccess {
  int begin;            // first key's index, or 0 for a keyword spec
  const char* keyword;  // the keyword the spec's keys follow ("" for an index spec)
  uint8_t perms;
};

const std::unordered_map<std::string_view, std::vector<KeySpecAccess>>& Table() {
  static const std::unordered_map<std::string_view, std::vector<KeySpecAccess>> kTable = {
      {"append", {{1, "", 2}}},
      {"bitcount", {{1, "", 1}}},
      {"bitfield", {{1, "", 3}}},
      {"bitfield_ro", {{1, "", 1}}},
      {"bitop", {{2, "", 2}, {3, "", 1}}},
      {"bitpos", {{1, "", 1}}},
      {"blmove", {{1, "", 3}, {2, "", 2}}},
      {"blmpop", {{2, "", 3}}},
      {"blpop", {{1, "", 3}}},
      {"brpop", {{1, "", 3}}},
      {"brpoplpush", {{1, "", 3}, {2, "", 2}}},
      {"bzmpop", {{2, "", 3}}},
      {"bzpopmax", {{1, "", 3}}},
      {"bzpopmin", {{1, "", 3}}},
      {"copy", {{1, "", 1}, {2, "", 2}}},
      {"decr", {{1, "", 3}}},
      {"decrby", {{1, "", 3}}},
      {"del", {{1, "", 2}}},
      {"dump", {{1, "", 1}}},
      {"eval", {{2, "", 3}}},
      {"eval_ro", {{2, "", 1}}},
      {"evalsha", {{2, "", 3}}},
      {"evalsha_ro", {{2, "", 1}}},
      {"exists", {{1, "", 0}}},
      {"expire", {{1, "", 2}}},
      {"expireat", {{1, "", 2}}},
      {"expiretime", {{1, "", 1}}},
      {"fcall", {{2, "", 3}}},
      {"fcall_ro", {{2, "", 1}}},
      {"geoadd", {{1, "", 2}}},
      {"geodist", {{1, "", 1}}},
      {"geohash", {{1, "", 1}}},
      {"geopos", {{1, "", 1}}},
      {"georadius", {{1, "", 1}, {0, "store", 2}, {0, "storedist", 2}}},
      {"georadius_ro", {{1, "", 1}}},
      {"georadiusbymember", {{1, "", 1}, {0, "store", 2}, {0, "storedist", 2}}},
      {"georadiusbymember_ro", {{1, "", 1}}},
      {"geosearch", {{1, "", 1}}},
      {"geosearchstore", {{1, "", 2}, {2, "", 1}}},
      {"get", {{1, "", 1}}},
      {"getbit", {{1, "", 1}}},
      {"getdel", {{1, "", 3}}},
      {"getex", {{1, "", 3}}},
      {"getrange", {{1, "", 1}}},
      {"getset", {{1, "", 3}}},
      {"hdel", {{1, "", 2}}},
      {"hexists", {{1, "", 0}}},
      {"hget", {{1, "", 1}}},
      {"hgetall", {{1, "", 1}}},
      {"hincrby", {{1, "", 3}}},
      {"hincrbyfloat", {{1, "", 3}}},
      {"hkeys", {{1, "", 1}}},
      {"hlen", {{1, "", 0}}},
      {"hmget", {{1, "", 1}}},
      {"hmset", {{1, "", 2}}},
      {"hrandfield", {{1, "", 1}}},
      {"hscan", {{1, "", 1}}},
      {"hset", {{1, "", 2}}},
      {"hsetnx", {{1, "", 2}}},
      {"hstrlen", {{1, "", 0}}},
      {"hvals", {{1, "", 1}}},
      {"incr", {{1, "", 3}}},
      {"incrby", {{1, "", 3}}},
      {"incrbyfloat", {{1, "", 3}}},
      {"lcs", {{1, "", 1}}},
      {"lindex", {{1, "", 1}}},
      {"linsert", {{1, "", 2}}},
      {"llen", {{1, "", 0}}},
      {"lmove", {{1, "", 3}, {2, "", 2}}},
      {"lmpop", {{1, "", 3}}},
      {"lpop", {{1, "", 3}}},
      {"lpos", {{1, "", 1}}},
      {"lpush", {{1, "", 2}}},
      {"lpushx", {{1, "", 2}}},
      {"lrange", {{1, "", 1}}},
      {"lrem", {{1, "", 2}}},
      {"lset", {{1, "", 2}}},
      {"ltrim", {{1, "", 2}}},
      {"memory|usage", {{2, "", 0}}},
      {"mget", {{1, "", 1}}},
      {"migrate", {{3, "", 3}, {0, "keys", 3}}},
      {"move", {{1, "", 3}}},
      {"mset", {{1, "", 2}}},
      {"msetnx", {{1, "", 2}}},
      {"object|encoding", {{2, "", 0}}},
      {"object|freq", {{2, "", 0}}},
      {"object|idletime", {{2, "", 0}}},
      {"object|refcount", {{2, "", 0}}},
      {"persist", {{1, "", 2}}},
      {"pexpire", {{1, "", 2}}},
      {"pexpireat", {{1, "", 2}}},
      {"pexpiretime", {{1, "", 1}}},
      {"pfadd", {{1, "", 2}}},
      {"pfcount", {{1, "", 1}}},
      {"pfdebug", {{2, "", 1}}},
      {"pfmerge", {{1, "", 3}, {2, "", 1}}},
      {"psetex", {{1, "", 2}}},
      {"pttl", {{1, "", 1}}},
      {"rename", {{1, "", 3}, {2, "", 2}}},
      {"renamenx", {{1, "", 3}, {2, "", 2}}},
      {"restore", {{1, "", 2}}},
      {"restore-asking", {{1, "", 2}}},
      {"rpop", {{1, "", 3}}},
      {"rpoplpush", {{1, "", 3}, {2, "", 2}}},
      {"rpush", {{1, "", 2}}},
      {"rpushx", {{1, "", 2}}},
      {"sadd", {{1, "", 2}}},
      {"scard", {{1, "", 0}}},
      {"sdiff", {{1, "", 1}}},
      {"sdiffstore", {{1, "", 2}, {2, "", 1}}},
      {"set", {{1, "", 3}}},
      {"setbit", {{1, "", 3}}},
      {"setex", {{1, "", 2}}},
      {"setnx", {{1, "", 2}}},
      {"setrange", {{1, "", 2}}},
      {"sinter", {{1, "", 1}}},
      {"sintercard", {{1, "", 1}}},
      {"sinterstore", {{1, "", 2}, {2, "", 1}}},
      {"sismember", {{1, "", 0}}},
      {"smembers", {{1, "", 1}}},
      {"smismember", {{1, "", 1}}},
      {"smove", {{1, "", 3}, {2, "", 2}}},
      {"sort", {{1, "", 1}, {0, "store", 2}}},
      {"sort_ro", {{1, "", 1}}},
      {"spop", {{1, "", 3}}},
      {"spublish", {{1, "", 0}}},
      {"srandmember", {{1, "", 1}}},
      {"srem", {{1, "", 2}}},
      {"sscan", {{1, "", 1}}},
      {"ssubscribe", {{1, "", 0}}},
      {"strlen", {{1, "", 0}}},
      {"substr", {{1, "", 1}}},
      {"sunion", {{1, "", 1}}},
      {"sunionstore", {{1, "", 2}, {2, "", 1}}},
      {"sunsubscribe", {{1, "", 0}}},
      {"touch", {{1, "", 0}}},
      {"ttl", {{1, "", 1}}},
      {"type", {{1, "", 0}}},
      {"unlink", {{1, "", 2}}},
      {"watch", {{1, "", 0}}},
      {"xack", {{1, "", 2}}},
      {"xadd", {{1, "", 2}}},
      {"xautoclaim", {{1, "", 2}}},
      {"xclaim", {{1, "", 2}}},
      {"xdel", {{1, "", 2}}},
      {"xgroup|create", {{2, "", 2}}},
      {"xgroup|createconsumer", {{2, "", 2}}},
      {"xgroup|delconsumer", {{2, "", 2}}},
      {"xgroup|destroy", {{2, "", 2}}},
      {"xgroup|setid", {{2, "", 2}}},
      {"xinfo|consumers", {{2, "", 1}}},
      {"xinfo|groups", {{2, "", 1}}},
      {"xinfo|stream", {{2, "", 1}}},
      {"xlen", {{1, "", 0}}},
      {"xpending", {{1, "", 1}}},
      {"xrange", {{1, "", 1}}},
      {"xread", {{0, "streams", 1}}},
      {"xreadgroup", {{0, "streams", 1}}},
      {"xrevrange", {{1, "", 1}}},
      {"xsetid", {{1, "", 2}}},
      {"xtrim", {{1, "", 2}}},
      {"zadd", {{1, "", 2}}},
      {"zcard", {{1, "", 0}}},
      {"zcount", {{1, "", 1}}},
      {"zdiff", {{1, "", 1}}},
      {"zdiffstore", {{1, "", 2}, {2, "", 1}}},
      {"zincrby", {{1, "", 3}}},
      {"zinter", {{1, "", 1}}},
      {"zintercard", {{1, "", 1}}},
      {"zinterstore", {{1, "", 2}, {2, "", 1}}},
      {"zlexcount", {{1, "", 1}}},
      {"zmpop", {{1, "", 3}}},
      {"zmscore", {{1, "", 1}}},
      {"zpopmax", {{1, "", 3}}},
      {"zpopmin", {{1, "", 3}}},
      {"zrandmember", {{1, "", 1}}},
      {"zrange", {{1, "", 1}}},
      {"zrangebylex", {{1, "", 1}}},
      {"zrangebyscore", {{1, "", 1}}},
      {"zrangestore", {{1, "", 2}, {2, "", 1}}},
      {"zrank", {{1, "", 1}}},
      {"zrem", {{1, "", 2}}},
      {"zremrangebylex", {{1, "", 2}}},
      {"zremrangebyrank", {{1, "", 2}}},
      {"zremrangebyscore", {{1, "", 2}}},
      {"zrevrange", {{1, "", 1}}},
      {"zrevrangebylex", {{1, "", 1}}},
      {"zrevrangebyscore", {{1, "", 1}}},
      {"zrevrank", {{1, "", 1}}},
      {"zscan", {{1, "", 1}}},
      {"zscore", {{1, "", 1}}},
      {"zunion", {{1, "", 1}}},
      {"zunionstore", {{1, "", 2}, {2, "", 1}}},
  };
  return kTable;
}

}  // namespace

uint8_t KeyAccessNeeded(const CommandSpec& spec, const std::vector<std::string_view>& args,
                        int pos) {
  // Key specs with variable flags: the arguments decide.
  if (spec.name == "set") {
    for (size_t i = 3; i < args.size(); ++i) {
      if (EqualsIgnoreCase(args[i], "get")) return kAclPermRead | kAclPermWrite;
    }
    return kAclPermWrite;
  }
  if (spec.name == "bitfield") {
    for (size_t i = 2; i < args.size(); ++i) {
      if (EqualsIgnoreCase(args[i], "set") || EqualsIgnoreCase(args[i], "incrby")) {
        return kAclPermRead | kAclPermWrite;
      }
    }
    return kAclPermRead;
  }
  // The table entry of each command, by CommandSpec::id, looked up once.
  static std::vector<const std::vector<KeySpecAccess>*> by_id;
  static std::vector<bool> looked_up;
  if (spec.id >= looked_up.size()) {
    by_id.resize(spec.id + 1, nullptr);
    looked_up.resize(spec.id + 1, false);
  }
  if (!looked_up[spec.id]) {
    auto found = Table().find(spec.name);
    by_id[spec.id] = found == Table().end() ? nullptr : &found->second;
    looked_up[spec.id] = true;
  }
  const std::vector<KeySpecAccess>* specs = by_id[spec.id];
  if (specs == nullptr) return (spec.flags & kCmdWrite) ? kAclPermWrite : kAclPermRead;
  const KeySpecAccess* best = nullptr;
  for (const KeySpecAccess& k : *specs) {
    if (k.keyword[0] != '\0') {
      if (pos >= 1 && static_cast<size_t>(pos) < args.size() + 1 &&
          EqualsIgnoreCase(args[static_cast<size_t>(pos) - 1], k.keyword)) {
        return k.perms;
      }
    } else if (k.begin <= pos && (best == nullptr || k.begin >= best->begin)) {
      best = &k;
    }
  }
  if (best == nullptr) {
    // Keys after a keyword but not right after it (XREAD STREAMS a b ...).
    for (const KeySpecAccess& k : *specs) {
      if (k.keyword[0] != '\0') return k.perms;
    }
    return kAclPermRead;
  }
  return best->perms;
}

}  // namespace vireo
