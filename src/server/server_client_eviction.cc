// Client eviction (maxmemory-clients): when the memory of normal and Pub/Sub clients together
// reaches the limit, the biggest evictable clients are closed until it is under again.
// Each client's share is kept up to date where its buffers change (after its input is
// processed, a push, a write), so checking the limit costs nothing per client; the shares are
// recounted from scratch before anyone is evicted and once per cron tick.
#include <algorithm>
#include <vector>

#include "common/log.h"
#include "server/client_memory.h"
#include "server/server.h"

namespace vireo {

void Server::AccountClientMemory(Client* c) {
  if (config_.maxmemory_clients == 0) return;
  const auto now = ClientMemoryCounted(*c) ? static_cast<int64_t>(ClientMemoryUsage(*c)) : 0;
  client_mem_total_ += now - c->mem_accounted;
  c->mem_accounted = now;
}

void Server::RecountClientMemory() {
  client_mem_total_ = 0;
  for (const auto& [id, c] : clients_) {
    c->mem_accounted = ClientMemoryCounted(*c) ? static_cast<int64_t>(ClientMemoryUsage(*c)) : 0;
    client_mem_total_ += c->mem_accounted;
  }
}

void Server::EvictClients() {
  const int64_t limit = ClientEvictionLimit(config_.maxmemory_clients, config_.maxmemory);
  if (limit == 0 || client_mem_total_ < limit) return;
  RecountClientMemory();
  if (client_mem_total_ < limit) return;
  std::vector<Client*> candidates;
  for (const auto& [id, c] : clients_) {
    if (ClientEvictable(*c)) candidates.push_back(c);
  }
  // Biggest first: the fewest clients go.
  std::sort(candidates.begin(), candidates.end(),
            [](const Client* a, const Client* b) { return a->mem_accounted > b->mem_accounted; });
  for (Client* c : candidates) {
    if (client_mem_total_ < limit) return;
    LogNotice("Evicting client: id=%llu addr=%s laddr=%s name=%s tot-mem=%lld",
              static_cast<unsigned long long>(c->id), c->addr.c_str(), c->laddr.c_str(),
              c->name.c_str(), static_cast<long long>(c->mem_accounted));
    ++stats_.evicted_clients;
    client_mem_total_ -= c->mem_accounted;
    c->mem_accounted = 0;
    // Not freed here: the caller may be inside this client's command. Closed before any
    // reply of this batch goes out, as a client past the limit gets nothing more.
    CloseClientAsync(c);
  }
  if (client_mem_total_ >= limit) {
    LogWarning("Over client maxmemory after evicting all evictable clients");
  }
}

}  // namespace vireo
