#include "solver/wave_solver.hpp"

#include <optional>

#include "field/first_touch.hpp"
#include "field/memory_placement.hpp"
#include "init/initial_condition.hpp"
#include "stencil/coefficients.hpp"

namespace wave3d {

namespace {

Box shrunk_along(Box b, std::int64_t width, const std::array<bool, 3>& axes) {
  for (int a = 0; a < 3; ++a)
    if (axes[a]) {
      b.lo[a] += width;
      b.hi[a] -= width;
    }
  return b;
}

}  // namespace

template <typename T>
WaveSolver<T>::WaveSolver(const RunConfig& config, const Box& owned, std::array<bool, 3> halo_in_flight)
    : config_(config),
      update_region_(intersect(owned, config.grid.updated())),
      interior_region_(intersect(update_region_, shrunk_along(owned, config.grid.radius, halo_in_flight))),
      shell_regions_(boxes_outside(update_region_, interior_region_)),
      prev_(owned, config.grid.radius),
      next_(owned, config.grid.radius),
      vel_(owned, config.grid.radius),
      kernel_(second_derivative_weights(config.grid.radius), config.blocking) {
  // The policy must be set before the first write: Linux places a page when it is first touched.
  std::optional<HwlocTopology> topology;
  if (config.memory.policy == MemoryPolicy::interleave || config.memory.policy == MemoryPolicy::node) {
    topology.emplace();
    for (Field<T>* f : {&prev_, &next_, &vel_})
      if (auto notice = place_field(*f, config.memory, *topology)) placement_notices_.push_back(*notice);
  }
  for (Field<T>* f : {&prev_, &next_, &vel_}) first_touch(*f, touch_order(config.memory.policy), config.blocking);
  apply_initial_condition(config.initial, config.grid, config.physics, config.blocking, prev_, next_, vel_);
}

template <typename T>
void WaveSolver<T>::compute(const Box& region, const std::function<void()>* between_blocks) {
  kernel_.update(prev_, next_, vel_, region, between_blocks);
}

template <typename T>
void WaveSolver<T>::advance() {
  inject_source(config_.initial, config_.physics, next_, vel_, steps_done_ + 1);
  swap(prev_, next_);
  ++steps_done_;
}

template <typename T>
void WaveSolver<T>::step(const HaloUpdate& update_halo) {
  update_halo(prev_);
  compute(update_region_);
  advance();
}

template <typename T>
void WaveSolver<T>::restore(int steps_done, const std::function<void(Field<T>& current, Field<T>& previous)>& load) {
  load(prev_, next_);
  steps_done_ = steps_done;
}

template <typename T>
std::vector<PageHistogram> WaveSolver<T>::page_histograms() const {
  return {locate_field_pages(prev_), locate_field_pages(next_), locate_field_pages(vel_)};
}

template <typename T>
std::size_t WaveSolver<T>::field_bytes() const {
  return prev_.allocated_bytes() + next_.allocated_bytes() + vel_.allocated_bytes();
}

template class WaveSolver<float>;
template class WaveSolver<double>;

}  // namespace wave3d
