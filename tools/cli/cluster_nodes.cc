#include "cli/cluster_nodes.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/modes.h"
#include "common/reply_format.h"

namespace vireo::cli {
namespace {

using tools::Reply;

// The first nodes-dependent wait before warning about unreachable cluster bus ports.
constexpr int kJoinCheckAfter = 20;

bool IsError(const std::optional<Reply>& r) { return r && r->type == Reply::Type::kError; }

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0, nl;
  // Only newline-terminated lines count, as redis-cli reads them.
  while ((nl = text.find('\n', start)) != std::string::npos) {
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::vector<std::string> SplitSpaces(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0, sp;
  while ((sp = line.find(' ', start)) != std::string::npos) {
    out.push_back(line.substr(start, sp - start));
    start = sp + 1;
  }
  out.push_back(line.substr(start));
  return out;
}

void ClusterNode::ResetSlots() {
  std::fill(slots.begin(), slots.end(), 0);
  slots_count = 0;
  migrating.clear();
  importing.clear();
}

std::string SlotsString(const std::vector<uint8_t>& slots) {
  std::string out;
  int first = -1, last = -1;
  auto close_range = [&]() {
    if (last < 0) return;
    if (first == last) {
      out += "]";
    } else {
      out += "-" + std::to_string(last) + "]";
    }
  };
  for (int i = 0; i < kClusterSlots; ++i) {
    if (slots[i]) {
      if (first == -1) {
        if (!out.empty()) out += ",";
        first = i;
        out += "[" + std::to_string(i);
      }
      last = i;
    } else {
      close_range();
      first = last = -1;
    }
  }
  close_range();
  return out;
}

bool ParseNodeAddress(std::string addr, std::string* ip, int* port, int* bus_port) {
  size_t at = addr.rfind('@');
  if (at != std::string::npos) {
    if (bus_port != nullptr) *bus_port = atoi(addr.c_str() + at + 1);
    addr.resize(at);
  }
  size_t colon = addr.rfind(':');
  if (colon == std::string::npos) return false;
  *port = atoi(addr.c_str() + colon + 1);
  *ip = addr.substr(0, colon);
  return true;
}

std::vector<std::string> MeetCommand(const std::string& ip, const ClusterNode& node) {
  std::vector<std::string> cmd = {"CLUSTER", "MEET", ip, std::to_string(node.port)};
  if (node.bus_port != 0 && node.bus_port != node.port + 10000) {
    cmd.push_back(std::to_string(node.bus_port));
  }
  return cmd;
}

bool ConfirmWithYes(const ClusterManager& cm, const char* question, bool ignore_yes_flag) {
  if (!ignore_yes_flag && cm.opts().yes) return true;
  printf("%s (type 'yes' to accept): ", question);
  fflush(stdout);
  char buf[4] = {};
  ssize_t n = read(STDIN_FILENO, buf, 4);
  buf[3] = '\0';
  return n > 0 && strcmp(buf, "yes") == 0;
}

bool ResolveIp(const std::string& host, std::string* ip) {
  addrinfo hints{}, *info = nullptr;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &info) != 0) return false;
  char buf[INET6_ADDRSTRLEN];
  const void* addr =
      info->ai_family == AF_INET
          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(info->ai_addr)->sin_addr)
          : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(info->ai_addr)->sin6_addr);
  bool ok = inet_ntop(info->ai_family, addr, buf, sizeof(buf)) != nullptr;
  freeaddrinfo(info);
  if (ok) *ip = buf;
  return ok;
}

ClusterManager::ClusterManager(const Options& options) : options_(options) {
  // redis-cli colors its cluster messages on any xterm-like terminal type, even when piped.
  const char* term = getenv("TERM");
  colors_ = term != nullptr && strstr(term, "xterm") != nullptr;
}

