#include "benchmark/cluster.h"

#include <array>
#include <cstdlib>

#include "common/connection.h"
#include "common/crc16.h"

namespace vireo::benchmark {
namespace {

std::vector<std::string_view> SplitSpaces(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

bool HasFlag(std::string_view flags, std::string_view flag) {
  size_t start = 0;
  while (start <= flags.size()) {
    size_t comma = flags.find(',', start);
    if (comma == std::string_view::npos) comma = flags.size();
    if (flags.substr(start, comma - start) == flag) return true;
    start = comma + 1;
  }
  return false;
}

// "ip:port@cport[,hostname]"; IPv6 addresses hold colons, so the port follows the last one.
bool ParseAddress(std::string_view addr, std::string* ip, int* port) {
  addr = addr.substr(0, addr.find('@'));
  size_t colon = addr.rfind(':');
  if (colon == std::string_view::npos) return false;
  *ip = std::string(addr.substr(0, colon));
  *port = atoi(std::string(addr.substr(colon + 1)).c_str());
  return true;
}

bool ParseSlots(std::string_view word, std::vector<int>* slots) {
  if (!word.empty() && word[0] == '[') return true;  // a slot being migrated or imported
  size_t dash = word.find('-');
  int first = atoi(std::string(word.substr(0, dash)).c_str());
  int last =
      dash == std::string_view::npos ? first : atoi(std::string(word.substr(dash + 1)).c_str());
  if (first < 0 || last >= kClusterSlots || first > last) return false;
  for (int s = first; s <= last; ++s) slots->push_back(s);
  return true;
}

constexpr std::string_view kTagAlphabet =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

struct TagTable {
  std::array<std::array<char, 4>, kClusterSlots> tags{};  // NUL-terminated

  TagTable() {
    int missing = kClusterSlots;
    char word[4] = {0, 0, 0, 0};
    // Every length-3 string over 62 characters covers all 16384 slots, so this fills them.
    for (int len = 1; len <= 3 && missing > 0; ++len) {
      int combos = 1;
      for (int i = 0; i < len; ++i) combos *= static_cast<int>(kTagAlphabet.size());
      for (int n = 0; n < combos && missing > 0; ++n) {
        int rest = n;
        for (int i = len - 1; i >= 0; --i) {
          word[i] = kTagAlphabet[rest % kTagAlphabet.size()];
          rest /= static_cast<int>(kTagAlphabet.size());
        }
        auto& entry = tags[KeyHashSlot(std::string_view(word, len))];
        if (entry[0] == 0) {
          for (int i = 0; i < len; ++i) entry[i] = word[i];
          --missing;
        }
      }
    }
  }
};

}  // namespace

bool ParseClusterNodes(std::string_view text, const Endpoint& fallback,
                       std::vector<ClusterNode>* primaries) {
  primaries->clear();
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::vector<std::string_view> words = SplitSpaces(line);
    if (words.empty()) continue;
    if (words.size() < 8) return false;
    if (!HasFlag(words[2], "master") || HasFlag(words[2], "fail") || HasFlag(words[2], "noaddr")) {
      continue;
    }
    ClusterNode node;
    node.name = std::string(words[0]);
    if (!ParseAddress(words[1], &node.ip, &node.port)) return false;
    if (node.ip.empty() || node.port == 0) {
      node.ip = fallback.host;
      node.port = fallback.port;
    }
    for (size_t i = 8; i < words.size(); ++i) {
      if (!ParseSlots(words[i], &node.slots)) return false;
    }
    primaries->push_back(std::move(node));
  }
  return true;
}

std::string_view SlotTag(int slot) {
  static const TagTable* table = new TagTable();
  return std::string_view(table->tags[slot & (kClusterSlots - 1)].data());
}

bool ClusterMap::Fetch(const Endpoint& from, const Options& options, std::string* error) {
  tools::Connection conn;
  bool connected = from.socket_path.empty() ? conn.ConnectTcp(from.host, from.port)
                                            : conn.ConnectUnix(from.socket_path);
  if (!connected) {
    *error = "Could not connect to server at " + from.Describe() + ": " + conn.error();
    return false;
  }
  tools::Reply reply;
  if (options.has_password) {
    std::vector<std::string> auth = {"AUTH"};
    if (!options.user.empty()) auth.push_back(options.user);
    auth.push_back(options.password);
    if (!conn.Command(auth, &reply) || reply.type == tools::Reply::Type::kError) {
      *error = reply.str.empty() ? conn.error() : reply.str;
      return false;
    }
  }
  if (!conn.Command({"CLUSTER", "NODES"}, &reply)) {
    *error = conn.error();
    return false;
  }
  if (reply.type == tools::Reply::Type::kError) {
    *error = "Cluster node " + from.Describe() + " replied with error:\n" + reply.str;
    return false;
  }
  std::vector<ClusterNode> primaries;
  if (!ParseClusterNodes(reply.str, from, &primaries)) {
    *error = "Invalid CLUSTER NODES reply";
    return false;
  }
  std::lock_guard<std::mutex> lock(mu_);
  primaries_ = std::move(primaries);
  version_.fetch_add(1, std::memory_order_acq_rel);
  return true;
}

bool ClusterMap::Refresh(const Endpoint& from, const Options& options, uint64_t seen_version) {
  std::lock_guard<std::mutex> lock(refresh_mu_);
  if (version() != seen_version) return true;
  std::string error;
  return Fetch(from, options, &error);
}

std::vector<ClusterNode> ClusterMap::Primaries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return primaries_;
}

std::vector<int> ClusterMap::SlotsOf(const std::string& ip, int port) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const ClusterNode& node : primaries_) {
    if (node.ip == ip && node.port == port) return node.slots;
  }
  return {};
}

}  // namespace vireo::benchmark
