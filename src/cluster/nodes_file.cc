#include "cluster/nodes_file.h"

#include <sstream>

#include "common/numbers.h"

namespace vireo {
namespace {

struct FlagName {
  uint32_t flag;
  const char* name;
};
// Valkey's order in CLUSTER NODES.
constexpr FlagName kFlagNames[] = {
    {kNodeMyself, "myself"},     {kNodeMaster, "master"},        {kNodeReplica, "slave"},
    {kNodePfail, "fail?"},       {kNodeFail, "fail"},            {kNodeHandshake, "handshake"},
    {kNodeNoAddr, "noaddr"},     {kNodeNoFailover, "nofailover"},
};

bool ParseSlotRange(const std::string& word, int* first, int* last) {
  size_t dash = word.find('-');
  int64_t a, b;
  if (dash == std::string::npos) {
    if (!ParseInt64(word, &a)) return false;
    b = a;
  } else if (!ParseInt64(std::string_view(word).substr(0, dash), &a) ||
             !ParseInt64(std::string_view(word).substr(dash + 1), &b)) {
    return false;
  }
  if (a < 0 || b >= kClusterSlots || a > b) return false;
  *first = static_cast<int>(a);
  *last = static_cast<int>(b);
  return true;
}

}  // namespace

std::string NodeFlagsText(uint32_t flags) {
  std::string out;
  for (const FlagName& f : kFlagNames) {
    if (!(flags & f.flag)) continue;
    if (!out.empty()) out += ',';
    out += f.name;
  }
  return out.empty() ? "noflags" : out;
}

bool ParseNodeFlags(const std::string& text, uint32_t* flags) {
  *flags = 0;
  std::stringstream in(text);
  std::string word;
  while (std::getline(in, word, ',')) {
    if (word == "noflags") continue;
    bool known = false;
    for (const FlagName& f : kFlagNames) {
      if (word == f.name) {
        *flags |= f.flag;
        known = true;
      }
    }
    if (!known) return false;
  }
  return true;
}

void AppendSlotRanges(const std::bitset<kClusterSlots>& slots, std::string* out) {
  for (int i = 0; i < kClusterSlots; ++i) {
    if (!slots[i]) continue;
    int j = i;
    while (j + 1 < kClusterSlots && slots[j + 1]) ++j;
    *out += ' ';
    *out += std::to_string(i);
    if (j > i) {
      *out += '-';
      *out += std::to_string(j);
    }
    i = j;
  }
}

std::string NodeLine(const ClusterNode& node, bool link_up, const OpenSlots& open) {
  std::string line = node.id + " " + node.ip + ":" + std::to_string(node.port) + "@" +
                     std::to_string(node.cport) + " " + NodeFlagsText(node.flags) + " " +
                     (node.master_id.empty() ? "-" : node.master_id) + " " +
                     std::to_string(node.ping_sent_ms) + " " +
                     std::to_string(node.pong_received_ms) + " " +
                     std::to_string(node.config_epoch) + " " +
                     ((node.flags & kNodeMyself) || link_up ? "connected" : "disconnected");
  AppendSlotRanges(node.slots, &line);
  if (node.flags & kNodeMyself) {
    for (int s = 0; s < kClusterSlots; ++s) {
      if (open.migrating != nullptr && !(*open.migrating)[s].empty()) {
        line += " [" + std::to_string(s) + "->-" + (*open.migrating)[s] + "]";
      }
      if (open.importing != nullptr && !(*open.importing)[s].empty()) {
        line += " [" + std::to_string(s) + "-<-" + (*open.importing)[s] + "]";
      }
    }
  }
  return line;
}

bool ParseNodesFile(const std::string& text, NodesFile* out, std::string* error) {
  std::stringstream in(text);
  std::string line;
  int lineno = 0;
  bool have_myself = false;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    std::vector<std::string> w;
    std::stringstream words(line);
    for (std::string x; words >> x;) w.push_back(x);
    auto fail = [&](const std::string& why) {
      *error = "Unrecoverable error: corrupted cluster config file \"" + line + "\" (line " +
               std::to_string(lineno) + "): " + why;
      return false;
    };
    if (w[0] == "vars") {
      for (size_t i = 1; i + 1 < w.size(); i += 2) {
        if (w[i] == "atomicImports") {
          out->atomic_imports = w[i + 1];
          continue;
        }
        int64_t v;
        if (!ParseInt64(w[i + 1], &v) || v < 0) return fail("bad epoch");
        if (w[i] == "currentEpoch") out->current_epoch = static_cast<uint64_t>(v);
        if (w[i] == "lastVoteEpoch") out->last_vote_epoch = static_cast<uint64_t>(v);
      }
      continue;
    }
    if (w.size() < 8) return fail("too few fields");
    auto node = std::make_unique<ClusterNode>();
    node->id = w[0];
    if (node->id.size() != 40) return fail("bad node ID");
    // ip:port@cport[,hostname]
    std::string addr = w[1].substr(0, w[1].find(','));
    size_t colon = addr.rfind(':');
    size_t at = addr.find('@');
    int64_t port, cport;
    if (colon == std::string::npos || at == std::string::npos || at < colon ||
        !ParseInt64(std::string_view(addr).substr(colon + 1, at - colon - 1), &port) ||
        !ParseInt64(std::string_view(addr).substr(at + 1), &cport)) {
      return fail("bad address");
    }
    node->ip = addr.substr(0, colon);
    node->port = static_cast<int>(port);
    node->cport = static_cast<int>(cport);
    if (!ParseNodeFlags(w[2], &node->flags)) return fail("bad flags");
    // A restarted node re-learns failures and handshakes from the cluster.
    node->flags &= ~(kNodePfail | kNodeHandshake | kNodeMeet);
    if (node->flags & kNodeMyself) {
      if (have_myself) return fail("two 'myself' nodes");
      have_myself = true;
    }
    if (w[3] != "-") node->master_id = w[3];
    int64_t epoch;
    if (!ParseInt64(w[6], &epoch) || epoch < 0) return fail("bad config epoch");
    node->config_epoch = static_cast<uint64_t>(epoch);
    for (size_t i = 8; i < w.size(); ++i) {
      if (w[i][0] == '[') continue;  // open slots are not restored, as in Valkey
      int first, last;
      if (!ParseSlotRange(w[i], &first, &last)) return fail("bad slot range");
      for (int s = first; s <= last; ++s) node->slots.set(s);
    }
    node->slot_count = static_cast<int>(node->slots.count());
    out->nodes.push_back(std::move(node));
  }
  if (!out->nodes.empty() && !have_myself) {
    *error = "Unrecoverable error: corrupted cluster config file: no 'myself' node";
    return false;
  }
  return true;
}

}  // namespace vireo
