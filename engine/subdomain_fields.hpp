#pragma once
// One rank's fields and the halo exchange that fills them, built as a run of a config builds them: one
// step per sweep exchanges an R-deep halo every step (halo); several (temporal blocking,
// blocking.steps > 1) exchange both time levels blocking.steps x R deep once per sweep (deep_halo).
// The run builds them once; the tuner's trial on real steps (step_trial.hpp) once per contender.
#include <optional>

#include "config/run_config.hpp"
#include "engine/step_driver.hpp"
#include "mpi/cartesian.hpp"
#include "mpi/deep_halo_exchange.hpp"
#include "mpi/halo_exchange.hpp"
#include "mpi/progress_thread.hpp"
#include "solver/wave_solver.hpp"

namespace wave3d::engine {

template <typename T>
struct SubdomainFields {
  std::optional<WaveSolver<T>> solver;
  std::optional<mpi::HaloExchange<T>> halo;
  std::optional<mpi::DeepHaloExchange<T>> deep_halo;

  bool sweeping() const { return deep_halo.has_value(); }
  // The driver of their steps in the halo mode of `parallel` (collective with sweeps: it exchanges
  // the velocity's halo). progress_thread: as StepDriver.
  StepDriver<T> driver(const ParallelSettings& parallel, mpi::ProgressThread* progress_thread) {
    return StepDriver<T>(parallel, *solver, halo ? &*halo : nullptr, deep_halo ? &*deep_halo : nullptr,
                         progress_thread);
  }
};

// Builds `fields` for `config` (which must outlive them: the solver keeps it) on this rank's subdomain
// of `cart`. Collective over cart.
template <typename T>
void build_subdomain_fields(SubdomainFields<T>& fields, const RunConfig& config, const mpi::CartesianComm& cart);

}  // namespace wave3d::engine
