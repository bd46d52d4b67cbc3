// The write loop every persistence file shares.
#pragma once

#include <cstddef>

namespace vireo {

// Writes all n bytes, going on after short writes and EINTR; false with errno set otherwise.
bool WriteAll(int fd, const char* p, size_t n);

}  // namespace vireo