void ClusterManager::Log(LogLevel level, const char* fmt, ...) {
  if (colors_) {
    switch (level) {
      case LogLevel::kInfo:
        printf("\033[29;1m");
        break;
      case LogLevel::kWarn:
        printf("\033[33;1m");
        break;
      case LogLevel::kError:
        printf("\033[31;1m");
        break;
      case LogLevel::kSuccess:
        printf("\033[32;1m");
        break;
    }
  }
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  if (colors_) printf("\033[0m");
}

void ClusterManager::PrintReplyError(const ClusterNode& node, const std::string& err) {
  Log(LogLevel::kError, "Node %s:%d replied with error:\n%s\n", node.ip.c_str(), node.port,
      err.c_str());
}

void ClusterManager::OnError(const std::string& err) {
  ++errors_;
  Log(LogLevel::kError, "%s\n", err.c_str());
}

bool ClusterManager::Connect(ClusterNode* node) {
  node->conn = std::make_unique<tools::Connection>();
  if (!node->conn->ConnectTcp(node->ip, node->port)) {
    fprintf(stderr, "Could not connect to Valkey at %s:%d: %s\n", node->ip.c_str(), node->port,
            node->conn->error().c_str());
    node->conn.reset();
    return false;
  }
  if (options_.password.has_value()) {
    std::vector<std::string> args = {"AUTH"};
    if (options_.user.has_value()) args.push_back(*options_.user);
    args.push_back(*options_.password);
    if (!CheckReply(*node, Command(node, args), nullptr)) return false;
  }
  return true;
}

std::optional<Reply> ClusterManager::Command(ClusterNode* node,
                                             const std::vector<std::string>& args) {
  if (!node->conn) return std::nullopt;
  Reply reply;
  if (!node->conn->Command(args, &reply)) return std::nullopt;
  return reply;
}

bool ClusterManager::CheckReply(const ClusterNode& node, const std::optional<Reply>& reply,
                                std::string* err) {
  if (!reply) return false;
  if (reply->type != Reply::Type::kError) return true;
  if (err != nullptr) {
    *err = reply->str;
  } else {
    PrintReplyError(node, reply->str);
  }
  return false;
}

bool ClusterManager::IsClusterNode(ClusterNode* node, std::string* err) {
  auto info = Command(node, {"INFO"});
  if (!CheckReply(*node, info, err)) return false;
  std::string value;
  return InfoField(info->str, "cluster_enabled", &value) && atoi(value.c_str()) == 1;
}

bool ClusterManager::IsEmpty(ClusterNode* node, std::string* err) {
  auto info = Command(node, {"INFO"});
  if (!CheckReply(*node, info, err)) return false;
  if (info->str.find("db0:") != std::string::npos) return false;
  auto cluster_info = Command(node, {"CLUSTER", "INFO"});
  if (err != nullptr) err->clear();
  if (!CheckReply(*node, cluster_info, err)) return false;
  std::string known;
  return InfoField(cluster_info->str, "cluster_known_nodes", &known) && atoi(known.c_str()) == 1;
}

void ClusterManager::PrintNotClusterNode(const ClusterNode& n, const std::string& err) {
  Log(LogLevel::kError, "[ERR] Node %s:%d %s\n", n.ip.c_str(), n.port,
      err.empty() ? "is not configured as a cluster node." : err.c_str());
}

void ClusterManager::PrintNotEmpty(const ClusterNode& n, const std::string& err) {
  Log(LogLevel::kError, "[ERR] Node %s:%d %s\n", n.ip.c_str(), n.port,
      err.empty() ? "is not empty. Either the node already knows other nodes (check with "
                    "CLUSTER NODES) or contains some key in database 0."
                  : err.c_str());
}

bool ClusterManager::PrepareNewNode(ClusterNode* node) {
  if (!Connect(node)) return false;
  std::string err;
  if (!IsClusterNode(node, &err)) {
    PrintNotClusterNode(*node, err);
    return false;
  }
  if (!LoadInfo(node, false, &err)) {
    if (!err.empty()) PrintReplyError(*node, err);
    return false;
  }
  if (!IsEmpty(node, &err)) {
    PrintNotEmpty(*node, err);
    return false;
  }
  return true;
}

