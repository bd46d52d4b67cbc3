// Seeded, hash-flooding resistant hashing of keys (XXH3 with a per-process random seed).
#pragma once

#include <cstdint>
#include <string_view>

namespace vireo {

// The process-wide seed is chosen at start-up from the OS random source.
uint64_t HashBytes(std::string_view s);
// For tests: fix the seed.
void SetHashSeed(uint64_t seed);

}  // namespace vireo
