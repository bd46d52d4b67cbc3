// CLUSTERSCAN's cursor (Valkey 9.1): "fingerprint-{hashtag}-localcursor", or "0" to start and
// to say the scan is over. The hash tag names the slot the scan is at, so a cluster client
// routes the next call to that slot's owner as it would a key; the fingerprint says which
// memory layout the local cursor belongs to ("0": none, the walk of the slot starts afresh).
//
// Vireo's local cursor packs two numbers: the keyspace table's SCAN cursor and the last slot
// of the walk (local = table_cursor * 16384 + end_slot), because one walk of the node's
// single table covers a run of slots at once (see docs/ARCHITECTURE.md, Cluster).
// Pure functions, any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace vireo {

struct ClusterScanCursor {
  bool start = false;       // the cursor "0": no slot yet
  std::string fingerprint;  // "0" for a fresh walk of `slot`
  int slot = 0;             // the slot the hash tag hashes to
  uint64_t local = 0;
};

// The shortest string over [0-9A-Za-z] whose CRC16 hashes to slot, the first in that
// alphabet's order among equals ("06S" for slot 0, "Qi" for slot 1): the tags Valkey's
// cursors carry, so cursors read the same on both. slot must be in 0..16383.
const std::string& SlotHashTag(int slot);

// Parses a cursor; false when it is neither "0" nor of the form above (the local part a
// decimal number, the tag non-empty).
bool ParseClusterScanCursor(std::string_view text, ClusterScanCursor* out);

// "fingerprint-{tag of slot}-local".
std::string FormatClusterScanCursor(std::string_view fingerprint, int slot, uint64_t local);

// The local cursor of a walk ending at end_slot that is at table_cursor; false (nothing
// written) when table_cursor is too large to pack.
bool PackScanLocal(uint64_t table_cursor, int end_slot, uint64_t* local);
void UnpackScanLocal(uint64_t local, uint64_t* table_cursor, int* end_slot);

// This process's fingerprint: non-zero, [0-9A-Za-z] only, derived from the keyspace hash
// seed (a table cursor means nothing under another seed) and the cursor format's version.
const std::string& LocalScanFingerprint();

}  // namespace vireo
