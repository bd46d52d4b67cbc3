// Glob matching with Valkey's rules (KEYS, SCAN MATCH, CONFIG GET, PSUBSCRIBE).
#pragma once

#include <string_view>

namespace vireo {

// '*' any run, '?' one byte, '[abc]' '[^a]' '[a-z]' classes, '\x' escapes x.
// nocase folds ASCII case. Matches the whole string; never recurses without bound.
bool GlobMatch(std::string_view pattern, std::string_view str, bool nocase = false);

}  // namespace vireo
