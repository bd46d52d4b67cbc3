#include "server/client_memory.h"

#include <limits>
#include <string_view>

#include "server/client.h"
#include "server/transaction.h"

namespace vireo {

size_t ClientMemoryUsage(const Client& c) {
  size_t argv_mem = 0;
  for (std::string_view a : c.args) argv_mem += a.size();
  return sizeof(Client) + c.conn.InputCapacity() + c.conn.OutputCapacity() + argv_mem +
         c.name.capacity() + MultiMemory(c);
}

bool ClientMemoryCounted(const Client& c) {
  // A client being closed is already gone for the limit: a read of its in the same turn must
  // not count it again, or the turn's check would evict the others in its place.
  if (c.flags & (kClientMaster | kClientCloseAsap)) return false;
  if ((c.flags & kClientReplica) && !(c.flags & kClientMonitor)) return false;
  return true;
}

bool ClientEvictable(const Client& c) {
  return ClientMemoryCounted(c) && !(c.flags & kClientNoEvict) && c.conn.fd() >= 0;
}

int64_t ClientEvictionLimit(int64_t maxmemory_clients, int64_t maxmemory) {
  constexpr int64_t kFloor = 128 * 1024;
  int64_t limit;
  if (maxmemory_clients > 0) {
    limit = maxmemory_clients;
  } else if (maxmemory_clients < 0) {
    if (maxmemory <= 0) return std::numeric_limits<int64_t>::max();  // a share of nothing
    limit = static_cast<int64_t>(static_cast<double>(maxmemory) *
                                 static_cast<double>(-maxmemory_clients) / 100.0);
  } else {
    return 0;
  }
  return limit < kFloor ? kFloor : limit;
}

}  // namespace vireo
