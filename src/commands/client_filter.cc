#include "commands/client_filter.h"

#include <algorithm>

#include "cluster/slot_migration.h"
#include "commands/errors.h"
#include "common/numbers.h"
#include "server/client.h"

namespace vireo {
namespace {

// FLAGS letters Valkey accepts; u (unblocked) and I (import source) name states Vireo's
// clients never keep between commands, so they match no one.
constexpr std::string_view kFilterFlags = "OSMPxbtRBdcuAUreTIN";

bool IsFilterName(std::string_view s) {
  for (std::string_view name : {"id", "type", "addr", "laddr", "user", "skipme", "maxage", "name",
                                "idle", "flags", "lib-name", "lib-ver", "db", "capa", "ip"}) {
    if (EqualsIgnoreCase(s, name)) return true;
  }
  return false;
}

// A positive number of seconds (MAXAGE, IDLE) with Valkey's two errors.
std::string ParseSeconds(std::string_view value, const char* what, int64_t* out) {
  if (!ParseInt64(value, out)) return std::string("ERR ") + what + " is not an integer or out of range";
  if (*out <= 0) return std::string("ERR ") + what + " should be greater than 0";
  return {};
}

// The peer address "ip:port" or "[ipv6]:port" is from ip, on a real port (a Unix socket's
// "path:0" is not).
bool PeerIpIs(std::string_view addr, std::string_view ip) {
  if (!addr.empty() && addr.front() == '[') addr.remove_prefix(1);
  if (addr.substr(0, ip.size()) != ip) return false;
  addr.remove_prefix(ip.size());
  if (!addr.empty() && addr.front() == ']') addr.remove_prefix(1);
  return addr.size() >= 2 && addr[0] == ':' && addr[1] != '0';
}

}  // namespace

std::string_view ClientType(const Client& c) {
  if (c.flags & kClientMaster) return "master";
  if ((c.flags & kClientReplica) && !(c.flags & kClientMonitor)) return "replica";
  return (c.flags & kClientPubSub) ? "pubsub" : "normal";
}

std::string_view ParseClientType(std::string_view s) {
  if (EqualsIgnoreCase(s, "normal")) return "normal";
  if (EqualsIgnoreCase(s, "master") || EqualsIgnoreCase(s, "primary")) return "master";
  if (EqualsIgnoreCase(s, "replica") || EqualsIgnoreCase(s, "slave")) return "replica";
  if (EqualsIgnoreCase(s, "pubsub")) return "pubsub";
  return {};
}

std::string ClientFlagLetters(const Client& c) {
  std::string f;
  if (c.flags & kClientReplica) f += 'S';
  if (c.flags & kClientMaster) f += 'M';
  if (c.flags & kClientMonitor) f += 'O';
  if (c.flags & kClientPubSub) f += 'P';
  if (c.flags & kClientMulti) f += 'x';
  if (c.flags & (kClientBlocked | kClientPaused)) f += 'b';
  if (c.flags & kClientTracking) f += 't';
  if (c.flags & kClientTrackingBrokenRedir) f += 'R';
  if (c.flags & kClientTrackingBcast) f += 'B';
  if (c.flags & kClientDirtyCas) f += 'd';
  if (c.flags & kClientCloseAfterReply) f += 'c';
  if (c.flags & kClientCloseAsap) f += 'A';
  if (c.flags & kClientUnixSocket) f += 'U';
  if (c.flags & kClientReadOnlyReplica) f += 'r';
  if (c.flags & kClientNoEvict) f += 'e';
  if (c.flags & kClientNoTouch) f += 'T';
  // Valkey 9: an atomic slot migration's link, E on the exporting side, i on the importing.
  if (c.migration != nullptr) f += c.migration->kind == SlotMigrationJob::Kind::kExport ? 'E' : 'i';
  if (f.empty()) f = "N";
  return f;
}

std::string ParseClientFilter(const std::vector<std::string_view>& args, size_t first,
                              const ClientFilterScope& scope, ClientFilter* out) {
  size_t i = first;
  while (i < args.size()) {
    std::string_view opt = args[i];
    if (EqualsIgnoreCase(opt, "id")) {
      // Valkey 9: any number of ids, up to the next argument that is not one.
      out->has_ids = true;
      for (++i; i < args.size(); ++i) {
        int64_t id;
        if (!ParseInt64(args[i], &id)) {
          if (IsFilterName(args[i])) break;
          return std::string(scope.bad_id);  // as 8.0.1, whose ID took numbers only
        }
        if (id < 1) {
          if (!scope.nonpositive_ids_match_none) return std::string(scope.bad_id);
          continue;
        }
        out->ids.push_back(static_cast<uint64_t>(id));
      }
      continue;
    }
    if (i + 1 >= args.size()) return std::string(errors::kSyntax);
    std::string_view value = args[i + 1];
    std::string error;
    if (EqualsIgnoreCase(opt, "type")) {
      out->type = ParseClientType(value);
      if (out->type.empty()) return "ERR Unknown client type '" + std::string(value) + "'";
    } else if (EqualsIgnoreCase(opt, "addr")) {
      out->addr = std::string(value);
    } else if (EqualsIgnoreCase(opt, "laddr")) {
      out->laddr = std::string(value);
    } else if (EqualsIgnoreCase(opt, "user")) {
      if (!scope.user_exists || !scope.user_exists(value)) {
        return "ERR No such user '" + std::string(value) + "'";
      }
      out->user = std::string(value);
    } else if (EqualsIgnoreCase(opt, "skipme")) {
      if (EqualsIgnoreCase(value, "yes")) {
        out->skipme = true;
      } else if (EqualsIgnoreCase(value, "no")) {
        out->skipme = false;
      } else {
        return std::string(errors::kSyntax);
      }
    } else if (EqualsIgnoreCase(opt, "maxage")) {
      error = ParseSeconds(value, "maxage", &out->max_age);
    } else if (EqualsIgnoreCase(opt, "idle")) {
      error = ParseSeconds(value, "idle", &out->idle);
    } else if (EqualsIgnoreCase(opt, "flags")) {
      if (value.find_first_not_of(kFilterFlags) != std::string_view::npos) {
        return "ERR Unknown flags found in the provided filter: " + std::string(value);
      }
      out->flags = std::string(value);
    } else if (EqualsIgnoreCase(opt, "name")) {
      out->name = std::string(value);
    } else if (EqualsIgnoreCase(opt, "lib-name")) {
      out->lib_name = std::string(value);
    } else if (EqualsIgnoreCase(opt, "lib-ver")) {
      out->lib_ver = std::string(value);
    } else if (EqualsIgnoreCase(opt, "db")) {
      int64_t db;
      if (!ParseInt64(value, &db) || db < INT32_MIN || db > INT32_MAX) {
        return "ERR DB is not an integer or out of range";
      }
      if (db < 0 || db >= scope.db_count) {
        return "ERR DB number should be between 0 and " + std::to_string(scope.db_count - 1);
      }
      out->db = static_cast<int>(db);
    } else if (EqualsIgnoreCase(opt, "capa")) {
      if (value.find_first_not_of('r') != std::string_view::npos) {
        return "ERR Unknown capa found in the provided filter: " + std::string(value);
      }
      out->capa = std::string(value);
    } else if (EqualsIgnoreCase(opt, "ip")) {
      out->ip = std::string(value);
    } else {
      return std::string(errors::kSyntax);
    }
    if (!error.empty()) return error;
    i += 2;
  }
  return {};
}

bool ClientMatches(const ClientFilter& f, const Client& c, const Client* caller, int64_t now_ms) {
  if (f.has_ids && std::find(f.ids.begin(), f.ids.end(), c.id) == f.ids.end()) return false;
  if (!f.type.empty() && ClientType(c) != f.type) return false;
  if (f.addr && c.addr != *f.addr) return false;
  if (f.laddr && c.laddr != *f.laddr) return false;
  if (f.user && c.UserName() != *f.user) return false;
  if (f.skipme && &c == caller) return false;
  if (f.max_age > 0 && (now_ms - c.ctime_ms) / 1000 < f.max_age) return false;
  if (f.idle > 0 && (now_ms - c.last_interaction_ms) / 1000 < f.idle) return false;
  if (!f.flags.empty()) {
    // Each letter must be among those CLIENT LIST shows; N alone asks for a client with none.
    const std::string shown = ClientFlagLetters(c);
    for (char letter : f.flags) {
      if (shown.find(letter) == std::string::npos) return false;
    }
  }
  // A name or library never set matches no filter, not even an empty one (as Valkey).
  if (f.name && (c.name.empty() || c.name != *f.name)) return false;
  if (f.lib_name && (c.lib_name.empty() || c.lib_name != *f.lib_name)) return false;
  if (f.lib_ver && (c.lib_ver.empty() || c.lib_ver != *f.lib_ver)) return false;
  if (f.db >= 0 && c.db_index != f.db) return false;
  if (!f.capa.empty() && !(c.flags & kClientCapaRedirect)) return false;
  if (f.ip && !PeerIpIs(c.addr, *f.ip)) return false;
  return true;
}

}  // namespace vireo
