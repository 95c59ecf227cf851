#pragma once
// Initial conditions, written from global indices so that any decomposition produces the same field.
#include <array>
#include <cstdint>

#include "field/field.hpp"
#include "stencil/folded_field.hpp"
#include "geometry/grid.hpp"
#include "stencil/blocking.hpp"

namespace wave3d {

enum class InitialKind {
  seed_cube,  // ISO3DFD: zero field, nested cubes of 10^(5-s), s = 5..0, around (n1/4, n2/4, n3/2)
  mode,       // one standing Fourier mode on a periodic grid, exact discrete solution known
  ricker,     // zero field; a Ricker wavelet injected at one point every step
};

struct InitialCondition {
  InitialKind kind = InitialKind::mode;
  double amplitude = 1.0;                 // mode: peak value; ricker: source amplitude
  std::array<std::int64_t, 3> wave{1, 1, 1};  // mode: whole periods along x, y, z
  Index3 source{0, 0, 0};                 // ricker: source point (global indices)
  double frequency = 10.0;                // ricker: peak frequency, Hz
};

struct Physics {
  double velocity = 1500.0;  // m/s, uniform
  double dt = 0.001;         // s
};

// (v dt / h)^2: the value of vel everywhere (the squared Courant number).
double squared_courant(const Physics& physics, const Grid& grid);

// Writes the owned points of prev (u at step 0), next (u at step -1) and vel. The fields must
// already be first-touched; this loops over the kernel's blocks so each thread rewrites its own pages.
template <typename T>
void apply_initial_condition(const InitialCondition& ic, const Grid& grid, const Physics& physics,
                             const Blocking& blocking, Field<T>& prev, Field<T>& next, Field<T>& vel);

// Ricker wavelet of peak frequency f at time t, delayed by 1/f so it starts near zero.
double ricker_wavelet(double frequency, double t);

// Adds the source term for time level `step` into next at ic.source, if this subdomain owns it.
template <typename T>
void inject_source(const InitialCondition& ic, const Physics& physics, Field<T>& next, const Field<T>& vel, int step);
template <typename T>
void inject_source(const InitialCondition& ic, const Physics& physics, FoldedField<T>& next, const FoldedField<T>& vel,
                   int step);

// The same at every point of `where` (inside next's halo) that holds the source: the source itself
// or, on a periodic grid, a halo copy of it one period away. A sweep of several levels computes
// halo points redundantly and must add the term wherever the neighbour that owns them does; vel
// must be current there. FieldT: a Field<T> or a FoldedField<T>.
template <typename FieldT>
void inject_source_within(const InitialCondition& ic, const Physics& physics, const Grid& grid, FieldT& next,
                          const FieldT& vel, int step, const Box& where);

}  // namespace wave3d
