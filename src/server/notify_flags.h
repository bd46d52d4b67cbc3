// The event classes of notify-keyspace-events and their flag letters.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace vireo {

// Event classes, one per flag letter of notify-keyspace-events.
enum NotifyFlag : uint32_t {
  kNotifyKeyspace = 1u << 0,   // K
  kNotifyKeyevent = 1u << 1,   // E
  kNotifyGeneric = 1u << 2,    // g: DEL, EXPIRE, RENAME, ...
  kNotifyString = 1u << 3,     // $
  kNotifyList = 1u << 4,       // l
  kNotifySet = 1u << 5,        // s
  kNotifyHash = 1u << 6,       // h
  kNotifyZset = 1u << 7,       // z
  kNotifyExpired = 1u << 8,    // x
  kNotifyEvicted = 1u << 9,    // e
  kNotifyStream = 1u << 10,    // t
  kNotifyKeyMiss = 1u << 11,   // m (not part of A)
  kNotifyModule = 1u << 12,    // d
  kNotifyNew = 1u << 13,       // n (not part of A)
  // A: every class except key-miss and new, as in Valkey.
  kNotifyAll = kNotifyGeneric | kNotifyString | kNotifyList | kNotifySet | kNotifyHash |
               kNotifyZset | kNotifyExpired | kNotifyEvicted | kNotifyStream | kNotifyModule,
};

// Parses the flag letters; false for an unknown letter (the caller reports Valkey's
// "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.").
bool ParseNotifyFlags(std::string_view letters, uint32_t* flags);
// The canonical form CONFIG GET shows ("AKE", "$E", "glK").
std::string FormatNotifyFlags(uint32_t flags);

}  // namespace vireo
