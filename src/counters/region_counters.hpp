#pragma once
// Event counts of one rank per region of the time step (compute, halo, whole step) and per OpenMP
// thread.
//
// How counts are attributed. Every thread of the team opens its own event set once (PAPI sets count
// only the thread that opened them, and only that thread may read them) and the sets run for the whole
// loop. At each region boundary the driver calls one of begin_step / end_of / end_step from outside
// any parallel region; that opens one short parallel region of the same team in which every thread
// reads its own counters and adds the difference to the previous reading to the region just ended, in
// its own cache-line-padded slot. So a region gets everything its threads did between the two
// readings: in compute, thread 0's polling of messages between blocks (progress = "poll"); in halo,
// the OpenMP threads idling while thread 0 waits in MPI. The step region runs from begin_step to
// end_step and holds what lies between the regions too (source term, swap, NaN check). The MPI
// progress thread is not an OpenMP thread and is not counted. Each boundary costs one parallel region
// and one counter read per thread (a few microseconds); when nothing is counted it costs a branch.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "counters/counter_backend.hpp"
#include "counters/event_list.hpp"

namespace wave3d::counters {

enum class Region : std::size_t { compute, halo, step };
inline constexpr std::size_t kRegionCount = 3;
inline constexpr std::array<std::string_view, kRegionCount> kRegionNames{"compute", "halo", "step"};
using RegionCounts = std::array<long long, kRegionCount>;

// One event on one rank: why it was not counted, or its counts per thread.
struct EventCounts {
  std::string name;
  std::optional<std::string> problem;
  std::vector<RegionCounts> per_thread;  // one per thread of the team; empty when problem is set
  std::string modes;                     // "user+kernel" or "user" when counted
  std::string counted_by;                // "PAPI", "perf_event_open" when counted
};

// Everything one rank counted.
struct RankCounts {
  std::string library;                     // "PAPI 7.0.0.0, perf_event_open", "perf_event_open"
  std::optional<std::string> unavailable;  // why nothing at all was counted
  int threads = 0;
  std::vector<EventCounts> events;  // in the order asked for
};

class RegionCounters {
 public:
  // Tries `events` on the calling thread (backend.probe), then opens the kept ones on every thread of
  // a team of `threads`. Events that cannot be counted are recorded with the reason; nothing here
  // throws for an unavailable event.
  RegionCounters(CounterBackend& backend, std::vector<std::string> events, int threads);
  ~RegionCounters();
  RegionCounters(const RegionCounters&) = delete;
  RegionCounters& operator=(const RegionCounters&) = delete;

  // True when at least one event is being counted on every thread.
  bool counting() const { return counting_; }

  // Region boundaries; call from outside parallel regions, on the thread that runs the time loop.
  void begin_step();
  void end_of(Region region);  // compute or halo: counts since the previous boundary go to `region`
  void end_step();

  // What was counted so far (right after construction: which events are counted and why not).
  RankCounts counts() const;

 private:
  // One thread's counters. Padded to whole cache lines so no two threads ever write the same line.
  struct alignas(64) ThreadSlot {
    std::unique_ptr<EventReader> reader;
    std::thread::id owner;
    std::array<long long, kMaxEvents> now{}, last{}, step_start{};
    std::array<RegionCounts, kMaxEvents> totals{};
    std::optional<std::string> problem;  // set when this thread's counters failed; it stops counting
  };
  enum class Boundary { begin_step, end_region, end_step };

  void at_boundary(Boundary boundary, Region region);
  void close_readers();
  bool read_own(ThreadSlot& slot) const;
  std::optional<std::string> thread_problem() const;

  std::string library_;
  std::optional<std::string> unavailable_;
  std::vector<std::string> names_;
  std::vector<EventProbe> probes_;                    // per event in names_
  std::vector<std::size_t> kept_;                     // indices into names_ of the events each thread counts
  int threads_ = 0;
  std::vector<ThreadSlot> slots_;
  std::optional<std::string> team_problem_;  // written by thread 0 of a boundary's team only
  bool counting_ = false;
};

}  // namespace wave3d::counters
