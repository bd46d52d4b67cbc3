// Writing an AOF base: the dataset as an RDB (aof-use-rdb-preamble, with the aof-base aux
// field) or as commands, in the background. StartBaseWrite is the one place that decides
// how the background copy is made (a forked child today, as BGSAVE does); a fork-less
// snapshot can take its place without the AOF code changing.
#pragma once

#include <sys/types.h>

#include <string>

namespace vireo {

class Server;

// Writes the dataset to fd as a base file; false with *error on a write error.
bool WriteAofBase(Server& server, int fd, bool rdb_preamble, std::string* error);

// Writes the dataset as it is now to path (temp file, fsynced; the caller renames it),
// in the background. *job identifies it for PollBaseWrite / CancelBaseWrite.
bool StartBaseWrite(Server& server, const std::string& path, bool rdb_preamble, pid_t* job,
                    std::string* error);
enum class BaseWriteStatus { kRunning, kDone, kFailed };
BaseWriteStatus PollBaseWrite(pid_t job);
void CancelBaseWrite(pid_t job);

}  // namespace vireo
