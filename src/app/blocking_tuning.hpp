#pragma once
// blocking.size = "auto" and blocking.steps = "auto" for a run: the blocking read from the tuning
// cache on rank 0, or measured by every rank at once on its own subdomain (solver/block_tuner.hpp)
// with the slowest rank deciding, so that all ranks run the same blocks. Collective over comm.
#include <mpi.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/run_config.hpp"
#include "geometry/box.hpp"
#include "solver/block_tuner.hpp"

namespace wave3d::app {

struct TunedBlocking {
  Blocking blocking;       // what the run uses
  std::string source;      // "given" (nothing was "auto"), "measured" or "cache"
  double seconds = 0;      // spent measuring (0 from the cache)
  double budget_seconds = 0;
  std::size_t candidates = 0;  // measured
  bool budget_spent = false;   // stopped before every candidate was measured
  std::string cache_file;      // "" when blocking.cache = "off" or no home directory
  std::string notice;          // e.g. the cache could not be written; empty if none
  std::vector<TuningMeasurement> measured;  // what was measured (empty from the cache)

  std::string summary_line() const;  // for the run summary, after "tuning:"
  nlohmann::json to_json() const;
};

// The blocking `config` asks for on the subdomain `owned` (this rank's), tuned where it says "auto".
// temporal_applies: whether the run can sweep several steps at once (else steps stay 1).
// measure_anyway: ignore the cache (wave3d tune), but still update it.
template <typename T>
TunedBlocking tune_for_run(const RunConfig& config, MPI_Comm comm, const Box& owned, bool temporal_applies,
                           const TuningBudget& budget, bool measure_anyway = false);

}  // namespace wave3d::app
