#pragma once
// DRAM traffic of this machine's packages, from the memory controllers' uncore events, over a window
// (the time loop). Uncore counters see the whole package, every process on it included, so one rank
// per node measures. Where the machine exposes no such events it says why; it never estimates.
#include <optional>
#include <string>
#include <vector>

#include "counters/counter_backend.hpp"

namespace wave3d::counters {

struct DramCounts {
  std::optional<std::string> problem;  // why nothing was measured
  double bytes = 0;                    // read + written, over the window, all packages of the node
  std::vector<std::string> events;     // the events summed
};

class DramCounter {
 public:
  // Opens the DRAM events on the first CPU of every package of this machine (hwloc).
  explicit DramCounter(CounterBackend& backend);

  void start();  // the beginning of the window
  void stop();   // its end
  DramCounts counts() const;

 private:
  std::optional<std::string> read(std::vector<long long>& values);

  OpenedDramEvents opened_;
  std::vector<long long> at_start_, at_stop_;
  std::optional<std::string> problem_;
  bool stopped_ = false;
};

// The OS index of the first CPU of every package (socket) of this machine.
std::vector<int> first_cpu_of_each_package();

}  // namespace wave3d::counters
