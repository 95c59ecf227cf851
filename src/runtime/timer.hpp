#pragma once
// Wall-clock timing on the monotonic clock. steady_clock never jumps when NTP or an administrator
// adjusts the system time, so a difference of two readings is always a true duration.
#include <chrono>

namespace wave3d {

using MonotonicClock = std::chrono::steady_clock;

inline double seconds_between(MonotonicClock::time_point from, MonotonicClock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

class Timer {
 public:
  Timer() : start_(MonotonicClock::now()) {}

  void restart() { start_ = MonotonicClock::now(); }
  double seconds() const { return seconds_between(start_, MonotonicClock::now()); }

  // Seconds since the start, then restart from the same reading, so consecutive phases timed with
  // lap() cover the interval without gaps or double counting.
  double lap() {
    const auto now = MonotonicClock::now();
    const double elapsed = seconds_between(start_, now);
    start_ = now;
    return elapsed;
  }

  MonotonicClock::time_point started() const { return start_; }

 private:
  MonotonicClock::time_point start_;
};

}  // namespace wave3d
