#include "commands/key_finders.h"

#include <algorithm>
#include <cstdint>

#include "commands/command_docs.h"
#include "common/numbers.h"

namespace vireo {
namespace {

using Args = std::vector<std::string_view>;

// Valkey's finders compare arguments as C strings: an argument ends at its first NUL byte.
bool ArgIs(std::string_view arg, std::string_view word) {
  return EqualsIgnoreCase(arg.substr(0, arg.find('\0')), word);
}

// C's atoi, as Valkey's finders read counts: leading spaces, a sign, digits up to the first
// other byte; strtol's saturation at the long range, then the narrowing to int.
int CAtoi(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) ++i;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  uint64_t v = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
    if (v > limit) {
      v = limit;
      for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      }
      break;
    }
  }
  const uint64_t bits = negative ? ~v + 1 : v;  // two's complement of the long value
  return static_cast<int>(static_cast<uint32_t>(bits));
}

// `[dest] numkeys key [key ...]`: numkeys at count_at, keys from first_at, then the
// destination (if any) last; no flags. Nothing when the count does not fit.
int NumKeysThenDest(const Args& args, int dest_at, int count_at, int first_at,
                    std::vector<KeyRef>* keys) {
  int argc = static_cast<int>(args.size());
  if (count_at >= argc) return 0;
  int num = CAtoi(args[static_cast<size_t>(count_at)]);
  if (num < 1 || num > argc - first_at) return 0;
  for (int i = 0; i < num; ++i) keys->push_back({first_at + i, 0});
  if (dest_at != 0) keys->push_back({dest_at, 0});
  return static_cast<int>(keys->size());
}

int KeysOfFirstCount(const Args& a, std::vector<KeyRef>* k) {
  return NumKeysThenDest(a, 0, 1, 2, k);
}
int KeysOfSecondCount(const Args& a, std::vector<KeyRef>* k) {
  return NumKeysThenDest(a, 0, 2, 3, k);
}
int KeysOfStoreCount(const Args& a, std::vector<KeyRef>* k) {
  return NumKeysThenDest(a, 1, 2, 3, k);
}

// SORT_RO key ...: the BY / GET patterns name keys the arguments do not.
int KeysOfSortRo(const Args&, std::vector<KeyRef>* keys) {
  keys->push_back({1, kKeyRO | kKeyAccess});
  return 1;
}

// SORT key ... [STORE dest]: the last STORE wins, as when sorting. LIMIT, GET and BY are
// skipped with their arguments so a pattern named "store" is not taken for the option.
int KeysOfSort(const Args& args, std::vector<KeyRef>* keys) {
  keys->push_back({1, kKeyRO | kKeyAccess});
  int store = 0;
  for (size_t i = 2; i < args.size(); ++i) {
    if (ArgIs(args[i], "limit")) {
      i += 2;
    } else if (ArgIs(args[i], "store") && i + 1 < args.size()) {
      store = static_cast<int>(i + 1);
    } else if (ArgIs(args[i], "get") || ArgIs(args[i], "by")) {
      i += 1;
    }
  }
  if (store != 0) keys->push_back({store, kKeyOW | kKeyUpdate});
  return static_cast<int>(keys->size());
}

// MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH pw] [AUTH2 user pw] [KEYS k ...]:
// the key argument, or what follows KEYS (none when both are given: a syntax error).
int KeysOfMigrate(const Args& args, std::vector<KeyRef>* keys) {
  size_t first = 3, num = 1;
  for (size_t i = 6; i < args.size(); ++i) {
    if (ArgIs(args[i], "keys")) {
      if (!args[3].empty()) {
        num = 0;
      } else {
        first = i + 1;
        num = args.size() - first;
      }
      break;
    }
    if (ArgIs(args[i], "auth")) {
      i += 1;
    } else if (ArgIs(args[i], "auth2")) {
      i += 2;
    }
  }
  for (size_t i = 0; i < num; ++i) {
    keys->push_back({static_cast<int>(first + i), kKeyRW | kKeyAccess | kKeyDelete});
  }
  return static_cast<int>(num);
}

// GEORADIUS(BYMEMBER) key ... [STORE dest | STOREDIST dest]: the later option wins.
int KeysOfGeoRadius(const Args& args, std::vector<KeyRef>* keys) {
  keys->push_back({1, 0});
  int stored = 0;
  for (size_t i = 5; i < args.size(); ++i) {
    if ((ArgIs(args[i], "store") || ArgIs(args[i], "storedist")) && i + 1 < args.size()) {
      stored = static_cast<int>(++i);
    }
  }
  if (stored != 0) keys->push_back({stored, 0});
  return static_cast<int>(keys->size());
}

