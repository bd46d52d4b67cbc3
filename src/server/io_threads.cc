#include "server/io_threads.h"

#include <sched.h>

#include "server/client.h"

namespace vireo {

void RunReadJob(void* jobs, size_t index) {
  IoReadJob& job = static_cast<IoReadJob*>(jobs)[index];
  Client* c = job.client;
  job.result = c->conn.Read(job.room);
  if (job.result != Connection::ReadResult::kData || !job.parse) return;
  // The same rules as Server::ProcessInput's look-ahead: complete multibulk commands only,
  // with a parser of our own (the client's is left alone), stopping at anything else; the
  // execution thread's parser takes over from there.
  const char* data = c->conn.InputData();
  const size_t size = c->conn.InputSize();
  RequestParser parser;
  size_t off = 0;
  size_t n = 0;
  bool stopped = false;
  while (n < Client::kLookAhead && off < size) {
    if (data[off] != '*' || parser.Parse(data + off, size - off, job.limits, &c->io_parsed_bytes[n],
                                         &c->ahead[n]) != RequestParser::Result::kCommand) {
      stopped = true;
      break;
    }
    off += c->io_parsed_bytes[n];
    ++n;
  }
  c->io_parsed = static_cast<uint8_t>(n);
  c->io_parse_stopped = stopped;
  c->io_hashed = false;
}

void RunWriteJob(void* jobs, size_t index) {
  IoWriteJob& job = static_cast<IoWriteJob*>(jobs)[index];
  job.result = job.client->conn.Flush();
}

int UsableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  int n = CPU_COUNT(&set);
  return n > 0 ? n : 1;
}

}  // namespace vireo
