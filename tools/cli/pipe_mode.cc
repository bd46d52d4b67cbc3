// --pipe: mass insertion of a RESP stream read from stdin.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>

#include "cli/modes.h"

namespace vireo::cli {
namespace {

using tools::Reply;

// Bytes written per writable event before going back to read replies, so a fast producer
// cannot starve reply reading (the server would stop reading us once its output fills).
constexpr size_t kWriteLoopMaxBytes = 128 * 1024;
constexpr size_t kMarkerLength = 20;

}  // namespace

int RunPipeMode(Session* session) {
  tools::Connection& conn = session->connection();
  if (!conn.SetNonBlocking()) {
    fprintf(stderr, "Can't set the socket in non blocking mode: %s\n", strerror(errno));
    return 1;
  }
  const int fd = conn.fd();
  const int timeout_s = session->options().pipe_timeout_s;

  // stdin is read in fixed chunks and sent as it comes: the input is never held whole.
  char obuf[16 * 1024];
  size_t obuf_len = 0, obuf_pos = 0;
  bool eof = false, done = false;
  long long errors = 0, replies = 0;
  std::string marker;
  time_t last_read_time = time(nullptr);
  std::mt19937 rng(static_cast<unsigned>(time(nullptr)) ^ static_cast<unsigned>(getpid()));

  while (!done) {
    pollfd pfd{fd, POLLIN, 0};
    if (!eof || obuf_len != 0) pfd.events |= POLLOUT;
    int rc = poll(&pfd, 1, 1000);
    if (rc < 0 && errno != EINTR) {
      fprintf(stderr, "Error polling the server: %s\n", strerror(errno));
      return 1;
    }
    if (rc > 0 && (pfd.revents & (POLLIN | POLLHUP | POLLERR))) {
      const bool read_error = !conn.ReadAvailable();
      // Consume every complete reply even after a read error, so the user sees the server's
      // last words.
      for (;;) {
        Reply reply;
        bool failed = false;
        if (!conn.TakeBufferedReply(&reply, &failed)) {
          if (failed) {
            fprintf(stderr, "Error reading replies from server\n");
            return 1;
          }
          break;
        }
        last_read_time = time(nullptr);
        if (reply.type == Reply::Type::kError) {
          fprintf(stderr, "%s\n", reply.str.c_str());
          ++errors;
        } else if (eof && reply.type == Reply::Type::kString && reply.str == marker) {
          printf("Last reply received from server.\n");
          done = true;
          --replies;
        }
        ++replies;
      }
      if (read_error) return 1;
    }
    if (rc > 0 && (pfd.revents & POLLOUT)) {
      size_t loop_written = 0;
      for (;;) {
        if (obuf_len != 0) {
          ssize_t n = conn.RawSend(obuf + obuf_pos, obuf_len);
          if (n < 0) {
            if (errno != EAGAIN && errno != EINTR) {
              fprintf(stderr, "Error writing to the server: %s\n", strerror(errno));
              return 1;
            }
            n = 0;
          }
          obuf_len -= static_cast<size_t>(n);
          obuf_pos += static_cast<size_t>(n);
          loop_written += static_cast<size_t>(n);
          if (obuf_len != 0) break;  // the socket is full
        }
        if (obuf_len == 0 && !eof) {
          ssize_t n = read(STDIN_FILENO, obuf, sizeof(obuf));
          if (n == 0) {
            // All input sent: queue an ECHO of a random marker; its reply proves every earlier
            // reply has arrived. The leading CRLF keeps the ECHO well-formed after garbage
            // input (the server ignores empty lines).
            eof = true;
            marker.clear();
            for (size_t i = 0; i < kMarkerLength; ++i) marker.push_back(static_cast<char>(rng()));
            std::string echo = "\r\n*2\r\n$4\r\nECHO\r\n$20\r\n" + marker + "\r\n";
            memcpy(obuf, echo.data(), echo.size());
            obuf_len = echo.size();
            obuf_pos = 0;
            printf("All data transferred. Waiting for the last reply...\n");
          } else if (n < 0) {
            if (errno == EINTR) continue;
            fprintf(stderr, "Error reading from stdin: %s\n", strerror(errno));
            return 1;
          } else {
            obuf_len = static_cast<size_t>(n);
            obuf_pos = 0;
          }
        }
        if ((obuf_len == 0 && eof) || loop_written > kWriteLoopMaxBytes) break;
      }
    }
    if (eof && timeout_s > 0 && time(nullptr) - last_read_time > timeout_s) {
      fprintf(stderr, "No replies for %d seconds: exiting.\n", timeout_s);
      ++errors;
      break;
    }
  }
  printf("errors: %lld, replies: %lld\n", errors, replies);
  return errors != 0 ? 1 : 0;
}

}  // namespace vireo::cli
