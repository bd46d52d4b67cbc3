// Fuzzes the RDB reader: whole files (as at start-up, and as an AOF's RDB preamble) and
// DUMP payloads (RESTORE, FUNCTION RESTORE). Whatever loads is then read back and changed
// through commands, so a value the reader accepted but built wrong (a listpack whose lengths
// lie) is caught where it would crash a server later.
//
// Input: byte 0 picks the mode, the rest is the image.
//   0: a whole RDB file. Its checksum is verified unless it is 0, so seeds carry 0.
//   1: the same, read as the RDB preamble of an AOF (its length found while reading).
//   2: a DUMP payload body (type byte + value): the fuzzer appends the version and CRC64
//      footer, so RESTORE gets past the checksum to the value reader.
//   3: a payload as given (footer included), through RESTORE and FUNCTION RESTORE's reader.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/crc64.h"
#include "tests/fuzz/fuzz_server.h"
#include "persistence/rdb_format.h"
#include "persistence/rdb_reader.h"

namespace {

using vireo::Client;
using vireo::fuzz::Execute;

// The bulk strings of a flat array reply (KEYS *).
std::vector<std::string> BulkStrings(const std::string& reply) {
  std::vector<std::string> out;
  size_t pos = reply.find("\r\n");
  while (pos != std::string::npos && pos + 2 < reply.size() && reply[pos + 2] == '$') {
    size_t eol = reply.find("\r\n", pos + 2);
    if (eol == std::string::npos) break;
    size_t n = strtoull(reply.c_str() + pos + 3, nullptr, 10);
    if (eol + 2 + n > reply.size()) break;
    out.push_back(reply.substr(eol + 2, n));
    pos = eol + 2 + n;
  }
  return out;
}

// Reads every key back through the commands that walk a whole value, then changes it (which
// may convert its encoding) and dumps and restores it again.
void ReadBack(Client* c) {
  std::vector<std::string> keys = BulkStrings(Execute(c, {"keys", "*"}));
  if (keys.size() > 32) keys.resize(32);
  for (const std::string& key : keys) {
    std::string_view k = key;
    static const std::vector<std::vector<std::string_view>> kReads = {
        {"debug", "digest-value", ""}, {"object", "encoding", ""}, {"memory", "usage", ""},
        {"get", ""}, {"strlen", ""}, {"lrange", "", "0", "-1"}, {"lindex", "", "-1"},
        {"hgetall", ""}, {"hrandfield", "", "-5", "withvalues"}, {"hscan", "", "0"},
        {"smembers", ""}, {"srandmember", "", "-5"}, {"sismember", "", "a"},
        {"zrange", "", "0", "-1", "withscores"}, {"zrangebylex", "", "-", "+"},
        {"zrandmember", "", "-5", "withscores"}, {"zscore", "", "a"}, {"xrange", "", "-", "+"},
        {"xinfo", "stream", "", "full"}, {"xinfo", "groups", ""}, {"pfcount", ""},
        {"lpush", "", "x"}, {"rpop", ""}, {"hset", "", "f", "v"}, {"hdel", "", "f"},
        {"sadd", "", "a", "b"}, {"srem", "", "a"}, {"zadd", "", "1", "a"}, {"zrem", "", "a"},
        {"xadd", "", "*", "f", "v"}, {"xtrim", "", "maxlen", "2"}, {"pfadd", "", "e"},
        {"append", "", "x"}, {"debug", "digest-value", ""}};
    for (auto args : kReads) {
      for (auto& a : args) {
        if (a.empty()) a = k;
      }
      Execute(c, args);
    }
    std::vector<std::string> dump = BulkStrings("*1\r\n" + Execute(c, {"dump", k}));
    if (!dump.empty()) {
      Execute(c, {"restore", "restored", "0", dump[0], "replace"});
      Execute(c, {"debug", "digest-value", "restored"});
    }
  }
}

std::string Framed(std::string_view body) {
  std::string p(body);
  p.push_back(static_cast<char>(vireo::rdb::kMaxReadVersion));
  p.push_back('\0');
  uint64_t crc = vireo::Crc64(0, p.data(), p.size());
  for (int i = 0; i < 8; ++i) p.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vireo;
  if (size < 1) return 0;
  Server& server = fuzz::FuzzServer();
  fuzz::Reset();
  Client* client = fuzz::FuzzClient();
  const uint8_t mode = data[0] % 4;
  std::string_view image(reinterpret_cast<const char*>(data + 1), size - 1);
  if (mode <= 1) {
    std::vector<Db*> dbs;
    for (int i = 0; i < server.db_count(); ++i) dbs.push_back(server.db(i));
    RdbLoadStats stats;
    std::string error;
    size_t rdb_size = 0;
    LoadRdb(reinterpret_cast<const unsigned char*>(image.data()), image.size(), dbs,
            RdbLoadLimitsFrom(server.config()), NowMs(), &stats, &error,
            mode == 1 ? &rdb_size : nullptr);
    if (mode == 1 && error.empty() && rdb_size > image.size()) abort();
  } else {
    std::string payload = mode == 2 ? Framed(image) : std::string(image);
    if (mode == 2 && !VerifyDumpPayload(payload)) abort();
    Execute(client, {"restore", "k", "0", payload});
    std::vector<std::string> codes;
    std::string error;
    ReadFunctionsPayload(payload, &codes, &error);
  }
  ReadBack(client);
  return 0;
}
