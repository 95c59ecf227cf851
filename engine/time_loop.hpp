#pragma once
// The time loop of a run on every rank: build the subdomain's solver, step it with the halo update,
// time every phase of every step, watch for NaN/Inf, then verify and checksum. Results combined over
// ranks come back in a RunOutcome (complete on rank 0).
#include <mpi.h>

#include <cstdint>
#include <functional>

#include "engine/field_io_record.hpp"
#include "engine/run_outcome.hpp"
#include "config/run_config.hpp"

namespace wave3d::mpi {
class ProgressThread;
}

namespace wave3d::engine {

// What is in place once the fields are allocated and the threads started, just before the first step.
struct LoopSetup {
  mpi::ProgressThread* progress_thread = nullptr;  // null without one
  std::int64_t work_blocks = 0;  // cache blocks each sweep of the kernel hands out to this rank's threads
};
// Called collectively on every rank before the first step (the binding audit and the header); it may
// end the run by throwing mpi::CollectiveError. Memory it uses and frees again (the bench's STREAM
// arrays) is not counted in the run's peak RSS.
using BeforeLoop = std::function<void(const LoopSetup&)>;

// field_io: where snapshots and checkpoints go (a command without a run directory passes none and
// cannot write them).
template <typename T>
RunOutcome run_time_loop(const RunConfig& config, MPI_Comm comm, const FieldIoContext& field_io = {},
                         const BeforeLoop& before_loop = {});

}  // namespace wave3d::engine
