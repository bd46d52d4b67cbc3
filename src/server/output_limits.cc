#include "server/output_limits.h"

#include <sstream>

#include "common/numbers.h"

namespace vireo {

std::string ParseOutputBufferLimits(const std::vector<std::string>& args,
                                    OutputBufferLimits* limits) {
  std::vector<std::string> words;
  for (const std::string& a : args) {
    std::istringstream in(a);
    std::string w;
    while (in >> w) words.push_back(w);
  }
  if (words.size() % 4 != 0) {
    return "Wrong number of arguments in buffer limit configuration.";
  }
  // All or nothing: a bad group leaves every class as it was.
  OutputBufferLimits next = *limits;
  for (size_t i = 0; i < words.size(); i += 4) {
    std::string cls = ToLower(words[i]);
    int index;
    if (cls == "normal") {
      index = 0;
    } else if (cls == "replica" || cls == "slave") {
      index = 1;
    } else if (cls == "pubsub") {
      index = 2;
    } else {
      return "Invalid client class specified in buffer limit configuration.";
    }
    int64_t hard, soft, seconds;
    if (!ParseMemorySize(words[i + 1], &hard) || !ParseMemorySize(words[i + 2], &soft) ||
        !ParseInt64(words[i + 3], &seconds) || hard < 0 || soft < 0 || seconds < 0) {
      return "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
    }
    next.classes[index] = {hard, soft, seconds};
  }
  *limits = next;
  return "";
}

std::string FormatOutputBufferLimits(const OutputBufferLimits& limits) {
  static const char* const kNames[] = {"normal", "slave", "pubsub"};
  std::string s;
  for (int i = 0; i < 3; ++i) {
    const OutputBufferLimit& l = limits.classes[i];
    if (!s.empty()) s += ' ';
    s += kNames[i];
    s += ' ' + std::to_string(l.hard) + ' ' + std::to_string(l.soft) + ' ' +
         std::to_string(l.soft_seconds);
  }
  return s;
}

bool OutputLimitExceeded(const OutputBufferLimit& limit, uint64_t used, int64_t now_ms,
                         int64_t* soft_since_ms) {
  if (limit.hard > 0 && used >= static_cast<uint64_t>(limit.hard)) return true;
  if (limit.soft > 0 && used >= static_cast<uint64_t>(limit.soft)) {
    // Over the soft limit: only a stay longer than soft_seconds disconnects.
    if (*soft_since_ms == 0) {
      *soft_since_ms = now_ms;
      return false;
    }
    return now_ms - *soft_since_ms > limit.soft_seconds * 1000;
  }
  *soft_since_ms = 0;
  return false;
}

}  // namespace vireo
