// The client side of io-threads: the jobs the execution thread hands to I/O threads
// (net/io_thread_pool.h). A job touches only its own client's connection buffers and
// look-ahead slots, never the server or another client.
#pragma once

#include <cstddef>
#include <cstdint>

#include "net/connection.h"
#include "protocol/request_parser.h"

namespace vireo {

struct Client;

// Read the socket, then parse the complete multibulk commands at the front of the input into
// the client's look-ahead slots (Client::io_parsed). Everything but `result` is filled by the
// execution thread when the event arrives.
struct IoReadJob {
  uint64_t id;  // to find the client again: an earlier command of the batch may free it
  Client* client;
  size_t room;  // Connection::Read's argument
  bool parse;   // false when the execution thread must parse (partial command, paused, ...)
  ParserLimits limits;
  Connection::ReadResult result;
};

struct IoWriteJob {
  Client* client;
  Connection::WriteResult result;
};

// The job functions for IoThreadPool::Run; ctx is the job vector's data().
void RunReadJob(void* jobs, size_t index);
void RunWriteJob(void* jobs, size_t index);

// CPUs this process may run on (sched_getaffinity), at least 1.
int UsableCpus();

}  // namespace vireo
