// Random identifiers from the kernel's generator: run IDs, replication IDs.
#pragma once

#include <cstddef>
#include <string>

namespace vireo {

// n lowercase hex digits.
std::string RandomHex(size_t n);

}  // namespace vireo
