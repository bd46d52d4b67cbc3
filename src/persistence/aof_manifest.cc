#include "persistence/aof_manifest.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/numbers.h"
#include "common/split_args.h"
#include "persistence/file_io.h"

namespace vireo {
namespace {

// Valkey refuses manifest lines longer than this.
constexpr size_t kMaxLine = 1024;

bool NeedsQuoting(std::string_view s) {
  if (s.empty()) return true;
  for (unsigned char ch : s) {
    if (ch <= ' ' || ch >= 127 || ch == '"' || ch == '\'' || ch == '\\') return true;
  }
  return false;
}

void AppendLine(std::string* out, const AofFileInfo& f) {
  *out += "file ";
  *out += NeedsQuoting(f.name) ? QuoteArg(f.name) : f.name;
  *out += " seq ";
  *out += std::to_string(f.seq);
  *out += " type ";
  *out += f.type;
  *out += '\n';
}

}  // namespace

bool ParseAofManifest(std::string_view text, AofManifest* out, std::string* error) {
  AofManifest m;
  int64_t last_incr = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.size() > kMaxLine) {
      *error = "The AOF manifest file contains too long line";
      return false;
    }
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.remove_suffix(1);
    }
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> words;
    if (!SplitQuotedArgs(line, &words) || words.size() < 6 || words.size() % 2 != 0) {
      *error = "Invalid AOF manifest file format";
      return false;
    }
    AofFileInfo f;
    bool has_name = false, has_seq = false, has_type = false;
    for (size_t i = 0; i < words.size(); i += 2) {
      const std::string& k = words[i];
      const std::string& v = words[i + 1];
      if (k == "file") {
        f.name = v;
        has_name = true;
      } else if (k == "seq") {
        if (!ParseInt64(v, &f.seq) || f.seq < 0) {
          *error = "Invalid AOF manifest file format";
          return false;
        }
        has_seq = true;
      } else if (k == "type") {
        if (v.size() != 1) {
          *error = "Unknown AOF file type";
          return false;
        }
        f.type = v[0];
        has_type = true;
      }
      // Unknown keys are skipped, so later versions' additions load.
    }
    if (!has_name || !has_seq || !has_type || f.name.empty() ||
        f.name.find('/') != std::string::npos) {
      *error = "Invalid AOF manifest file format";
      return false;
    }
    if (f.type == 'b') {
      if (m.base.has_value()) {
        *error = "Found duplicate base file information";
        return false;
      }
      m.base_seq = f.seq;
      m.base = std::move(f);
    } else if (f.type == 'h') {
      m.history.push_back(std::move(f));
    } else if (f.type == 'i') {
      if (f.seq <= last_incr) {
        *error = "Found a non-monotonic sequence number";
        return false;
      }
      last_incr = f.seq;
      m.incr_seq = f.seq;
      m.incrs.push_back(std::move(f));
    } else {
      *error = "Unknown AOF file type";
      return false;
    }
  }
  if (!m.base.has_value() && m.incrs.empty()) {
    *error = "Found an empty AOF manifest";
    return false;
  }
  *out = std::move(m);
  return true;
}

std::string FormatAofManifest(const AofManifest& m) {
  std::string out;
  if (m.base.has_value()) AppendLine(&out, *m.base);
  for (const AofFileInfo& f : m.history) AppendLine(&out, f);
  for (const AofFileInfo& f : m.incrs) AppendLine(&out, f);
  return out;
}

std::string AofManifestName(std::string_view appendfilename) {
  return std::string(appendfilename) + ".manifest";
}

std::string AofBaseName(std::string_view appendfilename, int64_t seq, bool rdb) {
  return std::string(appendfilename) + "." + std::to_string(seq) +
         (rdb ? ".base.rdb" : ".base.aof");
}

std::string AofIncrName(std::string_view appendfilename, int64_t seq) {
  return std::string(appendfilename) + "." + std::to_string(seq) + ".incr.aof";
}

std::string AofTempIncrName(std::string_view appendfilename) {
  return "temp-" + std::string(appendfilename) + ".incr";
}

std::string AofNewBase(AofManifest* m, std::string_view appendfilename, bool rdb) {
  if (m->base.has_value()) {
    m->base->type = 'h';
    m->history.push_back(std::move(*m->base));
  }
  AofFileInfo f;
  f.seq = ++m->base_seq;
  f.name = AofBaseName(appendfilename, f.seq, rdb);
  f.type = 'b';
  m->base = f;
  return f.name;
}

std::string AofNewIncr(AofManifest* m, std::string_view appendfilename) {
  AofFileInfo f;
  f.seq = ++m->incr_seq;
  f.name = AofIncrName(appendfilename, f.seq);
  f.type = 'i';
  m->incrs.push_back(f);
  return f.name;
}

void AofIncrsToHistory(AofManifest* m, bool keep_last) {
  size_t n = m->incrs.size();
  size_t move = keep_last && n > 0 ? n - 1 : n;
  for (size_t i = 0; i < move; ++i) {
    m->incrs[i].type = 'h';
    m->history.push_back(std::move(m->incrs[i]));
  }
  m->incrs.erase(m->incrs.begin(), m->incrs.begin() + static_cast<ptrdiff_t>(move));
}

bool PersistAofManifest(const std::string& dir, std::string_view appendfilename,
                        const AofManifest& m, std::string* error) {
  const std::string path = dir + "/" + AofManifestName(appendfilename);
  std::string why;
  if (!WriteFileAtomically(path, FormatAofManifest(m), &why)) {
    *error = "Error writing the AOF manifest file " + path + ": " + why;
    return false;
  }
  return true;
}

}  // namespace vireo