bool ClusterManager::LoadInfo(ClusterNode* node, bool friends, std::string* err) {
  err->clear();
  auto reply = Command(node, {"CLUSTER", "NODES"});
  if (!CheckReply(*node, reply, err)) return false;
  for (const std::string& line : SplitLines(reply->str)) {
    std::vector<std::string> fields = SplitSpaces(line);
    if (fields.size() < 3) return false;
    const std::string& id = fields[0];
    const std::string& flags = fields[2];
    const std::string master_id = fields.size() > 3 ? fields[3] : "";
    std::string ip;
    int port = 0, bus_port = 0;
    if (!ParseNodeAddress(fields[1], &ip, &port, &bus_port)) {
      fprintf(stderr, "Error: invalid CLUSTER NODES reply\n");
      return false;
    }
    const bool myself = flags.find("myself") != std::string::npos;
    ClusterNode* current = nullptr;
    if (myself) {
      node->bus_port = bus_port;
      node->flags |= ClusterNode::kMyself;
      current = node;
      node->ResetSlots();
      // Slots: "0-5460", "5461", "[93->-id]" (migrating), "[93-<-id]" (importing).
      for (size_t i = 8; i < fields.size(); ++i) {
        const std::string& def = fields[i];
        if (def.empty()) continue;
        if (def[0] == '[') {
          size_t p;
          std::string body = def.substr(1);
          if (!body.empty() && body.back() == ']') body.pop_back();
          if ((p = body.find("->-")) != std::string::npos) {
            node->migrating.emplace_back(body.substr(0, p), body.substr(p + 3));
          } else if ((p = body.find("-<-")) != std::string::npos) {
            node->importing.emplace_back(body.substr(0, p), body.substr(p + 3));
          }
        } else if (size_t dash = def.find('-'); dash != std::string::npos) {
          int start = atoi(def.c_str()), stop = atoi(def.c_str() + dash + 1);
          for (int s = std::max(start, 0); s <= stop && s < kClusterSlots; ++s) {
            if (!node->slots[s]) ++node->slots_count;
            node->slots[s] = 1;
          }
        } else {
          int s = atoi(def.c_str());
          if (s >= 0 && s < kClusterSlots && !node->slots[s]) {
            node->slots[s] = 1;
            ++node->slots_count;
          }
        }
      }
      node->dirty = false;
    } else if (!friends) {
      continue;
    } else {
      auto other = std::make_unique<ClusterNode>(ip, port);
      other->bus_port = bus_port;
      other->flags |= ClusterNode::kFriend;
      current = other.get();
      node->friends.push_back(std::move(other));
    }
    current->name = id;
    current->flag_names.clear();
    size_t start = 0;
    while (start < flags.size()) {
      size_t comma = flags.find(',', start);
      std::string flag =
          flags.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      start = comma == std::string::npos ? flags.size() : comma + 1;
      if (flag == "noaddr") current->flags |= ClusterNode::kNoAddr;
      if (flag == "disconnected") current->flags |= ClusterNode::kDisconnected;
      if (flag == "fail") current->flags |= ClusterNode::kFail;
      if (flag == "slave") {
        current->flags |= ClusterNode::kSlave;
        current->replicate = master_id;
      }
      current->flag_names.push_back(flag);
    }
    if (fields.size() > 6) current->current_epoch = strtoull(fields[6].c_str(), nullptr, 10);
    if (!friends && myself) break;
  }
  return true;
}

