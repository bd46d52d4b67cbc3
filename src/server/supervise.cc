#include "server/supervise.h"

#include <signal.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/log.h"

namespace vireo {
namespace {

enum class Mode { kNo, kUpstart, kSystemd };
Mode g_mode = Mode::kNo;

// Each message goes to the socket named now: systemd may have a unit move it (it never does
// today), and Valkey looks it up on every message too.
void Notify(const std::string& message) {
  const char* path = getenv("NOTIFY_SOCKET");
  if (path == nullptr || path[0] == '\0') {
    LogWarning("systemd supervision error: NOTIFY_SOCKET not found!");
    return;
  }
  std::string error;
  if (!SendNotify(path, message, &error)) {
    LogWarning("systemd supervision error: %s", error.c_str());
  }
}

}  // namespace

bool SendNotify(const std::string& socket_path, const std::string& message, std::string* error) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() < 2 || (socket_path[0] != '/' && socket_path[0] != '@') ||
      socket_path.size() >= sizeof(addr.sun_path)) {
    *error = "NOTIFY_SOCKET is not a usable socket path: " + socket_path;
    return false;
  }
  memcpy(addr.sun_path, socket_path.data(), socket_path.size());
  socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + socket_path.size());
  if (socket_path[0] == '@') {
    addr.sun_path[0] = '\0';  // abstract: the name is the bytes after the NUL, unterminated
  } else {
    ++len;  // a path's length includes its terminating NUL
  }
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = std::string("Can't create socket: ") + strerror(errno);
    return false;
  }
  ssize_t n = sendto(fd, message.data(), message.size(), MSG_NOSIGNAL,
                     reinterpret_cast<const sockaddr*>(&addr), len);
  const int saved = errno;
  close(fd);
  if (n != static_cast<ssize_t>(message.size())) {
    *error = std::string("Can't send notification to systemd: ") + strerror(saved);
    return false;
  }
  return true;
}

void StartSupervision(const std::string& mode) {
  const char* notify = getenv("NOTIFY_SOCKET");
  const bool has_notify = notify != nullptr && notify[0] != '\0';
  const char* job = getenv("UPSTART_JOB");
  if (job != nullptr && job[0] == '\0') job = nullptr;
  if (mode == "systemd" || (mode == "auto" && has_notify)) {
    g_mode = Mode::kSystemd;
    if (has_notify) {
      LogNotice(
          "Supervised by systemd. Please make sure you set appropriate values for "
          "TimeoutStartSec and TimeoutStopSec in your service unit.");
    } else {
      LogWarning("systemd supervision error: NOTIFY_SOCKET not found!");
    }
  } else if (mode == "upstart" || (mode == "auto" && job != nullptr)) {
    if (job == nullptr) {
      LogWarning("upstart supervision requested, but UPSTART_JOB not found!");
      return;
    }
    g_mode = Mode::kUpstart;
    LogNotice("supervised by upstart, will stop to signal readiness.");
  }
}

const char* SupervisionName() {
  switch (g_mode) {
    case Mode::kSystemd:
      return "systemd";
    case Mode::kUpstart:
      return "upstart";
    default:
      return "no";
  }
}

void SupervisorStatus(const std::string& status) {
  if (g_mode == Mode::kSystemd) Notify("STATUS=" + status + "\n");
}

void SupervisorReady() {
  if (g_mode == Mode::kSystemd) {
    Notify("STATUS=Ready to accept connections\n");
    Notify("READY=1\n");
  } else if (g_mode == Mode::kUpstart) {
    // upstart's `expect stop`: the job is started once the process stops itself; children
    // (BGSAVE) must not see the variable.
    unsetenv("UPSTART_JOB");
    raise(SIGSTOP);
  }
}

void SupervisorStopping() {
  if (g_mode == Mode::kSystemd) Notify("STOPPING=1\n");
}

}  // namespace vireo
