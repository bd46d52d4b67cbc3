// Seeded, hash-flooding resistant hashing of keys (XXH3 with a per-process random seed).
#pragma once

#include <cstdint>
#include <string_view>

namespace vireo {

// The process-wide seed is chosen at start-up from the OS random source.
uint64_t HashBytes(std::string_view s);
// Fixes the seed: hash-seed at start-up (before anything is hashed), and tests.
void SetHashSeed(uint64_t seed);
// The seed a hash-seed text stands for: the same on every machine and build.
uint64_t HashSeedFromText(std::string_view text);

}  // namespace vireo
