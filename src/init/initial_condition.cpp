#include "init/initial_condition.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <type_traits>

#include "stencil/block_loop.hpp"
#include "verify/exact_mode.hpp"

namespace wave3d {

double squared_courant(const Physics& physics, const Grid& grid) {
  const double c = physics.velocity * physics.dt / grid.spacing;
  return c * c;
}

namespace {

// ISO3DFD's seed, as its initialisation loops write it: for s = 5 down to 0, every index i with
// c - s <= i < c + s on each axis (a cube 2s points wide, one more point below the centre c than
// above it) gets 10^(5 - s), inner cubes overwriting outer ones; s = 0 writes nothing, so the largest
// value is 10^4. The centre is (n1/4, n2/4, n3/2). A point lies in the cube of s exactly when
// s >= c - i and s >= i - c + 1 on every axis, so it keeps the value of the smallest such s.
double seed_cube_value(const Grid& grid, std::int64_t x, std::int64_t y, std::int64_t z) {
  const std::int64_t centre[3] = {grid.n[0] / 4, grid.n[1] / 4, grid.n[2] / 2};
  const std::int64_t index[3] = {x, y, z};
  std::int64_t smallest = 0;
  for (int a = 0; a < 3; ++a)
    smallest = std::max({smallest, centre[a] - index[a], index[a] - centre[a] + 1});
  if (smallest > 5) return 0.0;
  return std::pow(10.0, static_cast<double>(5 - smallest));
}

}  // namespace

template <typename T>
void apply_initial_condition(const InitialCondition& ic, const Grid& grid, const Physics& physics,
                             const Blocking& blocking, Field<T>& prev, Field<T>& next, Field<T>& vel) {
  const T vel_value = static_cast<T>(squared_courant(physics, grid));
  const ExactMode exact = ExactMode(ic, grid, physics);
  for_each_block(prev.owned(), blocking, [&](const Box& b) {
    for (std::int64_t z = b.lo[2]; z < b.hi[2]; ++z)
      for (std::int64_t y = b.lo[1]; y < b.hi[1]; ++y)
        for (std::int64_t x = b.lo[0]; x < b.hi[0]; ++x) {
          const std::int64_t o = prev.offset(x, y, z);
          vel.data()[o] = vel_value;
          switch (ic.kind) {
            case InitialKind::seed_cube:
              prev.data()[o] = static_cast<T>(seed_cube_value(grid, x, y, z));
              next.data()[o] = T(0);
              break;
            case InitialKind::mode:
              prev.data()[o] = static_cast<T>(exact.value(0, x, y, z));
              next.data()[o] = static_cast<T>(exact.value(-1, x, y, z));
              break;
            case InitialKind::ricker:
              prev.data()[o] = T(0);
              next.data()[o] = T(0);
              break;
          }
        }
  });
}

double ricker_wavelet(double frequency, double t) {
  const double a = std::numbers::pi * frequency * (t - 1.0 / frequency);
  return (1.0 - 2.0 * a * a) * std::exp(-a * a);
}

namespace {

// FieldT: a Field<T> or a FoldedField<T>.
template <typename FieldT>
void add_source_term(const InitialCondition& ic, const Physics& physics, FieldT& next, const FieldT& vel, int step,
                     const Index3& at) {
  using T = std::remove_cvref_t<decltype(vel.at(0, 0, 0))>;
  const double t = step * physics.dt;
  next.at(at[0], at[1], at[2]) += static_cast<T>(ic.amplitude * ricker_wavelet(ic.frequency, t)) * vel.at(at[0], at[1], at[2]);
}

}  // namespace

template <typename T>
void inject_source(const InitialCondition& ic, const Physics& physics, Field<T>& next, const Field<T>& vel, int step) {
  if (ic.kind != InitialKind::ricker || !next.owned().contains(ic.source)) return;
  add_source_term(ic, physics, next, vel, step, ic.source);
}

template <typename T>
void inject_source(const InitialCondition& ic, const Physics& physics, FoldedField<T>& next, const FoldedField<T>& vel,
                   int step) {
  if (ic.kind != InitialKind::ricker || !next.owned().contains(ic.source)) return;
  add_source_term(ic, physics, next, vel, step, ic.source);
}

template <typename FieldT>
void inject_source_within(const InitialCondition& ic, const Physics& physics, const Grid& grid, FieldT& next,
                          const FieldT& vel, int step, const Box& where) {
  if (ic.kind != InitialKind::ricker) return;
  const int shifts = grid.boundary == Boundary::periodic ? 1 : 0;
  for (int kz = -shifts; kz <= shifts; ++kz)
    for (int ky = -shifts; ky <= shifts; ++ky)
      for (int kx = -shifts; kx <= shifts; ++kx) {
        const Index3 image{ic.source[0] + kx * grid.n[0], ic.source[1] + ky * grid.n[1], ic.source[2] + kz * grid.n[2]};
        if (where.contains(image)) add_source_term(ic, physics, next, vel, step, image);
      }
}

template void apply_initial_condition<float>(const InitialCondition&, const Grid&, const Physics&, const Blocking&,
                                             Field<float>&, Field<float>&, Field<float>&);
template void apply_initial_condition<double>(const InitialCondition&, const Grid&, const Physics&, const Blocking&,
                                              Field<double>&, Field<double>&, Field<double>&);
template void inject_source<float>(const InitialCondition&, const Physics&, Field<float>&, const Field<float>&, int);
template void inject_source<double>(const InitialCondition&, const Physics&, Field<double>&, const Field<double>&, int);
template void inject_source<float>(const InitialCondition&, const Physics&, FoldedField<float>&,
                                   const FoldedField<float>&, int);
template void inject_source<double>(const InitialCondition&, const Physics&, FoldedField<double>&,
                                    const FoldedField<double>&, int);
template void inject_source_within(const InitialCondition&, const Physics&, const Grid&, Field<float>&,
                                   const Field<float>&, int, const Box&);
template void inject_source_within(const InitialCondition&, const Physics&, const Grid&, Field<double>&,
                                   const Field<double>&, int, const Box&);
template void inject_source_within(const InitialCondition&, const Physics&, const Grid&, FoldedField<float>&,
                                   const FoldedField<float>&, int, const Box&);
template void inject_source_within(const InitialCondition&, const Physics&, const Grid&, FoldedField<double>&,
                                   const FoldedField<double>&, int, const Box&);

}  // namespace wave3d
