#pragma once
// The time the kernel spends on each level of temporally blocked sweeps, summed over the threads that
// computed it, and the points it computed there. Level 1 of a sweep reads its planes from memory as a
// single step does; the later levels read what the level below has just computed, from the caches.
// Their time per point tells how much deeper sweeps could still gain on a node: a sweep of T levels
// takes (t_1 + (T - 1) t_later) per point, so T -> infinity approaches t_later.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace wave3d {

class SweepLevelTimes {
 public:
  // `seconds` of one thread's kernel time on `points` points of `level` (1-based).
  void add(int level, double seconds, std::int64_t points) {
    const auto at = static_cast<std::size_t>(level - 1);
    if (seconds_.size() <= at) {
      seconds_.resize(at + 1, 0.0);
      points_.resize(at + 1, 0);
    }
    seconds_[at] += seconds;
    points_[at] += points;
  }
  void merge(const SweepLevelTimes& other) {
    for (std::size_t i = 0; i < other.seconds_.size(); ++i)
      add(static_cast<int>(i) + 1, other.seconds_[i], other.points_[i]);
  }
  void clear() {
    seconds_.clear();
    points_.clear();
  }
  int levels() const { return static_cast<int>(seconds_.size()); }
  double thread_seconds(int level) const { return seconds_.at(static_cast<std::size_t>(level - 1)); }
  std::int64_t points(int level) const { return points_.at(static_cast<std::size_t>(level - 1)); }
  // Thread time per point of `level`, and of the levels from `first` to `last` together (0 where they
  // computed nothing).
  double seconds_per_point(int level) const { return seconds_per_point(level, level); }
  double seconds_per_point(int first, int last) const {
    double seconds = 0;
    std::int64_t points = 0;
    for (int level = std::max(first, 1); level <= std::min(last, levels()); ++level) {
      seconds += thread_seconds(level);
      points += this->points(level);
    }
    return points > 0 ? seconds / static_cast<double>(points) : 0.0;
  }

 private:
  std::vector<double> seconds_;       // [level - 1]
  std::vector<std::int64_t> points_;  // [level - 1]
};

}  // namespace wave3d