bool ClusterManager::LoadFromNode(std::unique_ptr<ClusterNode> node) {
  if (!node->conn && !Connect(node.get())) return false;
  std::string err;
  if (!IsClusterNode(node.get(), &err)) {
    PrintNotClusterNode(*node, err);
    return false;
  }
  if (!LoadInfo(node.get(), /*friends=*/true, &err)) {
    if (!err.empty()) PrintReplyError(*node, err);
    return false;
  }
  nodes_.clear();
  std::vector<std::unique_ptr<ClusterNode>> friends = std::move(node->friends);
  node->friends.clear();
  nodes_.push_back(std::move(node));
  for (auto& other : friends) {
    bool valid = !other->ip.empty() && other->port != 0 && (other->conn || Connect(other.get()));
    if (valid) {
      if (LoadInfo(other.get(), /*friends=*/false, &err)) {
        valid = (other->flags &
                 (ClusterNode::kNoAddr | ClusterNode::kDisconnected | ClusterNode::kFail)) == 0;
      } else {
        Log(LogLevel::kError, "[ERR] Unable to load info for node %s:%d\n", other->ip.c_str(),
            other->port);
        valid = false;
      }
    }
    if (valid) {
      nodes_.push_back(std::move(other));
    } else if (!(other->flags & ClusterNode::kSlave)) {
      ++unreachable_masters_;
    }
  }
  for (auto& n : nodes_) {
    if (n->replicate.empty()) continue;
    ClusterNode* master = NodeByName(n->replicate);
    if (master == nullptr) {
      Log(LogLevel::kWarn, "*** WARNING: %s:%d claims to be slave of unknown node ID %s.\n",
          n->ip.c_str(), n->port, n->replicate.c_str());
    } else {
      ++master->replicas_count;
    }
  }
  return true;
}

ClusterNode* ClusterManager::NodeByName(const std::string& name) {
  const std::string lower = Lower(name);
  for (auto& n : nodes_) {
    if (!n->name.empty() && n->name == lower) return n.get();
  }
  return nullptr;
}

ClusterNode* ClusterManager::NodeByAbbreviatedName(const std::string& prefix) {
  const std::string lower = Lower(prefix);
  for (auto& n : nodes_) {
    if (!n->name.empty() && n->name.compare(0, lower.size(), lower) == 0) return n.get();
  }
  return nullptr;
}

ClusterNode* ClusterManager::MasterWithLeastReplicas() {
  ClusterNode* best = nullptr;
  for (auto& n : nodes_) {
    if (n->is_replica()) continue;
    if (best == nullptr || n->replicas_count < best->replicas_count) best = n.get();
  }
  return best;
}

std::string ClusterManager::NodeInfo(const ClusterNode& node, int indent) const {
  const std::string spaces(indent, ' ');
  std::string info = spaces;
  const bool is_master = !(node.flags & ClusterNode::kSlave);
  char buf[512];
  if (node.dirty && !node.replicate.empty()) {
    snprintf(buf, sizeof(buf), "S: %s %s:%d", node.name.c_str(), node.ip.c_str(), node.port);
    info += buf;
  } else {
    std::string flags;
    for (const std::string& f : node.flag_names) {
      if (f == "myself") continue;
      if (!flags.empty()) flags += ",";
      flags += f;
    }
    info += std::string(is_master ? "M" : "S") + ": " + node.name + " " + node.ip + ":" +
            std::to_string(node.port) + "\n" + spaces + "   slots:" + SlotsString(node.slots) +
            " (" + std::to_string(node.slots_count) + " slots) " + flags;
  }
  if (!node.replicate.empty()) {
    info += "\n" + spaces + "   replicates " + node.replicate;
  } else if (node.replicas_count) {
    info += "\n" + spaces + "   " + std::to_string(node.replicas_count) + " additional replica(s)";
  }
  return info;
}

void ClusterManager::ShowNodes() const {
  for (const auto& n : nodes_) printf("%s\n", NodeInfo(*n, 0).c_str());
}

