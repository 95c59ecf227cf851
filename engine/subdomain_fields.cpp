#include "engine/subdomain_fields.hpp"

#include <array>

#include "mpi/collective.hpp"
#include "solver/update_regions.hpp"

namespace wave3d::engine {

void build_rank_grid(RankGrid& grid, const RunConfig& config, MPI_Comm comm, const mpi::Decomposition& decomposition) {
  const bool periodic = config.grid.boundary == Boundary::periodic;
  mpi::collectively(comm, [&] {
    grid.cart.emplace(comm, decomposition, std::array<bool, 3>{periodic, periodic, periodic});
    if (config.parallel.progress == ProgressEngine::thread) grid.progress_thread.emplace(config.parallel.progress_core);
  });
}

namespace {

// The axes whose halo messages complete before any compute, in overlap mode too: x. Its shell (R
// points at the end of every row, computed after the messages) costs the kernel several times more
// per point than the interior, more than the wait for those messages (README, "Parallel runs").
std::array<bool, 3> x_faces_before_compute(const RunConfig& config) {
  return {config.parallel.halo == HaloMode::overlap, false, false};
}

}  // namespace

namespace {

// Whether the folded levels of `solver` exchange themselves (mpi/folded_halo_exchange.hpp) rather
// than through the plain fields: where the neighbours' folds line up, for single steps and split
// tiling's exchanges of one level a radius deep (the deep halos of sweeps carry edges and corners,
// which that exchange does not). Split tiling in overlap mode computes its inside's second level up to
// 2R from the faces while the current level's z folds travel straight from the field, so the folds
// holding the R planes sent must lie within 2R of the face (not so at R = 1 with folds of 4).
template <typename T>
bool folded_levels_exchanged(const RunConfig& config, const mpi::CartesianComm& cart, const WaveSolver<T>& solver) {
  if (!solver.has_folded_levels() || !mpi::FoldedHaloExchange<T>::fits(config.grid.n, cart.dims())) return false;
  if (config.blocking.steps <= 1) return true;
  const int r = config.grid.radius, fold = FoldedField<T>::kFoldZ;
  return config.parallel.temporal_halo == TemporalHalo::split && (r + fold - 1) / fold * fold <= 2 * r;
}

}  // namespace

template <typename T>
void build_subdomain_fields(SubdomainFields<T>& fields, const RunConfig& config, const mpi::CartesianComm& cart) {
  if (config.blocking.steps > 1) {
    fields.deep_halo.emplace(cart, cart.owned(), sweep_halo_width(config), x_faces_before_compute(config));
    const FaceFlags& faces = fields.deep_halo->faces_with_neighbours();
    fields.solver.emplace(config, cart.owned(), fields.deep_halo->remote_axes(), faces);
  } else {
    fields.halo.emplace(cart, cart.owned(), config.grid.radius, first_updated_x(config.grid, cart.owned()),
                        x_faces_before_compute(config));
    fields.solver.emplace(config, cart.owned(), fields.halo->remote_axes(), fields.halo->faces_with_neighbours());
  }
  // The folded exchange has the same faces, axes in flight and protocol as the exchange the solver
  // was built with. With sweeps the deep exchange stays, for the velocity's halo at the start.
  if (folded_levels_exchanged(config, cart, *fields.solver)) {
    fields.folded_halo.emplace(cart, config.grid.n, *fields.solver->folded_halo_field(), x_faces_before_compute(config));
    fields.halo.reset();
  }
}

template void build_subdomain_fields<float>(SubdomainFields<float>&, const RunConfig&, const mpi::CartesianComm&);
template void build_subdomain_fields<double>(SubdomainFields<double>&, const RunConfig&, const mpi::CartesianComm&);

}  // namespace wave3d::engine
