#pragma once
// The one seam between wave3d and a counter library. Exactly one library backend is built, chosen by
// the CMake option WAVE3D_WITH_PAPI in counters/sources.cmake: papi_backend.cpp (PAPI) or
// no_papi_backend.cpp (nothing can be counted, and it says why). The kernel's software events stand
// behind it (software_events.hpp): what the library cannot count of them, perf_event_open counts
// (software_event_fallback.hpp). Everything above this interface is the same in both builds, so no
// other file knows whether PAPI is there.
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace wave3d::counters {

// Counts of a fixed list of events, started when the set was opened. Per-thread sets count only the
// thread that opened them and must be read by that thread.
class EventReader {
 public:
  virtual ~EventReader() = default;
  // The counts since the set was opened, one per event, in the order it was opened with; or why
  // they could not be read.
  virtual std::optional<std::string> read(std::span<long long> values) = 0;
};

// An opened set, or why it could not be opened.
struct OpenedEvents {
  std::unique_ptr<EventReader> reader;
  std::string problem;  // set when reader is null
};

// DRAM traffic counters of whole packages (uncore memory-controller events): socket-wide, counting
// every process on the package, not per thread.
struct OpenedDramEvents {
  std::unique_ptr<EventReader> reader;  // one value per name in `events`
  std::vector<std::string> events;
  double bytes_per_count = 0;  // what one count of every event moves
  std::string problem;         // set when reader is null: why there are no DRAM counters
};

// How one event can be counted, or why not.
struct EventProbe {
  std::optional<std::string> problem;  // why it cannot be counted (one line)
  std::string modes;                   // where it counts when it can: "user+kernel", or "user" only
  std::string counted_by;              // what counts it when it can: "PAPI", "perf_event_open"
};

class CounterBackend {
 public:
  virtual ~CounterBackend() = default;

  // "PAPI 7.0.0.0"; "none" when nothing is built in.
  virtual std::string library() const = 0;
  // Why nothing at all can be counted in this process (not built in, the library failed to start).
  virtual std::optional<std::string> unavailable_reason() const = 0;

  // On the calling thread: which of `names` one thread can count at the same time. Every event is
  // tried in order and kept when it can be added to, and started together with, the events kept
  // before it; in user and kernel mode where permitted, else in user mode. One entry per name.
  virtual std::vector<EventProbe> probe(std::span<const std::string> names) = 0;

  // Opens and starts `names` (all kept by the last probe()) for the calling thread only, each in the
  // modes the probe found. Safe to call from several threads at once.
  virtual OpenedEvents open_for_this_thread(std::span<const std::string> names) = 0;

  // Opens and starts the DRAM read and write counters of the packages whose first CPU (OS index)
  // is listed.
  virtual OpenedDramEvents open_dram(std::span<const int> package_cpus) = 0;
};

// The counter library this build was made with, alone.
std::unique_ptr<CounterBackend> make_library_backend();

// What wave3d counts with: the library, and the kernel's software events where it cannot count them.
std::unique_ptr<CounterBackend> make_counter_backend();

}  // namespace wave3d::counters
