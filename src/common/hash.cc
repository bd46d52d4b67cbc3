#include "common/hash.h"

#include <sys/random.h>
// The whole of XXH3 compiled in here (Debian's xxhash.h carries it): keys are short, and
// a call into the shared library costs about as much as hashing them.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace vireo {
namespace {

uint64_t InitialSeed() {
  uint64_t seed = 0;
  if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed)) seed = 0x9e3779b97f4a7c15ULL;
  return seed;
}

uint64_t g_seed = InitialSeed();

}  // namespace

uint64_t HashBytes(std::string_view s) { return XXH3_64bits_withSeed(s.data(), s.size(), g_seed); }

void SetHashSeed(uint64_t seed) { g_seed = seed; }

uint64_t HashSeedFromText(std::string_view text) { return XXH3_64bits(text.data(), text.size()); }

}  // namespace vireo