// XREAD / XREADGROUP [BLOCK ms] [COUNT n] [GROUP g c] [NOACK] STREAMS key ... id ...: the
// first half of what follows STREAMS; nothing when the options or the halves are wrong.
int KeysOfStreams(const Args& args, std::vector<KeyRef>* keys) {
  size_t streams = 0;
  for (size_t i = 1; i < args.size(); ++i) {
    if (ArgIs(args[i], "block") || ArgIs(args[i], "count")) {
      i += 1;
    } else if (ArgIs(args[i], "group")) {
      i += 2;
    } else if (ArgIs(args[i], "noack")) {
      continue;
    } else {
      if (ArgIs(args[i], "streams")) streams = i;
      break;
    }
  }
  size_t rest = streams == 0 ? 0 : args.size() - streams - 1;
  if (rest == 0 || rest % 2 != 0) return 0;
  for (size_t k = 0; k < rest / 2; ++k) keys->push_back({static_cast<int>(streams + 1 + k), 0});
  return static_cast<int>(rest / 2);
}

// SET key value [... GET ...]: GET reads the old value too.
int KeysOfSet(const Args& args, std::vector<KeyRef>* keys) {
  uint32_t flags = kKeyOW | kKeyUpdate;
  for (size_t i = 3; i < args.size(); ++i) {
    if (ArgIs(args[i], "get")) {
      flags = kKeyRW | kKeyAccess | kKeyUpdate;
      break;
    }
  }
  keys->push_back({1, flags});
  return 1;
}

// BITFIELD key [GET ...] [SET ...] [INCRBY ...] [OVERFLOW ...]: read-only while only GET (and
// OVERFLOW) come, with their arguments, before anything else.
int KeysOfBitfield(const Args& args, std::vector<KeyRef>* keys) {
  bool readonly = true;
  for (size_t i = 2; i < args.size(); ++i) {
    size_t remaining = args.size() - i - 1;
    if (ArgIs(args[i], "get") && remaining >= 2) {
      i += 2;
    } else if (ArgIs(args[i], "overflow") && remaining >= 1) {
      i += 1;
    } else {
      readonly = false;  // SET / INCRBY, or a syntax error: not read-only
      break;
    }
  }
  keys->push_back({1, readonly ? kKeyRO | kKeyAccess : kKeyRW | kKeyAccess | kKeyUpdate});
  return 1;
}

struct NamedFinder {
  const char* name;
  KeyFinder finder;
};

// Valkey 8.0.1's commands with a getkeys_proc.
// clang-format off
constexpr NamedFinder kFinders[] = {
    {"bitfield", KeysOfBitfield},           {"blmpop", KeysOfSecondCount},
    {"bzmpop", KeysOfSecondCount},          {"eval", KeysOfSecondCount},
    {"eval_ro", KeysOfSecondCount},         {"evalsha", KeysOfSecondCount},
    {"evalsha_ro", KeysOfSecondCount},      {"fcall", KeysOfSecondCount},
    {"fcall_ro", KeysOfSecondCount},        {"georadius", KeysOfGeoRadius},
    {"georadiusbymember", KeysOfGeoRadius}, {"lmpop", KeysOfFirstCount},
    {"migrate", KeysOfMigrate},             {"set", KeysOfSet},
    {"sintercard", KeysOfFirstCount},       {"sort", KeysOfSort},
    {"sort_ro", KeysOfSortRo},              {"xread", KeysOfStreams},
    {"xreadgroup", KeysOfStreams},          {"zdiff", KeysOfFirstCount},
    {"zdiffstore", KeysOfStoreCount},       {"zinter", KeysOfFirstCount},
    {"zintercard", KeysOfFirstCount},       {"zinterstore", KeysOfStoreCount},
    {"zmpop", KeysOfFirstCount},            {"zunion", KeysOfFirstCount},
    {"zunionstore", KeysOfStoreCount},
};
// clang-format on

// The first argument a key spec's keys start at, 0 when its keyword is absent, -1 when the
// spec cannot be applied.
int BeginSearch(const KeySpec& s, const Args& args) {
  const int argc = static_cast<int>(args.size());
  if (s.begin == KeySpec::kIndex) return s.pos;
  if (s.begin != KeySpec::kKeyword) return -1;
  // Forwards from startfrom to the last argument but one, or backwards from argc+startfrom
  // down to the second argument; the keys follow the keyword.
  const bool forwards = s.startfrom > 0;
  const int from = forwards ? s.startfrom : argc + s.startfrom;
  const int to = forwards ? argc - 1 : 1;
  for (int i = from; i != to; i += forwards ? 1 : -1) {
    if (i >= argc || i < 1) break;
    if (ArgIs(args[static_cast<size_t>(i)], s.keyword)) return i + 1;
  }
  return 0;
}

