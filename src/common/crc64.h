// CRC64 as the RDB format uses it (RDB checksum, DUMP payload footer): the Jones polynomial
// 0xad93d23594c935a9, reflected input and output, initial value 0, no final xor.
// Crc64(0, "123456789") == 0xe9c6d914c4b8d9ca.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vireo {

// Continues crc over len bytes (start with 0); chaining calls equals one call over the whole.
uint64_t Crc64(uint64_t crc, const void* data, size_t len);

}  // namespace vireo
