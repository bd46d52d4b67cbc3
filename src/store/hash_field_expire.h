// Active expiry of hash fields: a periodic sweep that removes fields whose TTL has passed from
// hashes nobody reads (reads purge lazily, see store/hash_value.h), and deletes a hash left
// empty. The server's periodic task calls it per database, like Db::ActiveExpire.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

#include "store/db.h"

namespace vireo {

// Examines up to `buckets` keyspace buckets of db from a rolling cursor (one per Db), purging
// expired fields of table-encoded hashes and deleting keys they leave empty, removing at most
// max_fields fields per call (a bucket whose hashes still hold expired fields is visited
// again next time). Returns the number of fields removed. Costs nothing while no hash
// anywhere has a field with a TTL. on_expired, when set, hears of each hash that lost fields
// (and whether it was deleted), after the sweep, so the server can notify.
using FieldsExpiredFn =
    std::function<void(std::string_view key, size_t fields, bool deleted)>;
constexpr size_t kActiveExpireMaxFields = 2000;
size_t ActiveExpireHashFields(Db* db, size_t buckets, int64_t now_ms,
                              size_t max_fields = kActiveExpireMaxFields,
                              const FieldsExpiredFn& on_expired = {});

// Fields removed by expiry (lazy and active) since start, for INFO (expired_fields).
uint64_t ExpiredHashFields();
// Counts fields removed by lazy expiry (called by the command layer).
void CountExpiredHashFields(size_t n);

}  // namespace vireo
