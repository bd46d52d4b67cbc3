// client-output-buffer-limit: per client class, a hard byte limit and a soft one that must
// hold for soft_seconds before the client is cut off (0 = no limit).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vireo {

enum class ClientClass { kNormal = 0, kReplica = 1, kPubSub = 2 };

struct OutputBufferLimit {
  int64_t hard = 0;
  int64_t soft = 0;
  int64_t soft_seconds = 0;
};

// Valkey's defaults: normal 0 0 0, replica 256mb 64mb 60, pubsub 32mb 8mb 60.
struct OutputBufferLimits {
  OutputBufferLimit classes[3] = {
      {0, 0, 0}, {256LL << 20, 64LL << 20, 60}, {32LL << 20, 8LL << 20, 60}};
  const OutputBufferLimit& Of(ClientClass c) const { return classes[static_cast<int>(c)]; }
};

// Applies "<class> <hard> <soft> <seconds> ..." (words may hold several of these separated
// by spaces); only the named classes change. "" on success, else Valkey's error text.
std::string ParseOutputBufferLimits(const std::vector<std::string>& args,
                                    OutputBufferLimits* limits);
// "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60".
std::string FormatOutputBufferLimits(const OutputBufferLimits& limits);

// Soft-limit timing: the time the client first went over its soft limit (0 = not over).
// Returns true when the client must be disconnected.
bool OutputLimitExceeded(const OutputBufferLimit& limit, uint64_t used, int64_t now_ms,
                         int64_t* soft_since_ms);

}  // namespace vireo
