// Whether this build runs under AddressSanitizer or ThreadSanitizer (with g++ or clang), for
// code that must leave the sanitizer runtime its own allocator or its intercepted calls.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define VIREO_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define VIREO_SANITIZED 1
#endif
#endif
