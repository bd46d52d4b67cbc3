// DEBUG DIGEST: a 20-byte content digest of the dataset, equal for equal datasets whatever the
// encodings or insertion order. Collection families plug in how their values are digested.
#pragma once

#include <string_view>

#include "store/entry.h"

namespace vireo {

constexpr size_t kDigestSize = 20;  // SHA1

// Writes the digest of e's value content (never of its encoding) to out. Order-insensitive
// collections (sets, hashes) should XorDigest each element; ordered ones MixDigest in order.
using ValueDigestFn = void (*)(const Entry* e, unsigned char out[kDigestSize]);
// Registers fn for values of type (strings are built in).
void RegisterValueDigest(ObjType type, ValueDigestFn fn);

// digest = SHA1(digest || bytes): order-sensitive accumulation.
void MixDigest(unsigned char digest[kDigestSize], std::string_view bytes);
// digest ^= SHA1(bytes): order-insensitive accumulation.
void XorDigest(unsigned char digest[kDigestSize], std::string_view bytes);

}  // namespace vireo
