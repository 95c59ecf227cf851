#pragma once
// What a run of a config builds on its ranks, shared by the run and by the tuner's trial on real
// steps (step_trial.hpp): the ranks' Cartesian grid with the progress thread of the halo mode, built
// once (RankGrid); and one rank's fields with the halo exchange that fills them (SubdomainFields),
// built once by the run and once per contender by the trial. One step per sweep exchanges an R-deep
// halo every step (halo); several (temporal blocking, blocking.steps > 1) exchange both time levels
// blocking.steps x R deep once per sweep, or with split tiling one level R deep before each level
// (deep_halo, as deep as the first needs).
#include <mpi.h>

#include <optional>

#include "config/run_config.hpp"
#include "engine/step_driver.hpp"
#include "mpi/cartesian.hpp"
#include "mpi/deep_halo_exchange.hpp"
#include "mpi/folded_halo_exchange.hpp"
#include "mpi/halo_exchange.hpp"
#include "mpi/progress_thread.hpp"
#include "solver/wave_solver.hpp"

namespace wave3d::engine {

struct RankGrid {
  std::optional<mpi::CartesianComm> cart;
  std::optional<mpi::ProgressThread> progress_thread;  // with parallel.progress = "thread" only

  mpi::ProgressThread* progress() { return progress_thread ? &*progress_thread : nullptr; }
};

// Builds `grid` for `config` over the ranks of `comm` cut as `decomposition` (periodic axes where
// grid.boundary is periodic). Collective over comm: an error on any rank is reported on all.
void build_rank_grid(RankGrid& grid, const RunConfig& config, MPI_Comm comm, const mpi::Decomposition& decomposition);

template <typename T>
struct SubdomainFields {
  std::optional<WaveSolver<T>> solver;
  std::optional<mpi::HaloExchange<T>> halo;
  std::optional<mpi::FoldedHaloExchange<T>> folded_halo;  // instead of halo where the folds line up
  std::optional<mpi::DeepHaloExchange<T>> deep_halo;

  bool sweeping() const { return deep_halo.has_value(); }
  // The driver of their steps in the halo mode of `parallel` (collective with sweeps: it exchanges
  // the velocity's halo). progress_thread: as StepDriver.
  StepDriver<T> driver(const ParallelSettings& parallel, mpi::ProgressThread* progress_thread) {
    return StepDriver<T>(parallel, *solver, halo ? &*halo : nullptr, folded_halo ? &*folded_halo : nullptr,
                         deep_halo ? &*deep_halo : nullptr, progress_thread);
  }
};

// Builds `fields` for `config` (which must outlive them: the solver keeps it) on this rank's subdomain
// of `cart`. Collective over cart.
template <typename T>
void build_subdomain_fields(SubdomainFields<T>& fields, const RunConfig& config, const mpi::CartesianComm& cart);

}  // namespace wave3d::engine