void ClusterManager::ShowClusterInfo() {
  int masters = 0;
  long long keys = 0;
  for (auto& node : nodes_) {
    if (node->flags & ClusterNode::kSlave) continue;
    if (node->name.empty()) continue;
    int replicas = 0;
    for (auto& n : nodes_) {
      if (n == node || !(n->flags & ClusterNode::kSlave)) continue;
      if (n->replicate == node->name) ++replicas;
    }
    auto reply = Command(node.get(), {"DBSIZE"});
    if (!reply || reply->type != Reply::Type::kInteger) {
      PrintReplyError(*node, IsError(reply) ? reply->str : "");
      return;
    }
    printf("%s:%d (%.8s...) -> %lld keys | %d slots | %d replicas.\n", node->ip.c_str(), node->port,
           node->name.c_str(), static_cast<long long>(reply->integer), node->slots_count, replicas);
    ++masters;
    keys += reply->integer;
  }
  Log(LogLevel::kSuccess, "[OK] %lld keys in %d primaries.\n", keys, masters);
  printf("%.2f keys per slot on average.\n", static_cast<double>(keys / 16384.0f));
}

std::string ClusterManager::ConfigSignature(ClusterNode* node) {
  auto reply = Command(node, {"CLUSTER", "NODES"});
  if (!reply || reply->type == Reply::Type::kError) return "";
  std::vector<std::string> configs;
  for (const std::string& line : SplitLines(reply->str)) {
    std::vector<std::string> fields = SplitSpaces(line);
    if (fields.size() < 9) continue;
    std::vector<std::string> slots;
    for (size_t i = 8; i < fields.size(); ++i) {
      if (!fields[i].empty() && fields[i][0] != '[') slots.push_back(fields[i]);
    }
    if (slots.empty()) continue;
    std::sort(slots.begin(), slots.end());
    std::string cfg = fields[0] + ":";
    for (size_t i = 0; i < slots.size(); ++i) cfg += (i ? "," : "") + slots[i];
    configs.push_back(cfg);
  }
  std::sort(configs.begin(), configs.end());
  std::string signature;
  for (size_t i = 0; i < configs.size(); ++i) signature += (i ? "|" : "") + configs[i];
  return signature;
}

bool ClusterManager::IsConfigConsistent() {
  if (nodes_.size() <= 1) return true;
  std::string first;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    std::string cfg = ConfigSignature(nodes_[i].get());
    if (cfg.empty()) return false;
    if (i == 0) {
      first = cfg;
    } else if (cfg != first) {
      return false;
    }
  }
  return true;
}

void ClusterManager::WaitForClusterJoin() {
  printf("Waiting for the cluster to join\n");
  int counter = 0;
  const int check_after = kJoinCheckAfter + static_cast<int>(nodes_.size() * 0.15f);
  while (!IsConfigConsistent()) {
    printf(".");
    fflush(stdout);
    sleep(1);
    if (++counter > check_after) {
      // Nodes that some peer sees with a broken link: their bus port may be unreachable.
      std::vector<std::string> unreachable;
      for (auto& n : nodes_) {
        auto reply = Command(n.get(), {"CLUSTER", "NODES"});
        if (!reply || reply->type == Reply::Type::kError) continue;
        for (const std::string& line : SplitLines(reply->str)) {
          std::vector<std::string> f = SplitSpaces(line);
          if (f.size() > 7 && f[7] == "disconnected" &&
              std::find(unreachable.begin(), unreachable.end(), f[1]) == unreachable.end()) {
            unreachable.push_back(f[1]);
          }
        }
      }
      if (!unreachable.empty()) {
        printf("\n");
        Log(LogLevel::kError, "Warning: %zu node(s) may be unreachable\n", unreachable.size());
        for (const std::string& addr : unreachable) {
          Log(LogLevel::kError, " - Node %s may be unreachable\n", addr.c_str());
        }
        Log(LogLevel::kError,
            "Cluster bus ports must be reachable by every node.\nRemember that cluster bus "
            "ports are different from standard instance ports.\n");
      }
      counter = 0;
    }
  }
  printf("\n");
}

