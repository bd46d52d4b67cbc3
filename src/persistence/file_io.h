// The write loop every persistence file shares.
#pragma once

#include <cstddef>
#include <string>

namespace vireo {

// Writes all n bytes, going on after short writes and EINTR; false with errno set otherwise.
bool WriteAll(int fd, const char* p, size_t n);

// Replaces path with text so that a crash leaves the old or the new file, never a mix: a
// temp file beside it, fsync, rename, fsync of the directory. False with *error otherwise.
// durable = false skips both fsyncs (a process crash still sees old or new; a power loss may
// not): for files rewritten very often, such as nodes.conf on every CLUSTER SETSLOT.
bool WriteFileAtomically(const std::string& path, const std::string& text, std::string* error,
                         bool durable = true);

}  // namespace vireo
