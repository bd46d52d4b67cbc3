// Decoding the packed blobs older and current RDB files embed (ziplist, zipmap, listpack),
// with every length checked against the blob: a corrupt blob is reported, never overrun.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace vireo::rdb {

// Calls fn(element text) for each element in order (integers as decimal text). Returns false
// with *why when the blob is malformed or fn returned false.
using ItemFn = std::function<bool(std::string_view)>;
bool ForEachZiplistItem(std::string_view blob, const ItemFn& fn, std::string* why);
bool ForEachListpackItem(std::string_view blob, const ItemFn& fn, std::string* why);
// Zipmaps (hashes before Redis 2.6) yield field, value, field, value...
bool ForEachZipmapItem(std::string_view blob, const ItemFn& fn, std::string* why);

}  // namespace vireo::rdb
