// User passwords as ACL stores them: SHA-256 digests in lowercase hex, never the text.
#pragma once

#include <string>
#include <string_view>

namespace vireo {

// The SHA-256 of password as 64 lowercase hex digits (OpenSSL's libcrypto).
std::string HashPassword(std::string_view password);

// True when hash is what `#<hash>` accepts: exactly 64 lowercase hex digits.
bool IsPasswordHash(std::string_view hash);

// Compares two equal-length digests in time independent of where they differ.
bool HashesEqual(std::string_view a, std::string_view b);

}  // namespace vireo
