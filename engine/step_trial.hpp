#pragma once
// The block tuner's trial on real steps (RealStepTimer, solver/block_tuner.hpp) for a run: each
// contender's fields and halo exchange built as the run builds them (subdomain_fields.hpp), on the
// run's ranks, stepped in the run's halo mode (with its progress thread, if it has one), timed, and
// freed before the next. The fields are the run's size (with the contender's halo depth); only one set
// exists at a time, and none once the run's own are built.
#include "config/run_config.hpp"
#include "mpi/cartesian.hpp"
#include "mpi/progress_thread.hpp"
#include "solver/block_tuner.hpp"

namespace wave3d::engine {

// A timer for contenders of a run of `config` on `cart`; both (and progress_thread, if not null) must
// outlive it. Each call is collective over cart.
template <typename T>
RealStepTimer real_step_timer(const RunConfig& config, const mpi::CartesianComm& cart,
                              mpi::ProgressThread* progress_thread);

}  // namespace wave3d::engine
