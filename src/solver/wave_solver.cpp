#include "solver/wave_solver.hpp"

#include <omp.h>

#include "field/first_touch.hpp"
#include "init/initial_condition.hpp"
#include "stencil/coefficients.hpp"

namespace wave3d {

template <typename T>
WaveSolver<T>::WaveSolver(const RunConfig& config, const Box& owned)
    : config_(config),
      update_region_(intersect(owned, config.grid.updated())),
      prev_(owned, config.grid.radius),
      next_(owned, config.grid.radius),
      vel_(owned, config.grid.radius),
      kernel_(second_derivative_weights(config.grid.radius), config.blocking) {
  for (Field<T>* f : {&prev_, &next_, &vel_}) first_touch(*f, config.init_policy, config.blocking);
  apply_initial_condition(config.initial, config.grid, config.physics, config.blocking, prev_, next_, vel_);
}

template <typename T>
typename WaveSolver<T>::StepPhases WaveSolver<T>::step(const HaloUpdate& update_halo) {
  StepPhases phases;
  const double t0 = omp_get_wtime();
  update_halo(prev_);
  const double t1 = omp_get_wtime();
  kernel_.update(prev_, next_, vel_, update_region_);
  inject_source(config_.initial, config_.physics, next_, vel_, steps_done_ + 1);
  const double t2 = omp_get_wtime();
  swap(prev_, next_);
  ++steps_done_;
  phases.halo = t1 - t0;
  phases.compute = t2 - t1;
  return phases;
}

template <typename T>
std::size_t WaveSolver<T>::field_bytes() const {
  return prev_.allocated_bytes() + next_.allocated_bytes() + vel_.allocated_bytes();
}

template class WaveSolver<float>;
template class WaveSolver<double>;

}  // namespace wave3d
