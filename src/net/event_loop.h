// epoll event loop with a periodic timer. One loop per thread; not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace vireo {

// What a file descriptor's readiness calls. Plain function + object: no std::function or
// virtual call per event.
struct IoWatcher {
  void (*on_event)(void* obj, uint32_t events) = nullptr;
  void* obj = nullptr;
};

class EventLoop {
 public:
  static constexpr uint32_t kReadable = 1;
  static constexpr uint32_t kWritable = 2;

  EventLoop();
  ~EventLoop();

  // Registers or changes interest for fd; the watcher must outlive the registration.
  bool Watch(int fd, uint32_t mask, IoWatcher* watcher);
  void Unwatch(int fd);

  // Calls fn every period_ms (adjustable; the server's hz).
  void SetTimer(int64_t period_ms, std::function<void()> fn);
  void SetTimerPeriod(int64_t period_ms) { timer_period_ms_ = period_ms; }
  // Called once per loop iteration after events and the timer are handled (flushing replies).
  void SetAfterEvents(std::function<void()> fn) { after_events_ = std::move(fn); }
  // Called right after each wait's events are dispatched, before the timer (io-threads runs
  // the reads those events queued here).
  void SetAfterPoll(std::function<void()> fn) { after_poll_ = std::move(fn); }
  // Returns the longest the loop may sleep in ms (-1 = no limit): wakes it for deadlines
  // finer than the timer (blocked clients' timeouts).
  void SetWaitLimit(std::function<int64_t()> fn) { wait_limit_ = std::move(fn); }

  // Runs until Stop().
  void Run();
  // Waits up to timeout_ms for I/O and dispatches it, without the timer or after-events
  // (a busy script lets other clients in through this).
  void PollIo(int timeout_ms);
  void Stop() { stop_ = true; }

 private:
  int epfd_;
  bool stop_ = false;
  int64_t timer_period_ms_ = 100;
  int64_t next_timer_us_ = 0;
  std::function<void()> timer_;
  std::function<void()> after_poll_;
  std::function<void()> after_events_;
  std::function<int64_t()> wait_limit_;
};

}  // namespace vireo