// Valkey's getKeysUsingKeySpecs: the keys of every spec, or -1 (and no keys) when one of the
// specs cannot be applied to these arguments or is incomplete.
int KeysFromSpecs(const CommandDocs& docs, const Args& args, std::vector<KeyRef>* keys) {
  const int argc = static_cast<int>(args.size());
  for (const KeySpec* s = docs.key_specs(); s != docs.key_specs() + docs.key_specs_count; ++s) {
    if (s->flags & kKeyNotKey) continue;
    int first = BeginSearch(*s, args);
    if (first == 0) continue;  // the keyword is not there: no keys from this spec
    int last = 0;
    if (first < 0) {
      last = -1;
    } else if (s->find == KeySpec::kRange) {
      if (s->lastkey >= 0) {
        last = first + s->lastkey;
      } else if (s->limit == 0) {
        last = argc + s->lastkey;
      } else {
        last = first + ((argc - first) / s->limit + s->lastkey);
      }
    } else if (s->find == KeySpec::kKeynum) {
      // The count is read as an int64 and used as an int, as Valkey does (2^32 + 1 is 1).
      int64_t numkeys = 0;
      const int at = first + s->keynumidx;
      if (at >= argc || !ParseInt64(args[static_cast<size_t>(at)], &numkeys) || numkeys < 0) {
        last = -1;
      } else {
        first += s->firstkey;
        // numkeys keys keystep apart (MSETEX's key value pairs; every 8.0.1 spec has step 1).
        const int64_t span = int64_t{static_cast<int32_t>(static_cast<uint64_t>(numkeys))} *
                             (s->keystep > 0 ? s->keystep : 1);
        int64_t end = int64_t{first} + span - 1;
        last = end >= argc ? argc : static_cast<int>(std::max<int64_t>(end, -1));
      }
    } else {
      last = -1;
    }
    if (first < 0 || last < first || last >= argc || first >= argc) {
      keys->clear();
      return -1;
    }
    const int step = s->keystep > 0 ? s->keystep : 1;
    for (int i = first; i <= last; i += step) keys->push_back({i, s->flags});
    if (s->flags & kKeyIncomplete) {
      keys->clear();
      return -1;
    }
  }
  return static_cast<int>(keys->size());
}

// Without key specs (a command the generated table lacks): the legacy range, without flags.
int KeysFromRange(const CommandSpec& spec, const Args& args, std::vector<KeyRef>* keys) {
  if (spec.first_key <= 0) return 0;
  const int argc = static_cast<int>(args.size());
  const int last = spec.last_key >= 0 ? spec.last_key : argc + spec.last_key;
  const int step = spec.key_step > 0 ? spec.key_step : 1;
  for (int i = spec.first_key; i <= last; i += step) {
    if (i >= argc) {
      keys->clear();
      return 0;
    }
    keys->push_back({i, 0});
  }
  return static_cast<int>(keys->size());
}

}  // namespace

int CommandKeys(const CommandSpec& spec, const Args& args, std::vector<KeyRef>* keys) {
  keys->clear();
  // Valkey checks the arity first; the finders count on it.
  const int argc = static_cast<int>(args.size());
  if (spec.arity > 0 ? argc != spec.arity : argc < -spec.arity) return 0;
  if (spec.docs == nullptr) {
    return spec.key_finder != nullptr ? spec.key_finder(args, keys)
                                      : KeysFromRange(spec, args, keys);
  }
  // The key specs when some name keys and none has flags that depend on the arguments; the
  // command's own finder when they do, or when they cannot be applied.
  bool real_keys = false, variable_flags = false;
  for (const KeySpec* s = spec.docs->key_specs();
       s != spec.docs->key_specs() + spec.docs->key_specs_count; ++s) {
    real_keys |= !(s->flags & kKeyNotKey);
    variable_flags |= (s->flags & kKeyVariableFlags) != 0;
  }
  if (real_keys && !variable_flags) {
    int n = KeysFromSpecs(*spec.docs, args, keys);
    if (n >= 0) return n;
  }
  return spec.key_finder != nullptr ? spec.key_finder(args, keys) : 0;
}

bool CommandHasKeys(const CommandSpec& spec) {
  if (spec.key_finder != nullptr) return true;
  if (spec.docs == nullptr) return spec.first_key > 0;
  for (const KeySpec* s = spec.docs->key_specs();
       s != spec.docs->key_specs() + spec.docs->key_specs_count; ++s) {
    if (!(s->flags & kKeyNotKey)) return true;
  }
  return false;
}

KeyFinder FindKeyFinder(std::string_view name) {
  for (const NamedFinder& f : kFinders) {
    if (name == f.name) return f.finder;
  }
  return nullptr;
}

}  // namespace vireo
