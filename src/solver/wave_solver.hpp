#pragma once
// WaveSolver<T>: the state of one subdomain (prev, next, vel) and the time step applied to it.
// It knows nothing of ranks: the caller hands in the halo update (a periodic copy on one rank, the
// MPI exchange on many) and combines per-rank results. Fields are first-touched by the threads
// that compute them, in the kernel's block order.
#include <functional>

#include "config/run_config.hpp"
#include "field/field.hpp"
#include "stencil/kernel.hpp"
#include "verify/exact_mode.hpp"

namespace wave3d {

template <typename T>
class WaveSolver {
 public:
  // Updates the halo of a field from its neighbours (or periodic images).
  using HaloUpdate = std::function<void(Field<T>&)>;

  // Allocates and initialises the fields of the subdomain `owned` (global indices).
  WaveSolver(const RunConfig& config, const Box& owned);

  // The points of the owned box this rank updates each step (owned minus any fixed boundary layer).
  const Box& update_region() const { return update_region_; }

  // Durations of the parts of one step, in seconds.
  struct StepPhases {
    double halo = 0.0;
    double compute = 0.0;
  };
  // Advances one time level: halo update of prev, kernel, source, swap.
  StepPhases step(const HaloUpdate& update_halo);

  int steps_done() const { return steps_done_; }
  const Field<T>& current() const { return prev_; }  // u at time level steps_done()
  const Field<T>& previous() const { return next_; }  // u at time level steps_done() - 1
  const Field<T>& velocity() const { return vel_; }
  const Kernel<T>& kernel() const { return kernel_; }

  // Bytes allocated for the three fields, halos and padding included.
  std::size_t field_bytes() const;

 private:
  const RunConfig& config_;
  Box update_region_;
  Field<T> prev_, next_, vel_;
  Kernel<T> kernel_;
  int steps_done_ = 0;
};

extern template class WaveSolver<float>;
extern template class WaveSolver<double>;

}  // namespace wave3d
