#include "engine/subdomain_fields.hpp"

namespace wave3d::engine {

template <typename T>
void build_subdomain_fields(SubdomainFields<T>& fields, const RunConfig& config, const mpi::CartesianComm& cart) {
  if (config.blocking.steps > 1) {
    fields.deep_halo.emplace(cart, cart.owned(), config.blocking.steps * config.grid.radius);
    const FaceFlags& faces = fields.deep_halo->faces_with_neighbours();
    fields.solver.emplace(config, cart.owned(), axes_of(faces), faces);
  } else {
    fields.halo.emplace(cart, cart.owned(), config.grid.radius);
    fields.solver.emplace(config, cart.owned(), fields.halo->remote_axes());
  }
}

template void build_subdomain_fields<float>(SubdomainFields<float>&, const RunConfig&, const mpi::CartesianComm&);
template void build_subdomain_fields<double>(SubdomainFields<double>&, const RunConfig&, const mpi::CartesianComm&);

}  // namespace wave3d::engine
