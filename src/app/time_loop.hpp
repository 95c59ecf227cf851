#pragma once
// The time loop of a run on every rank: build the subdomain's solver, step it with the halo update,
// time every phase of every step, watch for NaN/Inf, then verify and checksum. Results combined over
// ranks come back in a RunOutcome (complete on rank 0).
#include <mpi.h>

#include "app/field_io_record.hpp"
#include "app/run_outcome.hpp"
#include "config/run_config.hpp"

namespace wave3d::app {

// field_io: where snapshots and checkpoints go (a command without a run directory passes none and
// cannot write them).
template <typename T>
RunOutcome run_time_loop(const RunConfig& config, MPI_Comm comm, const FieldIoContext& field_io = {});

}  // namespace wave3d::app
