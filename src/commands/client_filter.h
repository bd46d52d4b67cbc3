// Which clients CLIENT LIST and CLIENT KILL select: the filters of Valkey 9.0 (ID, TYPE, USER,
// ADDR, LADDR, SKIPME, MAXAGE of 8.1; NAME, IDLE, FLAGS, LIB-NAME, LIB-VER, DB, CAPA, IP of
// 9.0), all of which must match (logical AND). Parsing knows nothing of connections.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vireo {

struct Client;

struct ClientFilter {
  std::vector<uint64_t> ids;  // ID: any of these (only when has_ids)
  bool has_ids = false;
  std::string_view type;  // "normal", "master", "replica", "pubsub"; empty: any
  std::optional<std::string> addr, laddr, user, name, lib_name, lib_ver, ip;
  bool skipme = false;  // KILL's default is yes, LIST's no
  int64_t max_age = 0;  // seconds; 0: none
  int64_t idle = 0;     // seconds; 0: none
  std::string flags;    // FLAGS letters, each required
  std::string capa;     // CAPA letters ("r": redirect), each required
  int db = -1;          // DB; -1: any
};

// What the parser needs to know of the server.
struct ClientFilterScope {
  int db_count = 16;
  std::string_view bad_id = "ERR Invalid client ID";  // an ID that is not a positive number
  bool nonpositive_ids_match_none = false;  // LIST (as 8.0.1): ID 0 is no error, just nobody
  std::function<bool(std::string_view name)> user_exists;
};

// Parses args[first..] into *out. Returns "" or the error reply (Valkey's texts).
std::string ParseClientFilter(const std::vector<std::string_view>& args, size_t first,
                              const ClientFilterScope& scope, ClientFilter* out);

// True when c passes every filter; caller is the client running the command (SKIPME).
bool ClientMatches(const ClientFilter& f, const Client& c, const Client* caller, int64_t now_ms);

// The client's class for TYPE filters, in Valkey's precedence.
std::string_view ClientType(const Client& c);
// A TYPE argument normalised ("slave" is "replica", "primary" is "master"); empty if unknown.
std::string_view ParseClientType(std::string_view s);
// The letters of CLIENT LIST's flags field, in Valkey's order; "N" when none applies.
std::string ClientFlagLetters(const Client& c);

}  // namespace vireo
