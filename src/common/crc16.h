// CRC16 as the cluster specification uses it, and the key hash slot built on it.
#pragma once

#include <cstdint>
#include <string_view>

namespace vireo {

inline constexpr int kClusterSlots = 16384;

// CRC16-CCITT in the XMODEM variant (polynomial 0x1021, initial value 0, no reflection, no
// final xor): Crc16("123456789") == 0x31C3.
uint16_t Crc16(std::string_view data);

// The cluster hash slot (0..16383) of a key. When the key holds a hash tag (a '{' followed,
// later, by a '}' with at least one byte between them) only the tag is hashed, so
// "{user1}.a" and "{user1}.b" share a slot; "{}" or an unclosed '{' hash the whole key.
uint16_t KeyHashSlot(std::string_view key);

}  // namespace vireo
