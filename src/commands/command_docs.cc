#include "commands/command_docs.h"

#include <algorithm>
#include <cstring>

#include "common/numbers.h"
#include "protocol/reply_builder.h"

namespace vireo {

const KeySpec* CommandDocs::key_specs() const { return kKeySpecs + key_specs_begin; }

const CommandDocs* FindCommandDocs(std::string_view name) {
  const CommandDocs* end = kCommandDocs + kCommandDocsCount;
  const CommandDocs* it = std::lower_bound(
      kCommandDocs, end, name,
      [](const CommandDocs& d, std::string_view n) { return std::string_view(d.name) < n; });
  return it != end && it->name == name ? it : nullptr;
}

const char* KeySpecFlagName(int bit) {
  static const char* const kNames[] = {
      "RO",     "RW",     "OW",      "RM",         "access",        "update",
      "insert", "delete", "not_key", "incomplete", "variable_flags"};
  return bit >= 0 && bit < static_cast<int>(sizeof(kNames) / sizeof(kNames[0])) ? kNames[bit]
                                                                                : nullptr;
}

void ReplyKeySpecFlags(ReplyBuilder& reply, uint32_t flags) {
  reply.Set(static_cast<size_t>(__builtin_popcount(flags)));
  for (int i = 0; KeySpecFlagName(i) != nullptr; ++i) {
    if (flags & (1u << i)) reply.Simple(KeySpecFlagName(i));
  }
}

void ReplyKeySpecs(ReplyBuilder& reply, const CommandDocs& docs) {
  reply.Set(docs.key_specs_count);
  for (const KeySpec* s = docs.key_specs(); s != docs.key_specs() + docs.key_specs_count; ++s) {
    reply.Map(s->notes != nullptr ? 4 : 3);
    if (s->notes != nullptr) {
      reply.Bulk("notes");
      reply.Bulk(s->notes);
    }
    reply.Bulk("flags");
    ReplyKeySpecFlags(reply, s->flags);
    reply.Bulk("begin_search");
    reply.Map(2);
    reply.Bulk("type");
    switch (s->begin) {
      case KeySpec::kIndex:
        reply.Bulk("index");
        reply.Bulk("spec");
        reply.Map(1);
        reply.Bulk("index");
        reply.Integer(s->pos);
        break;
      case KeySpec::kKeyword:
        reply.Bulk("keyword");
        reply.Bulk("spec");
        reply.Map(2);
        reply.Bulk("keyword");
        reply.Bulk(s->keyword);
        reply.Bulk("startfrom");
        reply.Integer(s->startfrom);
        break;
      default:
        reply.Bulk("unknown");
        reply.Bulk("spec");
        reply.Map(0);
    }
    reply.Bulk("find_keys");
    reply.Map(2);
    reply.Bulk("type");
    switch (s->find) {
      case KeySpec::kRange:
        reply.Bulk("range");
        reply.Bulk("spec");
        reply.Map(3);
        reply.Bulk("lastkey");
        reply.Integer(s->lastkey);
        reply.Bulk("keystep");
        reply.Integer(s->keystep);
        reply.Bulk("limit");
        reply.Integer(s->limit);
        break;
      case KeySpec::kKeynum:
        reply.Bulk("keynum");
        reply.Bulk("spec");
        reply.Map(3);
        reply.Bulk("keynumidx");
        reply.Integer(s->keynumidx);
        reply.Bulk("firstkey");
        reply.Integer(s->firstkey);
        reply.Bulk("keystep");
        reply.Integer(s->keystep);
        break;
      default:
        reply.Bulk("unknown");
        reply.Bulk("spec");
        reply.Map(0);
    }
  }
}

void ReplyTips(ReplyBuilder& reply, const CommandDocs& docs) {
  std::string_view tips = docs.tips;
  reply.Set(tips.empty() ? 0 : std::count(tips.begin(), tips.end(), ' ') + 1);
  while (!tips.empty()) {
    size_t sp = std::min(tips.find(' '), tips.size());
    reply.Bulk(tips.substr(0, sp));
    tips.remove_prefix(std::min(sp + 1, tips.size()));
  }
}

namespace {

// Replays one value of the docs encoding (see CommandDocs::docs) and returns what follows it.
// The top-level map's size grows by extra_pairs.
const char* ReplayDocs(ReplyBuilder& reply, const char* p, size_t extra_pairs) {
  const char* end = std::strchr(p, '\n');
  std::string_view text(p + 1, static_cast<size_t>(end - p - 1));
  const char* next = end + 1;
  int64_t n = 0;
  switch (*p) {
    case '+':
      reply.Simple(text);
      return next;
    case '$':
      reply.Bulk(text);
      return next;
    case ':':
      ParseInt64(text, &n);
      reply.Integer(n);
      return next;
  }
  ParseInt64(text, &n);
  size_t items = static_cast<size_t>(n);
  if (*p == '%') {
    reply.Map(items + extra_pairs);
    items *= 2;
  } else if (*p == '~') {
    reply.Set(items);
  } else {
    reply.Array(items);
  }
  for (size_t i = 0; i < items; ++i) next = ReplayDocs(reply, next, 0);
  return next;
}

}  // namespace

void ReplyDocs(ReplyBuilder& reply, const CommandDocs& docs, size_t extra_pairs) {
  ReplayDocs(reply, docs.docs, extra_pairs);
}

}  // namespace vireo
