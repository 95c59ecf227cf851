#pragma once
// The event counters of a run on every rank: per-region, per-thread counts (counters/RegionCounters)
// and, on one rank per node, the node's DRAM traffic over the time loop; set up collectively, combined
// on rank 0. What cannot be counted is said once for the job, and the run goes on.
#include <mpi.h>

#include <memory>

#include "config/run_config.hpp"
#include "counters/counter_backend.hpp"
#include "counters/dram_counter.hpp"
#include "counters/job_counters.hpp"
#include "counters/region_counters.hpp"

namespace wave3d::engine {

class RunCounters {
 public:
  // Collective over comm; rank 0 prints the notices about events that cannot be counted (stderr).
  // Opens one event set per thread of the current OpenMP team size.
  RunCounters(const CounterSettings& settings, MPI_Comm comm);
  ~RunCounters();
  RunCounters(const RunCounters&) = delete;
  RunCounters& operator=(const RunCounters&) = delete;

  // The region boundaries inside a step are the step driver's; null when nothing is counted.
  counters::RegionCounters* regions() { return regions_ && regions_->counting() ? regions_.get() : nullptr; }
  void begin_step();
  void end_step();
  // The DRAM measurement window: the time loop.
  void start_loop();
  void stop_loop();

  // Collective: the job's counters, complete on rank 0.
  counters::JobCounters gather(MPI_Comm comm, int steps, double seconds) const;

 private:
  counters::RankReport report() const;

  bool enabled_ = false;
  std::unique_ptr<counters::CounterBackend> backend_;
  std::unique_ptr<counters::RegionCounters> regions_;
  std::unique_ptr<counters::DramCounter> dram_;  // on the first rank of each node
};

}  // namespace wave3d::engine
