#include "store/hash_field_expire.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/hash_value.h"

namespace vireo {
namespace {

uint64_t g_expired_fields = 0;

// Each Db's sweep position. Keyed by address: Dbs live as long as the server.
std::unordered_map<const Db*, uint64_t>& Cursors() {
  static std::unordered_map<const Db*, uint64_t> cursors;
  return cursors;
}

}  // namespace

uint64_t ExpiredHashFields() { return g_expired_fields; }
void CountExpiredHashFields(size_t n) { g_expired_fields += n; }

size_t ActiveExpireHashFields(Db* db, size_t buckets, int64_t now_ms, size_t max_fields,
                              const FieldsExpiredFn& on_expired) {
  if (HashFieldTable::VolatileTables() == 0 || db->Size() == 0) return 0;
  uint64_t& cursor = Cursors()[db];
  size_t removed = 0;
  struct Purged {
    std::string key;
    size_t fields;
    bool emptied;
  };
  std::vector<Purged> purged;  // reported (and emptied hashes deleted) after the scan:
                               // Scan forbids removals
  for (size_t i = 0; i < buckets && removed < max_fields; ++i) {
    bool unfinished = false;
    uint64_t next = db->Scan(cursor, [&](Entry* e) {
      if (e->type() != ObjType::kHash || e->encoding() != Encoding::kHashTable) return;
      size_t n = hash::PurgeExpired(e, now_ms, max_fields - std::min(removed, max_fields));
      if (n == 0) return;
      removed += n;
      const HashFieldTable* t = hash::Table(e);
      purged.push_back({std::string(e->Key()), n, t->Size() == 0});
      if (t->Size() != 0 && t->VolatileCount() != 0 && t->MinExpire() < now_ms) {
        unfinished = true;  // out of budget with expired fields left: revisit this bucket
      }
    });
    if (unfinished) break;
    cursor = next;
    if (cursor == 0) break;
  }
  for (const Purged& p : purged) {
    if (p.emptied) db->Delete(p.key);
  }
  g_expired_fields += removed;
  if (on_expired) {
    for (const Purged& p : purged) on_expired(p.key, p.fields, p.emptied);
  }
  return removed;
}

}  // namespace vireo
