#include "net/event_loop.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>

#include "common/clock.h"
#include "net/raw_syscalls.h"

namespace vireo {

EventLoop::EventLoop() : epfd_(epoll_create1(EPOLL_CLOEXEC)) {}

EventLoop::~EventLoop() {
  if (epfd_ >= 0) close(epfd_);
}

bool EventLoop::Watch(int fd, uint32_t mask, IoWatcher* watcher) {
  struct epoll_event ev = {};
  if (mask & kReadable) ev.events |= EPOLLIN;
  if (mask & kWritable) ev.events |= EPOLLOUT;
  ev.data.ptr = watcher;
  if (epoll_ctl(epfd_, EPOLL_CTL_MOD, fd, &ev) == 0) return true;
  if (errno == ENOENT) return epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) == 0;
  return false;
}

void EventLoop::Unwatch(int fd) { epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr); }

void EventLoop::SetTimer(int64_t period_ms, std::function<void()> fn) {
  timer_period_ms_ = period_ms;
  timer_ = std::move(fn);
  next_timer_us_ = MonotonicUs() + period_ms * 1000;
}

void EventLoop::PollIo(int timeout_ms) {
  constexpr int kMaxEvents = 256;
  struct epoll_event events[kMaxEvents];
  int n = RawEpollWait(epfd_, events, kMaxEvents, timeout_ms);
  for (int i = 0; i < n; ++i) {
    auto* w = static_cast<IoWatcher*>(events[i].data.ptr);
    uint32_t mask = 0;
    if (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) mask |= kReadable;
    if (events[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) mask |= kWritable;
    w->on_event(w->obj, mask);
  }
}

void EventLoop::Run() {
  while (!stop_) {
    int timeout_ms = -1;
    if (timer_) {
      int64_t wait_us = next_timer_us_ - MonotonicUs();
      timeout_ms = wait_us <= 0 ? 0 : static_cast<int>((wait_us + 999) / 1000);
    }
    if (wait_limit_) {
      int64_t limit = wait_limit_();
      if (limit >= 0 && (timeout_ms < 0 || limit < timeout_ms)) timeout_ms = static_cast<int>(limit);
    }
    PollIo(timeout_ms);
    if (after_poll_) after_poll_();
    // The timer runs before after_events_ so replies it produces (clients resumed when a
    // pause ends) go out in this turn, not after the next epoll_wait.
    if (timer_ && MonotonicUs() >= next_timer_us_) {
      timer_();
      int64_t period = timer_period_ms_ > 0 ? timer_period_ms_ : 1;
      next_timer_us_ = MonotonicUs() + period * 1000;
    }
    if (after_events_) after_events_();
  }
}

}  // namespace vireo
