// MIGRATE: moves keys to another server as DUMP payloads restored there (RESTORE, or
// RESTORE-ASKING in a cluster, so the target accepts keys of a slot it is importing). Like
// Valkey it blocks the server for the transfer, bounded by the timeout.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "cluster/cluster.h"
#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "net/socket.h"
#include "persistence/rdb_writer.h"
#include "protocol/command_encoder.h"
#include "server/server.h"

namespace vireo {
namespace {

// A blocking conversation with the target, every step bounded by the timeout.
class TargetLink {
 public:
  TargetLink(const std::string& host, int port, int64_t timeout_ms) : timeout_ms_(timeout_ms) {
    std::string err;
    fd_ = ConnectTcp(host, port, &err);
    if (fd_ >= 0 && !Wait(POLLOUT)) Close();
    if (fd_ >= 0) {
      int so_error = 0;
      socklen_t len = sizeof(so_error);
      getsockopt(fd_, SOL_SOCKET, SO_ERROR, &so_error, &len);
      // A refused connection shows at the first write, as in Valkey.
      if (so_error != 0) {
        Close();
        refused_ = true;
      }
    }
  }
  ~TargetLink() { Close(); }
  bool ok() const { return fd_ >= 0; }
  bool refused() const { return refused_; }

  bool Send(const std::vector<std::string_view>& args) {
    const std::string out = RespCommand(args);
    size_t off = 0;
    while (off < out.size()) {
      if (!Wait(POLLOUT)) return false;
      ssize_t n = send(fd_, out.data() + off, out.size() - off, MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }

  // One reply line ("+OK", "-ERR ...", ":1"); false on I/O error or timeout.
  bool ReadLine(std::string* line) {
    for (;;) {
      size_t eol = in_.find("\r\n");
      if (eol != std::string::npos) {
        *line = in_.substr(0, eol);
        in_.erase(0, eol + 2);
        return true;
      }
      if (!Wait(POLLIN)) return false;
      char buf[4096];
      ssize_t n = read(fd_, buf, sizeof(buf));
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n <= 0) return false;
      in_.append(buf, static_cast<size_t>(n));
    }
  }

 private:
  bool Wait(short events) {
    pollfd p{fd_, events, 0};
    int r;
    do {
      r = poll(&p, 1, static_cast<int>(timeout_ms_));
    } while (r < 0 && errno == EINTR);
    return r > 0;
  }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

  int fd_ = -1;
  bool refused_ = false;
  int64_t timeout_ms_;
  std::string in_;
};

constexpr const char* kIoError = "IOERR error or timeout reading to target instance";

void CmdMigrate(CommandContext& ctx) {
  // MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH pw]
  //         [AUTH2 user pw] [KEYS key ...]
  bool copy = false, replace = false;
  std::string user, password;
  size_t first_key = 3, key_count = 1;
  for (size_t i = 6; i < ctx.argc(); ++i) {
    std::string_view a = ctx.arg(i);
    bool more = i + 1 < ctx.argc();
    if (EqualsIgnoreCase(a, "copy")) {
      copy = true;
    } else if (EqualsIgnoreCase(a, "replace")) {
      replace = true;
    } else if (EqualsIgnoreCase(a, "auth") && more) {
      password = std::string(ctx.arg(++i));
    } else if (EqualsIgnoreCase(a, "auth2") && i + 2 < ctx.argc()) {
      user = std::string(ctx.arg(++i));
      password = std::string(ctx.arg(++i));
    } else if (EqualsIgnoreCase(a, "keys")) {
      if (!ctx.arg(3).empty()) {
        ctx.reply.Error("ERR When using MIGRATE KEYS option, the key argument must be set to "
                        "the empty string");
        return;
      }
      first_key = i + 1;
      key_count = ctx.argc() - i - 1;
      break;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  int64_t port, db, timeout;
  // The port is read leniently, as Valkey's atoi: a bad one fails at the connection.
  if (!ParseInt64(ctx.arg(2), &port) || port < 0 || port > 65535) port = 0;
  if (!ParseInt64(ctx.arg(4), &db) || !ParseInt64(ctx.arg(5), &timeout)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (timeout <= 0) timeout = 1000;
  // Only keys that exist travel; none at all is NOKEY.
  std::vector<std::string_view> keys;
  std::vector<const Entry*> entries;
  for (size_t i = first_key; i < first_key + key_count; ++i) {
    const Entry* e = ctx.db->Find(ctx.arg(i));
    if (e == nullptr) continue;
    keys.push_back(ctx.arg(i));
    entries.push_back(e);
  }
  if (keys.empty()) {
    ctx.reply.Simple("NOKEY");
    return;
  }
  TargetLink link(std::string(ctx.arg(1)), static_cast<int>(port), timeout);
  if (!link.ok()) {
    ctx.reply.Error(link.refused() ? "IOERR error or timeout writing to target instance"
                                   : "IOERR error or timeout connecting to the client");
    return;
  }
  std::string line;
  if (!password.empty()) {
    bool sent = user.empty() ? link.Send({"AUTH", password}) : link.Send({"AUTH", user, password});
    if (!sent || !link.ReadLine(&line)) {
      ctx.reply.Error(kIoError);
      return;
    }
    if (line[0] == '-') {
      ctx.reply.Error("ERR Target instance replied with error: " + line.substr(1));
      return;
    }
  }
  const std::string dbs = std::to_string(db);
  if (!link.Send({"SELECT", dbs}) || !link.ReadLine(&line)) {
    ctx.reply.Error(kIoError);
    return;
  }
  if (line[0] == '-') {
    ctx.reply.Error("ERR Target instance replied with error: " + line.substr(1));
    return;
  }
  const char* restore = ctx.server.cluster() != nullptr ? "RESTORE-ASKING" : "RESTORE";
  const RdbWriteOptions options = RdbWriteOptionsFrom(ctx.server.config());
  for (size_t k = 0; k < keys.size(); ++k) {
    const Entry* e = entries[k];
    int64_t ttl = 0;
    if (e->expire_ms() != 0) ttl = std::max<int64_t>(e->expire_ms() - CommandTimeMs(), 1);
    const std::string payload = DumpPayload(e, options);
    const std::string ttls = std::to_string(ttl);
    std::vector<std::string_view> cmd = {restore, keys[k], ttls, payload};
    if (replace) cmd.push_back("REPLACE");
    if (!link.Send(cmd)) {
      ctx.reply.Error(kIoError);
      return;
    }
  }
  std::string error;
  std::vector<std::string> moved;
  for (size_t k = 0; k < keys.size(); ++k) {
    if (!link.ReadLine(&line)) {
      ctx.reply.Error(kIoError);
      return;
    }
    if (line[0] == '-') {
      if (error.empty()) error = line.substr(1);
    } else {
      moved.emplace_back(keys[k]);
    }
  }
  // Keys the target took leave this server unless COPY (and travel as DELs to replicas).
  if (!copy) {
    for (const std::string& key : moved) {
      if (ctx.db->Delete(key)) {
        ctx.KeyModified(ctx.db, key);
        ctx.AlsoPropagate(ctx.db, {"DEL", key});
      }
    }
    ctx.NoPropagate();
  }
  if (!error.empty()) {
    ctx.reply.Error("ERR Target instance replied with error: " + error);
    return;
  }
  ctx.reply.Ok();
}

}  // namespace

void RegisterMigrateCommand(CommandTable& t) {
  t.Add({.name = "migrate", .arity = -6, .flags = kCmdWrite | kCmdMovableKeys,
         .acl = kAclKeyspace | kAclWrite | kAclSlow | kAclDangerous, .first_key = 3,
         .last_key = 3, .key_step = 1, .handler = CmdMigrate, .group = "generic",
         .summary = "Atomically transfers a key from one Redis instance to another.",
         .since = "2.6.0",
         .complexity = "This command actually executes a DUMP+DEL in the source instance, and a "
                       "RESTORE in the target instance. See the pages of these commands for time "
                       "complexity. Also an O(N) data transfer between the two instances is "
                       "performed."});
}

}  // namespace vireo
