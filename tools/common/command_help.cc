#include "common/command_help.h"

#include <strings.h>

#include <algorithm>
#include <cstdio>
#include <set>

namespace vireo::tools {
namespace {

bool IsText(const Reply& r) {
  return r.type == Reply::Type::kString || r.type == Reply::Type::kStatus ||
         r.type == Reply::Type::kVerbatim;
}

// A field of a docs map (flat key/value list); null when absent.
const Reply* Field(const Reply& map, const char* key) {
  if (map.type != Reply::Type::kMap && map.type != Reply::Type::kArray) return nullptr;
  for (size_t i = 0; i + 1 < map.elements.size(); i += 2) {
    if (IsText(map.elements[i]) && map.elements[i].str == key) return &map.elements[i + 1];
  }
  return nullptr;
}

std::string TextField(const Reply& map, const char* key) {
  const Reply* r = Field(map, key);
  return r != nullptr && IsText(*r) ? r->str : std::string();
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string JoinArguments(const Reply& arguments, const char* separator);

// One argument's text: "[token name [token name ...]]" shaped by its flags, as redis-cli does.
std::string FormatArgument(const Reply& arg) {
  if (arg.type != Reply::Type::kMap && arg.type != Reply::Type::kArray) return "";
  const std::string name = TextField(arg, "name");
  const std::string type = TextField(arg, "type");
  std::string token = TextField(arg, "token");
  bool optional = false, multiple = false, multiple_token = false;
  if (const Reply* flags = Field(arg, "flags")) {
    for (const Reply& flag : flags->elements) {
      if (flag.str == "optional") optional = true;
      if (flag.str == "multiple") multiple = true;
      if (flag.str == "multiple_token") multiple_token = true;
    }
  }
  std::string repeat;
  if (type == "key" || type == "string" || type == "integer" || type == "double" ||
      type == "pattern" || type == "unix-time" || type == "token") {
    repeat = name;
  } else if (type == "oneof" || type == "block") {
    if (const Reply* nested = Field(arg, "arguments")) {
      repeat = JoinArguments(*nested, type == "oneof" ? "|" : " ");
    }
  }
  if (!token.empty() && type != "pure-token") token += " ";
  std::string out;
  if (optional) out += "[";
  out += token + repeat;
  if (multiple) {
    out += " [";
    if (multiple_token) out += token;
    out += repeat + " ...]";
  }
  if (optional) out += "]";
  return out;
}

std::string JoinArguments(const Reply& arguments, const char* separator) {
  std::string out;
  for (size_t i = 0; i < arguments.elements.size(); ++i) {
    if (i > 0) out += separator;
    out += FormatArgument(arguments.elements[i]);
  }
  return out;
}

void AppendCommandHelp(std::string* out, const std::string& name, const std::string& params,
                       const std::string& summary, const std::string& since,
                       const std::string* group) {
  out->append("\r\n  \x1b[1m").append(name).append("\x1b[0m \x1b[90m").append(params);
  out->append("\x1b[0m\r\n");
  out->append("  \x1b[33msummary:\x1b[0m ").append(summary).append("\r\n");
  if (!since.empty()) out->append("  \x1b[33msince:\x1b[0m ").append(since).append("\r\n");
  if (group != nullptr) out->append("  \x1b[33mgroup:\x1b[0m ").append(*group).append("\r\n");
}

}  // namespace

std::string FormatArguments(const Reply& arguments) { return JoinArguments(arguments, " "); }

std::string GenericHelp(std::string_view tool, std::string_view version) {
  char buf[1024];
  snprintf(buf, sizeof(buf),
           "%.*s %.*s\n"
           "To get help about Valkey commands type:\n"
           "      \"help @<group>\" to get a list of commands in <group>\n"
           "      \"help <command>\" for help on <command>\n"
           "      \"help <tab>\" to get a list of possible help topics\n"
           "      \"quit\" to exit\n",
           static_cast<int>(tool.size()), tool.data(), static_cast<int>(version.size()),
           version.data());
  return buf;
}

void HelpTable::AddCommand(const std::string& name, const Reply& doc) {
  Entry e;
  // Sub-commands come as "config|get".
  size_t start = 0;
  for (;;) {
    size_t bar = name.find('|', start);
    e.words.push_back(Upper(name.substr(start, bar - start)));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  for (size_t i = 0; i < e.words.size(); ++i) e.full += (i ? " " : "") + e.words[i];
  e.summary = TextField(doc, "summary");
  e.since = TextField(doc, "since");
  e.group = TextField(doc, "group");
  if (const Reply* args = Field(doc, "arguments")) e.params = FormatArguments(*args);
  entries_.push_back(std::move(e));
  if (const Reply* subs = Field(doc, "subcommands")) {
    for (size_t i = 0; i + 1 < subs->elements.size(); i += 2) {
      if (IsText(subs->elements[i])) AddCommand(subs->elements[i].str, subs->elements[i + 1]);
    }
  }
}

bool HelpTable::Load(const Reply& docs) {
  entries_.clear();
  loaded_ = false;
  if (docs.type != Reply::Type::kMap && docs.type != Reply::Type::kArray) return false;
  for (size_t i = 0; i + 1 < docs.elements.size(); i += 2) {
    if (IsText(docs.elements[i])) AddCommand(docs.elements[i].str, docs.elements[i + 1]);
  }
  std::set<std::string> groups;
  for (const Entry& e : entries_) {
    if (!e.group.empty()) groups.insert(e.group);
  }
  for (const std::string& g : groups) {
    Entry e;
    e.full = "@" + g;
    e.words = {e.full};
    e.is_group = true;
    entries_.push_back(std::move(e));
  }
  std::sort(entries_.begin(), entries_.end(),
            [](const Entry& a, const Entry& b) { return a.full < b.full; });
  loaded_ = true;
  return true;
}

std::string HelpTable::Format(const std::vector<std::string>& args) const {
  std::string out;
  if (args.empty()) return "";
  const bool by_group = args[0][0] == '@';
  for (const Entry& e : entries_) {
    if (e.is_group) continue;
    if (by_group) {
      if (strcasecmp(args[0].c_str() + 1, e.group.c_str()) == 0) {
        AppendCommandHelp(&out, e.full, e.params, e.summary, e.since, nullptr);
      }
      continue;
    }
    if (args.size() > e.words.size()) continue;
    bool match = true;
    for (size_t j = 0; j < args.size() && match; ++j) {
      match = strcasecmp(args[j].c_str(), e.words[j].c_str()) == 0;
    }
    if (match) AppendCommandHelp(&out, e.full, e.params, e.summary, e.since, &e.group);
  }
  out += "\r\n";
  return out;
}

std::vector<std::string> HelpTable::Complete(const std::string& line) const {
  std::vector<std::string> out;
  size_t start = 0;
  bool with_groups = false;
  if (strncasecmp(line.c_str(), "help ", 5) == 0) {
    start = 5;
    while (start < line.size() && isspace(static_cast<unsigned char>(line[start]))) ++start;
    with_groups = true;
  }
  const std::string typed = line.substr(start);
  for (const Entry& e : entries_) {
    if (e.is_group && !with_groups) continue;
    if (strncasecmp(typed.c_str(), e.full.c_str(), typed.size()) == 0) {
      out.push_back(line.substr(0, start) + e.full);
    }
  }
  return out;
}

}  // namespace vireo::tools
