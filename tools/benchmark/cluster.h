// Cluster routing for --cluster: the primaries and their slots from CLUSTER NODES, and the
// hash tag that sends a key to a given slot. Every client is bound to one primary and puts
// the tag of a slot that primary owns into its keys, so each key lands on its owner.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "benchmark/endpoint.h"
#include "benchmark/options.h"

namespace vireo::benchmark {

struct ClusterNode {
  std::string name;
  std::string ip;
  int port = 0;
  std::vector<int> slots;  // in the order CLUSTER NODES lists them
};

// Parses CLUSTER NODES text into the primaries, in the reply's order, with their slots
// (migrating/importing markers skipped). A primary listed without an address (a lone node
// shows ":0@0") takes `fallback`'s. False when a line is malformed.
bool ParseClusterNodes(std::string_view text, const Endpoint& fallback,
                       std::vector<ClusterNode>* primaries);

// The hash tag redis-benchmark uses for a slot: the first string of 1 to 3 characters from
// [0-9A-Za-z] (shorter first, then in that order) whose KeyHashSlot is `slot`.
std::string_view SlotTag(int slot);

// The cluster layout shared by all worker threads; refreshed when a node redirects.
class ClusterMap {
 public:
  // Reads CLUSTER NODES from `from` (after AUTH when the options say so). False with *error
  // when the node cannot be asked or answers with an error.
  bool Fetch(const Endpoint& from, const Options& options, std::string* error);

  // Fetches again from `from`, unless the map changed since the caller saw `seen_version`
  // (another client already refreshed it). False only if the fetch failed.
  bool Refresh(const Endpoint& from, const Options& options, uint64_t seen_version);

  uint64_t version() const { return version_.load(std::memory_order_acquire); }
  std::vector<ClusterNode> Primaries() const;
  // The slots the primary at ip:port owns now (empty if it is not a primary any more).
  std::vector<int> SlotsOf(const std::string& ip, int port) const;

 private:
  mutable std::mutex mu_;  // guards primaries_
  std::mutex refresh_mu_;  // one refresh at a time, so a burst of redirects fetches once
  std::vector<ClusterNode> primaries_;
  std::atomic<uint64_t> version_{0};
};

}  // namespace vireo::benchmark
