#include "acl/acl_log.h"

namespace vireo {
namespace {

constexpr int64_t kGroupingMs = 60000;  // refusals this close in time share an entry
constexpr size_t kGroupingScan = 10;    // how many recent entries are compared

}  // namespace

void AclLog::Add(AclLogEntry entry, int64_t now_ms, int64_t max_len) {
  size_t scan = entries_.size() < kGroupingScan ? entries_.size() : kGroupingScan;
  for (size_t i = 0; i < scan; ++i) {
    AclLogEntry& e = entries_[i];
    if (e.reason == entry.reason && e.context == entry.context && e.object == entry.object &&
        e.username == entry.username && now_ms - e.updated_ms <= kGroupingMs) {
      AclLogEntry updated = std::move(e);
      updated.count++;
      updated.updated_ms = now_ms;
      updated.client_info = std::move(entry.client_info);
      entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
      entries_.push_front(std::move(updated));
      return;
    }
  }
  entry.count = 1;
  entry.entry_id = next_id_++;
  entry.created_ms = entry.updated_ms = now_ms;
  entries_.push_front(std::move(entry));
  Trim(max_len);
}

void AclLog::Trim(int64_t max_len) {
  while (!entries_.empty() && static_cast<int64_t>(entries_.size()) > max_len) {
    entries_.pop_back();
  }
}

}  // namespace vireo