bool ClusterManager::CheckCluster(bool quiet) {
  if (nodes_.empty()) return false;
  Log(LogLevel::kInfo, ">>> Performing Cluster Check (using node %s:%d)\n", nodes_[0]->ip.c_str(),
      nodes_[0]->port);
  bool result = true;
  if (!quiet) ShowNodes();
  if (!IsConfigConsistent()) {
    OnError("[ERR] Nodes don't agree about configuration!");
    result = false;
  } else {
    Log(LogLevel::kSuccess, "[OK] All nodes agree about slots configuration.\n");
  }
  Log(LogLevel::kInfo, ">>> Check for open slots...\n");
  std::vector<std::string> open_slots;
  auto note_open = [&](const ClusterNode& n,
                       const std::vector<std::pair<std::string, std::string>>& list,
                       const char* state) {
    if (list.empty()) return;
    char head[256];
    snprintf(head, sizeof(head), "[WARNING] Node %s:%d has slots in %s state ", n.ip.c_str(),
             n.port, state);
    std::string err = head;
    for (size_t i = 0; i < list.size(); ++i) {
      err += (i ? "," : "") + list[i].first;
      if (std::find(open_slots.begin(), open_slots.end(), list[i].first) == open_slots.end()) {
        open_slots.push_back(list[i].first);
      }
    }
    OnError(err + ".");
  };
  for (auto& n : nodes_) {
    note_open(*n, n->migrating, "migrating");
    note_open(*n, n->importing, "importing");
  }
  if (!open_slots.empty()) {
    result = false;
    std::string err = "[WARNING] The following slots are open: ";
    for (size_t i = 0; i < open_slots.size(); ++i) err += (i ? "," : "") + open_slots[i];
    Log(LogLevel::kError, "%s.\n", err.c_str());
    if (fix_mode) {
      for (const std::string& slot : open_slots) {
        result = FixOpenSlot(atoi(slot.c_str()));
        if (!result) break;
      }
    }
  }
  Log(LogLevel::kInfo, ">>> Check slots coverage...\n");
  std::vector<uint8_t> covered(kClusterSlots, 0);
  int coverage = 0;
  for (auto& n : nodes_) {
    for (int i = 0; i < kClusterSlots; ++i) {
      if (n->slots[i] && !covered[i]) {
        covered[i] = 1;
        ++coverage;
      }
    }
  }
  if (coverage == kClusterSlots) {
    Log(LogLevel::kSuccess, "[OK] All %d slots covered.\n", kClusterSlots);
  } else {
    OnError("[ERR] Not all 16384 slots are covered by nodes.\n");
    result = false;
    if (fix_mode && FixSlotsCoverage(covered) > 0) result = true;
  }
  if (opts().search_multiple_owners) {
    Log(LogLevel::kInfo, ">>> Check for multiple slot owners...\n");
    int multiple = 0;
    for (int slot = 0; slot < kClusterSlots; ++slot) {
      std::vector<ClusterNode*> owners;
      for (auto& n : nodes_) {
        if (n->flags & ClusterNode::kSlave) continue;
        if (n->slots[slot]) {
          owners.push_back(n.get());
          continue;
        }
        // Nodes holding keys of the slot count as owners too.
        auto count = Command(n.get(), {"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)});
        if (count && count->type == Reply::Type::kInteger && count->integer > 0) {
          owners.push_back(n.get());
        }
      }
      if (owners.size() <= 1) continue;
      result = false;
      Log(LogLevel::kError, "[WARNING] Slot %d has %zu owners:\n", slot, owners.size());
      for (ClusterNode* n : owners) Log(LogLevel::kError, "    %s:%d\n", n->ip.c_str(), n->port);
      ++multiple;
    }
    if (multiple == 0) Log(LogLevel::kSuccess, "[OK] No multiple owners found.\n");
  }
  return result;
}

}  // namespace vireo::cli
