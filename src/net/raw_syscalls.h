// The event loop's socket system calls without glibc's cancellation wrapper. recv, recvmsg,
// send, sendmsg and epoll_wait are cancellation points: once the process has a second thread
// (jemalloc's background purger, the I/O threads, lazy free), glibc enables and then disables
// asynchronous cancellation around every call, some twenty instructions each, on the path of
// every pipeline. Vireo never cancels a thread, so these enter the kernel directly (syscall(2),
// same results and errno). Sanitizer builds keep the libc calls, which their runtimes watch.
#pragma once

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <csignal>

#include "common/sanitizers.h"

#ifdef VIREO_SANITIZED
#define VIREO_LIBC_SOCKET_CALLS 1
#endif

namespace vireo {

inline ssize_t RawRecv(int fd, void* buf, size_t n, int flags) {
#ifdef VIREO_LIBC_SOCKET_CALLS
  return recv(fd, buf, n, flags);
#else
  return syscall(SYS_recvfrom, fd, buf, n, flags, nullptr, nullptr);
#endif
}

inline ssize_t RawSend(int fd, const void* buf, size_t n, int flags) {
#ifdef VIREO_LIBC_SOCKET_CALLS
  return send(fd, buf, n, flags);
#else
  return syscall(SYS_sendto, fd, buf, n, flags, nullptr, 0);
#endif
}

inline ssize_t RawSendmsg(int fd, const msghdr* msg, int flags) {
#ifdef VIREO_LIBC_SOCKET_CALLS
  return sendmsg(fd, msg, flags);
#else
  return syscall(SYS_sendmsg, fd, msg, flags);
#endif
}

inline ssize_t RawRecvmsg(int fd, msghdr* msg, int flags) {
#ifdef VIREO_LIBC_SOCKET_CALLS
  return recvmsg(fd, msg, flags);
#else
  return syscall(SYS_recvmsg, fd, msg, flags);
#endif
}

// epoll_pwait with no signal mask is epoll_wait (which 64-bit ARM does not have).
inline int RawEpollWait(int epfd, epoll_event* events, int max, int timeout_ms) {
#ifdef VIREO_LIBC_SOCKET_CALLS
  return epoll_wait(epfd, events, max, timeout_ms);
#else
  return static_cast<int>(syscall(SYS_epoll_pwait, epfd, events, max, timeout_ms, nullptr,
                                  _NSIG / 8));
#endif
}

}  // namespace vireo
