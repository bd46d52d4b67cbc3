#include "cli/cluster_manager.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/cluster_nodes.h"
#include "common/reply_format.h"

namespace vireo::cli {
namespace {

using tools::Reply;

constexpr const char* kInvalidHostArg =
    "[ERR] Invalid arguments: you need to pass either a valid address (ie. 120.0.0.1:7000) or "
    "space separated IP and port (ie. 120.0.0.1 7000)\n";

using Args = std::vector<std::string>;
using CommandProc = bool (*)(ClusterManager*, const Args&);

// host:port, or host and port as two words.
bool HostFromArgs(const Args& args, size_t count, std::string* ip, int* port) {
  if (count == 1) {
    if (!ParseNodeAddress(args[0], ip, port, nullptr)) return false;
  } else {
    *ip = args[0];
    *port = atoi(args[1].c_str());
  }
  return !ip->empty() && *port != 0;
}

// Reads one answer line from stdin (at most `max` bytes), without the newline.
bool ReadAnswer(size_t max, std::string* out) {
  std::string buf(max, '\0');
  ssize_t n = read(STDIN_FILENO, buf.data(), max);
  if (n <= 0) return false;
  buf.resize(static_cast<size_t>(n));
  if (buf.back() != '\n') {
    int ch;
    while ((ch = getchar()) != '\n' && ch != EOF) {
    }
  }
  buf.pop_back();
  *out = buf;
  return true;
}

std::unique_ptr<ClusterNode> NodeFromArgs(const Args& args, size_t count) {
  std::string ip;
  int port = 0;
  if (!HostFromArgs(args, count, &ip, &port)) {
    fprintf(stderr, "%s", kInvalidHostArg);
    return nullptr;
  }
  return std::make_unique<ClusterNode>(ip, port);
}

// check host:port
bool Check(ClusterManager* cm, const Args& args) {
  auto node = NodeFromArgs(args, args.size());
  if (!node || !cm->LoadFromNode(std::move(node))) return false;
  cm->ShowClusterInfo();
  return cm->CheckCluster(false);
}

// info host:port
bool Info(ClusterManager* cm, const Args& args) {
  auto node = NodeFromArgs(args, args.size());
  if (!node || !cm->LoadFromNode(std::move(node))) return false;
  cm->ShowClusterInfo();
  return true;
}

// fix host:port
bool Fix(ClusterManager* cm, const Args& args) {
  cm->fix_mode = true;
  return Check(cm, args);
}

// A master that can give or take slots in a reshard.
ClusterNode* NodeForResharding(ClusterManager* cm, const std::string& id, const ClusterNode* target,
                               bool* raise_err) {
  ClusterNode* node = cm->NodeByName(id);
  *raise_err = false;
  if (node == nullptr || (node->flags & ClusterNode::kSlave)) {
    cm->Log(LogLevel::kError,
            "*** The specified node (%s) is not known or not a master, please retry.\n",
            id.c_str());
    *raise_err = true;
    return nullptr;
  }
  if (target != nullptr && node->name == target->name) {
    cm->Log(LogLevel::kError, "*** It is not possible to use the target node as source node.\n");
    return nullptr;
  }
  return node;
}

// reshard host:port [--cluster-from ids|all] [--cluster-to id] [--cluster-slots n]
bool Reshard(ClusterManager* cm, const Args& args) {
  auto entry = NodeFromArgs(args, args.size());
  if (!entry || !cm->LoadFromNode(std::move(entry))) return false;
  cm->CheckCluster(false);
  if (cm->errors() > 0) {
    fflush(stdout);
    fprintf(stderr, "*** Please fix your cluster problems before resharding\n");
    return false;
  }
  int slots = cm->opts().slots;
  while (slots <= 0 || slots > kClusterSlots) {
    printf("How many slots do you want to move (from 1 to %d)? ", kClusterSlots);
    fflush(stdout);
    std::string answer;
    if (!ReadAnswer(6, &answer)) return false;
    slots = atoi(answer.c_str());
  }
  std::string to = cm->opts().to;
  while (to.empty()) {
    printf("What is the receiving node ID? ");
    fflush(stdout);
    if (!ReadAnswer(255, &to)) return false;
  }
  bool raise_err = false;
  ClusterNode* target = NodeForResharding(cm, to, nullptr, &raise_err);
  if (target == nullptr) return false;

  std::vector<ClusterNode*> sources;
  bool all = false;
  auto add_source = [&](const std::string& id) {
    if (id == "all") {
      all = true;
      return true;
    }
    ClusterNode* src = NodeForResharding(cm, id, target, &raise_err);
    if (src != nullptr) sources.push_back(src);
    return src != nullptr || !raise_err;
  };
  if (cm->opts().from.empty()) {
    printf("Please enter all the source node IDs.\n");
    printf("  Type 'all' to use all the nodes as source nodes for the hash slots.\n");
    printf("  Type 'done' once you entered all the source nodes IDs.\n");
    for (;;) {
      printf("Source node #%zu: ", sources.size() + 1);
      fflush(stdout);
      std::string id;
      if (!ReadAnswer(255, &id)) return false;
      if (id == "done") break;
      if (!add_source(id)) return false;
      if (all) break;
    }
  } else {
    const std::string& from = cm->opts().from;
    size_t start = 0;
    while (!all && start <= from.size()) {
      size_t comma = from.find(',', start);
      std::string id =
          from.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!id.empty() && !add_source(id)) return false;
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (all) {
    sources.clear();
    for (auto& n : cm->nodes()) {
      if (n->is_replica() || n->name == target->name) continue;
      sources.push_back(n.get());
    }
  }
  if (sources.empty()) {
    fprintf(stderr, "*** No source nodes given, operation aborted.\n");
    return false;
  }
  printf("\nReady to move %d slots.\n", slots);
  printf("  Source nodes:\n");
  for (ClusterNode* src : sources) printf("%s\n", cm->NodeInfo(*src, 4).c_str());
  printf("  Destination node:\n");
  printf("%s\n", cm->NodeInfo(*target, 4).c_str());
  auto table = cm->ComputeReshardTable(sources, slots);
  printf("  Resharding plan:\n");
  for (const auto& item : table) {
    printf("    Moving slot %d from %s\n", item.slot, item.source->name.c_str());
  }
  if (!cm->opts().yes) {
    printf("Do you want to proceed with the proposed reshard plan (yes/no)? ");
    fflush(stdout);
    char buf[4] = {};
    ssize_t n = read(STDIN_FILENO, buf, 4);
    buf[3] = '\0';
    if (n <= 0 || strcmp(buf, "yes") != 0) return false;
  }
  std::string err;
  if (!cm->MoveSlots(table, target, ClusterManager::kMoveVerbose, &err)) {
    if (!err.empty()) cm->Log(LogLevel::kError, "clusterManagerMoveSlot failed: %s\n", err.c_str());
    return false;
  }
  return true;
}

// rebalance host:port [--cluster-weight id=w ...] [--cluster-use-empty-masters] ...
bool Rebalance(ClusterManager* cm, const Args& args) {
  auto entry = NodeFromArgs(args, args.size());
  if (!entry || !cm->LoadFromNode(std::move(entry))) return false;
  for (const std::string& weight : cm->opts().weights) {
    size_t eq = weight.find('=');
    if (eq == std::string::npos) {
      cm->Log(LogLevel::kError, "*** invalid input %s\n", weight.c_str());
      return false;
    }
    ClusterNode* n = cm->NodeByAbbreviatedName(weight.substr(0, eq));
    if (n == nullptr) {
      cm->Log(LogLevel::kError, "*** No such master node %s\n", weight.substr(0, eq).c_str());
      return false;
    }
    n->weight = static_cast<float>(atof(weight.c_str() + eq + 1));
  }
  float total_weight = 0;
  std::vector<ClusterNode*> involved;
  for (auto& n : cm->nodes()) {
    if (n->is_replica()) continue;
    if (!cm->opts().empty_masters && n->slots_count == 0) {
      n->weight = 0;
      continue;
    }
    total_weight += n->weight;
    involved.push_back(n.get());
  }
  cm->CheckCluster(true);
  if (cm->errors() > 0) {
    cm->Log(LogLevel::kError, "*** Please fix your cluster problems before rebalancing\n");
    return false;
  }
  // balance: slots a node should give (positive) or take (negative).
  bool threshold_reached = false;
  int total_balance = 0;
  const float threshold = static_cast<float>(cm->opts().threshold);
  for (ClusterNode* n : involved) {
    const int expected =
        static_cast<int>((static_cast<float>(kClusterSlots) / total_weight) * n->weight);
    n->balance = n->slots_count - expected;
    total_balance += n->balance;
    if (threshold > 0) {
      if (n->slots_count > 0) {
        const float err_perc =
            std::fabs(100 - (100.0f * static_cast<float>(expected) / n->slots_count));
        if (err_perc > threshold) threshold_reached = true;
      } else if (expected > 1) {
        threshold_reached = true;
      }
    }
  }
  if (!threshold_reached) {
    cm->Log(LogLevel::kWarn,
            "*** No rebalancing needed! All nodes are within the %.2f%% threshold.\n",
            cm->opts().threshold);
    return true;
  }
  // Rounding can leave a surplus: receivers absorb it so givers and takers match.
  while (total_balance > 0) {
    for (ClusterNode* n : involved) {
      if (n->balance <= 0 && total_balance > 0) {
        --n->balance;
        --total_balance;
      }
    }
  }
  std::stable_sort(involved.begin(), involved.end(),
                   [](ClusterNode* a, ClusterNode* b) { return a->balance < b->balance; });
  cm->Log(LogLevel::kInfo, ">>> Rebalancing across %zu nodes. Total weight = %.2f\n",
          involved.size(), total_weight);
  if (cm->options().verbose) {
    for (ClusterNode* n : involved) {
      printf("%s:%d balance is %d slots\n", n->ip.c_str(), n->port, n->balance);
    }
  }
  int dst_idx = 0, src_idx = static_cast<int>(involved.size()) - 1;
  while (dst_idx < src_idx) {
    ClusterNode* dst = involved[dst_idx];
    ClusterNode* src = involved[src_idx];
    const int numslots = std::min(std::abs(dst->balance), std::abs(src->balance));
    if (numslots > 0) {
      printf("Moving %d slots from %s:%d to %s:%d\n", numslots, src->ip.c_str(), src->port,
             dst->ip.c_str(), dst->port);
      auto table = cm->ComputeReshardTable({src}, numslots);
      if (static_cast<int>(table.size()) != numslots) {
        cm->Log(LogLevel::kError, "*** Assertion failed: Reshard table != number of slots");
        return false;
      }
      if (cm->opts().simulate) {
        printf("%s", std::string(table.size(), '#').c_str());
      } else {
        std::string err;
        if (!cm->MoveSlots(table, dst, ClusterManager::kMoveQuiet | ClusterManager::kMoveUpdate,
                           &err)) {
          cm->Log(LogLevel::kError, "*** clusterManagerMoveSlot: %s\n", err.c_str());
          return false;
        }
      }
      printf("\n");
    }
    dst->balance += numslots;
    src->balance -= numslots;
    if (dst->balance == 0) ++dst_idx;
    if (src->balance == 0) --src_idx;
  }
  return true;
}

// add-node new_host:new_port existing_host:existing_port [--cluster-slave
// [--cluster-master-id id]]
bool AddNode(ClusterManager* cm, const Args& args) {
  std::string ref_ip, ip;
  int ref_port = 0, port = 0;
  const Args ref_args(args.begin() + 1, args.end());
  if (!HostFromArgs(ref_args, ref_args.size(), &ref_ip, &ref_port) ||
      !HostFromArgs(args, 1, &ip, &port)) {
    fprintf(stderr, "%s", kInvalidHostArg);
    return false;
  }
  cm->Log(LogLevel::kInfo, ">>> Adding node %s:%d to cluster %s:%d\n", ip.c_str(), port,
          ref_ip.c_str(), ref_port);
  if (!cm->LoadFromNode(std::make_unique<ClusterNode>(ref_ip, ref_port))) return false;
  if (!cm->CheckCluster(false)) return false;
  ClusterNode* master = nullptr;
  if (cm->opts().replica) {
    if (!cm->opts().master_id.empty()) {
      master = cm->NodeByName(cm->opts().master_id);
      if (master == nullptr) {
        cm->Log(LogLevel::kError, "[ERR] No such master ID %s\n", cm->opts().master_id.c_str());
        return false;
      }
    } else {
      master = cm->MasterWithLeastReplicas();
      if (master == nullptr) return false;
      printf("Automatically selected master %s:%d\n", master->ip.c_str(), master->port);
    }
  }
  auto added = std::make_unique<ClusterNode>(ip, port);
  ClusterNode* node = added.get();
  if (!cm->Connect(node)) {
    cm->Log(LogLevel::kError, "[ERR] Sorry, can't connect to node %s:%d\n", ip.c_str(), port);
    return false;
  }
  std::string err;
  if (!cm->IsClusterNode(node, &err)) {
    cm->PrintNotClusterNode(*node, err);
    return false;
  }
  if (!cm->LoadInfo(node, false, &err)) {
    if (!err.empty()) cm->PrintReplyError(*node, err);
    return false;
  }
  if (!cm->IsEmpty(node, &err)) {
    cm->PrintNotEmpty(*node, err);
    return false;
  }
  ClusterNode* first = cm->nodes()[0].get();
  cm->nodes().push_back(std::move(added));

  if (master == nullptr) {
    // A new master gets the cluster's functions.
    cm->Log(LogLevel::kInfo, ">>> Getting functions from cluster\n");
    auto dump = cm->Command(first, {"FUNCTION", "DUMP"});
    if (!cm->CheckReply(*first, dump, &err)) {
      cm->Log(LogLevel::kInfo,
              ">>> Failed retrieving Functions from the cluster, skip this step as Redis version "
              "do not support function command (error = '%s')\n",
              dump ? err.c_str() : "NULL reply");
    } else {
      cm->Log(LogLevel::kInfo,
              ">>> Send FUNCTION LIST to %s:%d to verify there is no functions in it\n", ip.c_str(),
              port);
      auto list = cm->Command(node, {"FUNCTION", "LIST"});
      if (!cm->CheckReply(*node, list, &err)) {
        cm->Log(LogLevel::kError, ">>> Failed on CLUSTER LIST (error = '%s')\r\n",
                list ? err.c_str() : "NULL reply");
        return false;
      }
      if (!list->elements.empty()) {
        cm->Log(LogLevel::kError,
                ">>> New node already contains functions and can not be added to the cluster. "
                "Use FUNCTION FLUSH and try again.\r\n");
        return false;
      }
      cm->Log(LogLevel::kInfo, ">>> Send FUNCTION RESTORE to %s:%d\n", ip.c_str(), port);
      auto restore = cm->Command(node, {"FUNCTION", "RESTORE", dump->str});
      if (!cm->CheckReply(*node, restore, &err)) {
        cm->Log(LogLevel::kError, ">>> Failed loading functions to the new node (error = '%s')\r\n",
                restore ? err.c_str() : "NULL reply");
        return false;
      }
    }
  }
  cm->Log(LogLevel::kInfo, ">>> Send CLUSTER MEET to node %s:%d to make it join the cluster.\n",
          ip.c_str(), port);
  std::string first_ip;
  if (!ResolveIp(first->ip, &first_ip)) {
    fprintf(stderr, "Invalid IP address or hostname specified: %s\n", first->ip.c_str());
    return false;
  }
  if (!cm->CheckReply(*node,
                      cm->Command(node, MeetCommand(first_ip, *first)),
                      nullptr)) {
    return false;
  }
  if (master != nullptr) {
    sleep(1);
    cm->WaitForClusterJoin();
    cm->Log(LogLevel::kInfo, ">>> Configure node as replica of %s:%d.\n", master->ip.c_str(),
            master->port);
    if (!cm->CheckReply(*node, cm->Command(node, {"CLUSTER", "REPLICATE", master->name}),
                        nullptr)) {
      return false;
    }
  }
  cm->Log(LogLevel::kSuccess, "[OK] New node added correctly.\n");
  return true;
}

// del-node host:port node_id
bool DelNode(ClusterManager* cm, const Args& args) {
  std::string ip;
  int port = 0;
  if (!HostFromArgs(args, 1, &ip, &port)) {
    fprintf(stderr, "%s", kInvalidHostArg);
    return false;
  }
  const std::string& id = args[1];
  cm->Log(LogLevel::kInfo, ">>> Removing node %s from cluster %s:%d\n", id.c_str(), ip.c_str(),
          port);
  if (!cm->LoadFromNode(std::make_unique<ClusterNode>(ip, port))) return false;
  ClusterNode* node = cm->NodeByName(id);
  if (node == nullptr) {
    cm->Log(LogLevel::kError, "[ERR] No such node ID %s\n", id.c_str());
    return false;
  }
  if (node->slots_count != 0) {
    cm->Log(LogLevel::kError, "[ERR] Node %s:%d is not empty! Reshard data away and try again.\n",
            node->ip.c_str(), node->port);
    return false;
  }
  cm->Log(LogLevel::kInfo, ">>> Sending CLUSTER FORGET messages to the cluster...\n");
  for (auto& n : cm->nodes()) {
    if (n.get() == node) continue;
    if (!n->replicate.empty() && strcasecmp(n->replicate.c_str(), id.c_str()) == 0) {
      // Its replicas move to the master with the fewest replicas.
      ClusterNode* master = cm->MasterWithLeastReplicas();
      if (master == nullptr) return false;
      cm->Log(LogLevel::kInfo, ">>> %s:%d as replica of %s:%d\n", n->ip.c_str(), n->port,
              master->ip.c_str(), master->port);
      if (!cm->CheckReply(*n, cm->Command(n.get(), {"CLUSTER", "REPLICATE", master->name}),
                          nullptr)) {
        return false;
      }
    }
    if (!cm->CheckReply(*n, cm->Command(n.get(), {"CLUSTER", "FORGET", id}), nullptr)) {
      return false;
    }
  }
  cm->Log(LogLevel::kInfo, ">>> Sending CLUSTER RESET SOFT to the deleted node.\n");
  return cm->CheckReply(*node, cm->Command(node, {"CLUSTER", "RESET", "SOFT"}), nullptr);
}

// call host:port command arg ... [--cluster-only-masters | --cluster-only-replicas]
bool Call(ClusterManager* cm, const Args& args) {
  auto entry = NodeFromArgs(args, 1);
  if (!entry || !cm->LoadFromNode(std::move(entry))) return false;
  const Args command(args.begin() + 1, args.end());
  cm->Log(LogLevel::kInfo, ">>> Calling");
  for (const std::string& a : command) printf(" %s", a.c_str());
  printf("\n");
  for (auto& n : cm->nodes()) {
    if (cm->opts().only_masters && !n->replicate.empty()) continue;
    if (cm->opts().only_replicas && n->replicate.empty()) continue;
    if (!n->conn && !cm->Connect(n.get())) continue;
    auto reply = cm->Command(n.get(), command);
    if (!reply) {
      printf("%s:%d: Failed!\n", n->ip.c_str(), n->port);
    } else {
      printf("%s:%d: %s\n", n->ip.c_str(), n->port, tools::FormatRaw(*reply).c_str());
    }
  }
  return true;
}

// set-timeout host:port milliseconds
bool SetTimeout(ClusterManager* cm, const Args& args) {
  std::string ip;
  int port = 0;
  if (!HostFromArgs(args, 1, &ip, &port)) {
    fprintf(stderr, "%s", kInvalidHostArg);
    return false;
  }
  const int timeout = atoi(args[1].c_str());
  if (timeout < 100) {
    fprintf(stderr, "Setting a node timeout of less than 100 milliseconds is a bad idea.\n");
    return false;
  }
  if (!cm->LoadFromNode(std::make_unique<ClusterNode>(ip, port))) return false;
  int ok_count = 0, err_count = 0;
  cm->Log(LogLevel::kInfo, ">>> Reconfiguring node timeout in every cluster node...\n");
  for (auto& n : cm->nodes()) {
    std::string err;
    bool ok = cm->CheckReply(
        *n,
        cm->Command(n.get(), {"CONFIG", "SET", "cluster-node-timeout", std::to_string(timeout)}),
        &err);
    ok = ok && cm->CheckReply(*n, cm->Command(n.get(), {"CONFIG", "REWRITE"}), &err);
    if (ok) {
      cm->Log(LogLevel::kWarn, "*** New timeout set for %s:%d\n", n->ip.c_str(), n->port);
      ++ok_count;
    } else {
      cm->Log(LogLevel::kError, "ERR setting node-timeout for %s:%d: %s\n", n->ip.c_str(), n->port,
              err.c_str());
      ++err_count;
    }
  }
  cm->Log(LogLevel::kInfo, ">>> New node timeout set. %d OK, %d ERR.\n", ok_count, err_count);
  return true;
}

bool Unsupported(ClusterManager* cm, const Args&) {
  cm->Log(LogLevel::kError, "[ERR] This --cluster command is not supported by vireo-cli yet.\n");
  return false;
}

// import host:port --cluster-from <arg> ...: the required option is checked first, as in
// valkey-cli, then the command is refused.
bool Import(ClusterManager* cm, const Args& args) {
  if (cm->options().cluster.from.empty()) {
    fprintf(stderr, "[ERR] Option '--cluster-from' is required for subcommand 'import'.\n");
    return false;
  }
  return Unsupported(cm, args);
}

bool Help(ClusterManager*, const Args&);

struct CommandDef {
  const char* name;
  CommandProc proc;
  int arity;  // negative: at least -arity arguments
  const char* args;
  const char* options;  // comma separated, without "--cluster-"
};

const CommandDef kCommands[] = {
    {"create", CreateCluster, -1, "host1:port1 ... hostN:portN", "replicas <arg>"},
    {"check", Check, -1, "<host:port> or <host> <port> - separated by either colon or space",
     "search-multiple-owners"},
    {"info", Info, -1, "<host:port> or <host> <port> - separated by either colon or space",
     nullptr},
    {"fix", Fix, -1, "<host:port> or <host> <port> - separated by either colon or space",
     "search-multiple-owners,fix-with-unreachable-primaries"},
    {"reshard", Reshard, -1, "<host:port> or <host> <port> - separated by either colon or space",
     "from <arg>,to <arg>,slots <arg>,yes,timeout <arg>,pipeline <arg>,replace"},
    {"rebalance", Rebalance, -1,
     "<host:port> or <host> <port> - separated by either colon or space",
     "weight <node1=w1...nodeN=wN>,use-empty-primaries,timeout <arg>,simulate,pipeline <arg>,"
     "threshold <arg>,replace"},
    {"add-node", AddNode, 2, "new_host:new_port existing_host:existing_port",
     "replica,primaries-id <arg>"},
    {"del-node", DelNode, 2, "host:port node_id", nullptr},
    {"call", Call, -2, "host:port command arg arg .. arg", "only-primaries,only-replicas"},
    {"set-timeout", SetTimeout, 2, "host:port milliseconds", nullptr},
    {"import", Import, 1, "host:port",
     "from <arg>,from-user <arg>,from-pass <arg>,from-askpass,copy,replace"},
    {"backup", Unsupported, 2, "host:port backup_directory", nullptr},
    {"help", Help, 0, nullptr, nullptr},
};

bool Help(ClusterManager*, const Args&) {
  constexpr int kPadding = 15;
  printf("Cluster Manager Commands:\n");
  for (const CommandDef& def : kCommands) {
    printf("  %-*s%s\n", kPadding, def.name, def.args != nullptr ? def.args : "");
    if (def.options == nullptr) continue;
    const char* p = def.options;
    while (*p != '\0') {
      const char* comma = strchr(p, ',');
      const int len = comma != nullptr ? static_cast<int>(comma - p) : static_cast<int>(strlen(p));
      printf("%*s  --cluster-%.*s\n", kPadding, "", len, p);
      p += len + (comma != nullptr ? 1 : 0);
    }
  }
  printf(
      "\nFor check, fix, reshard, del-node, set-timeout, info, rebalance, call, import, backup "
      "you can specify the host and port of any working node in the cluster.\n");
  printf("\nCluster Manager Options:\n");
  printf("  %-*s%s\n", kPadding, "--cluster-yes", "Automatic yes to cluster commands prompts");
  printf("\n");
  // redis-cli exits 1 after its cluster help.
  return false;
}

}  // namespace

int RunClusterManager(const Options& options) {
  const ClusterOptions& c = options.cluster;
  const CommandDef* def = nullptr;
  for (const CommandDef& d : kCommands) {
    if (c.command == d.name) def = &d;
  }
  if (def == nullptr) {
    fprintf(stderr, "Unknown --cluster subcommand\n");
    return 1;
  }
  const int argc = static_cast<int>(c.args.size());
  if ((def->arity > 0 && argc != def->arity) || (def->arity < 0 && argc < -def->arity)) {
    fprintf(stderr, "[ERR] Wrong number of arguments for specified --cluster sub command\n");
    return 1;
  }
  ClusterManager manager(options);
  const bool ok = def->proc(&manager, c.args);
  fflush(stdout);
  return ok ? 0 : 1;
}

}  // namespace vireo::cli
