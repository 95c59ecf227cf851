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
    // With folded levels the exchange fills them directly where the folds of neighbours line up (the
    // same faces, axes in flight and protocol, so the solver built above fits it too).
    const FoldedField<T>* folded = fields.solver->folded_halo_field();
    if (folded != nullptr && mpi::FoldedHaloExchange<T>::fits(config.grid.n, cart.dims())) {
      fields.folded_halo.emplace(cart, config.grid.n, *folded, x_faces_before_compute(config));
      fields.halo.reset();
    }
  }
}

template void build_subdomain_fields<float>(SubdomainFields<float>&, const RunConfig&, const mpi::CartesianComm&);
template void build_subdomain_fields<double>(SubdomainFields<double>&, const RunConfig&, const mpi::CartesianComm&);

}  // namespace wave3d::engine
