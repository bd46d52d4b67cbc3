#include "commands/key_finders.h"

#include <cstdint>
#include <string>
#include <unordered_map>

#include "common/numbers.h"

namespace vireo {
namespace {

using Args = std::vector<std::string_view>;

// `numkeys key [key ...]` with numkeys at args[at]: a positive count (zero where scripts
// allow it) that fits the arguments.
bool NumKeys(const Args& args, size_t at, std::vector<int>* out, bool allow_zero = false) {
  int64_t n;
  if (at >= args.size() || !ParseInt64(args[at], &n) || n < (allow_zero ? 0 : 1) ||
      static_cast<uint64_t>(n) > args.size() - at - 1) {
    return false;
  }
  for (int64_t i = 0; i < n; ++i) out->push_back(static_cast<int>(at + 1 + i));
  return true;
}

// ZUNIONSTORE and friends: destination, then numkeys keys.
bool StoreThenNumKeys(const Args& args, std::vector<int>* out) {
  out->push_back(1);
  return NumKeys(args, 2, out);
}

// XREAD / XREADGROUP: the keys are the first half of what follows STREAMS.
bool Streams(const Args& args, size_t from, std::vector<int>* out) {
  for (size_t i = from; i < args.size(); ++i) {
    if (!EqualsIgnoreCase(args[i], "streams")) continue;
    size_t rest = args.size() - i - 1;
    for (size_t k = 0; k < rest / 2; ++k) out->push_back(static_cast<int>(i + 1 + k));
    return rest > 0;
  }
  return false;
}

// SORT key [... STORE dest]: the last STORE wins, as it does when sorting.
bool Sort(const Args& args, std::vector<int>* out) {
  out->push_back(1);
  int store = 0;
  for (size_t i = 2; i + 1 < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "store")) store = static_cast<int>(i + 1);
    // Options with arguments: skip them so a pattern named "store" is not taken for it.
    if (EqualsIgnoreCase(args[i], "by") || EqualsIgnoreCase(args[i], "get")) ++i;
    else if (EqualsIgnoreCase(args[i], "limit")) i += 2;
  }
  if (store != 0) out->push_back(store);
  return true;
}

// GEORADIUS(BYMEMBER) key ... [STORE dest] [STOREDIST dest].
bool GeoRadius(const Args& args, std::vector<int>* out) {
  out->push_back(1);
  int store = 0;
  for (size_t i = 2; i + 1 < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "store") || EqualsIgnoreCase(args[i], "storedist")) {
      store = static_cast<int>(i + 1);
      ++i;
    }
  }
  if (store != 0) out->push_back(store);
  return true;
}

// MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH pw] [AUTH2 user pw] [KEYS k ...]:
// the key argument, or (when it is empty) what follows the last KEYS.
bool Migrate(const Args& args, std::vector<int>* out) {
  if (args.size() < 6) return false;
  if (!args[3].empty()) {
    out->push_back(3);
    return true;
  }
  for (size_t i = args.size() - 1; i >= 6; --i) {
    if (!EqualsIgnoreCase(args[i], "keys")) continue;
    for (size_t k = i + 1; k < args.size(); ++k) out->push_back(static_cast<int>(k));
    return true;
  }
  return true;
}

using Finder = bool (*)(const Args&, std::vector<int>*);

bool Script(const Args& a, std::vector<int>* o) { return NumKeys(a, 2, o, true); }

const std::unordered_map<std::string, Finder>& Finders() {
  static const std::unordered_map<std::string, Finder> finders = {
      {"lmpop", [](const Args& a, std::vector<int>* o) { return NumKeys(a, 1, o); }},
      {"zmpop", [](const Args& a, std::vector<int>* o) { return NumKeys(a, 1, o); }},
      {"sintercard", [](const Args& a, std::vector<int>* o) { return NumKeys(a, 1, o); }},
      {"zintercard", [](const Args& a, std::vector<int>* o) { return NumKeys(a, 1, o); }},
      {"zunion", [](const Args& a, std::vector<int>* o) { return NumKeys(a, 1, o); }},
      {"zinter", [](const Args& a, std::vector<int>* o) { return NumKeys(a, 1, o); }},
      {"zdiff", [](const Args& a, std::vector<int>* o) { return NumKeys(a, 1, o); }},
      {"blmpop", [](const Args& a, std::vector<int>* o) { return NumKeys(a, 2, o); }},
      {"bzmpop", [](const Args& a, std::vector<int>* o) { return NumKeys(a, 2, o); }},
      {"eval", Script},
      {"evalsha", Script},
      {"eval_ro", Script},
      {"evalsha_ro", Script},
      {"fcall", Script},
      {"fcall_ro", Script},
      {"zunionstore", StoreThenNumKeys},
      {"zinterstore", StoreThenNumKeys},
      {"zdiffstore", StoreThenNumKeys},
      {"xread", [](const Args& a, std::vector<int>* o) { return Streams(a, 1, o); }},
      {"xreadgroup", [](const Args& a, std::vector<int>* o) { return Streams(a, 4, o); }},
      {"sort", Sort},
      {"migrate", Migrate},
      {"sort_ro", [](const Args&, std::vector<int>* o) { o->push_back(1); return true; }},
      {"georadius", GeoRadius},
      {"georadiusbymember", GeoRadius},
  };
  return finders;
}

}  // namespace

bool FindMovableKeys(std::string_view name, const std::vector<std::string_view>& args,
                     std::vector<int>* out) {
  auto it = Finders().find(std::string(name));
  if (it == Finders().end()) return true;
  return it->second(args, out);
}

}  // namespace vireo
