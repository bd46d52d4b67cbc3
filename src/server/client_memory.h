// What a client costs in memory (CLIENT LIST tot-mem), for display and for client eviction
// (maxmemory-clients).
#pragma once

#include <cstddef>
#include <cstdint>

namespace vireo {

struct Client;

// Bytes held for c: its struct, query and output buffers, current arguments, name and MULTI
// queue.
size_t ClientMemoryUsage(const Client& c);

// Whether maxmemory-clients may evict c: normal and Pub/Sub clients without CLIENT NO-EVICT
// (never a master link, a replica or an internal client).
bool ClientEvictable(const Client& c);

// Whether c's memory counts toward maxmemory-clients (normal and Pub/Sub clients, NO-EVICT
// ones included, as in Valkey; not one already being closed).
bool ClientMemoryCounted(const Client& c);

// The limit maxmemory-clients sets, in bytes (0 = no client eviction): a percentage applies
// to maxmemory (none without one), and anything under 128 KB is raised to 128 KB so a bad
// setting cannot cut off every client.
int64_t ClientEvictionLimit(int64_t maxmemory_clients, int64_t maxmemory);

}  // namespace vireo
