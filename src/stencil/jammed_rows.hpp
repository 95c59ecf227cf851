#pragma once
// The register-reuse kernel's inner loops: U neighbouring rows of a block updated together
// (unroll-and-jam along y), one vector width of x at a time.
//
// The star stencil reads 2R + 1 rows of every plane around a point. Row y + u needs rows y + u - k and
// y + u + k at neighbour distance k; for the U rows of a group those are two windows of U consecutive
// rows, and going from distance k to k + 1 each window moves by one row. So the group keeps both
// windows in registers and loads one new row per window per k: 2 loads where U separate rows would
// load 2U. At R = 8 and U = 4 that is 39 loads per output vector instead of 51, on cores where loads,
// not arithmetic or memory, bound the single-sweep kernel.
//
// Each point's arithmetic is the reference kernel's, operation for operation: lap = 3c0 p, then for
// k = 1..R lap = fma(c_k, ((x- + x+) + (y- + y+)) + (z- + z+), lap), then next = fma(vel, lap, 2p - next).
// Only where the operands come from differs, so the results are bitwise equal.
#include <cstdint>

#include "stencil/simd.hpp"

namespace wave3d {

// Rows per group. Two windows of U rows, U sums and the temporaries fit the 16 vector registers of
// AVX2; more rows would spill, and a spill is the load the windows exist to save.
inline constexpr int kJamRows = 4;

// One vector width (V::width points along x) of U rows starting at p (row stride s1, plane stride s2).
// c holds the weights broadcast to whole vectors.
template <typename V, typename T, int R, int U>
inline void update_row_group(const T* p, T* next, const T* vel, const typename V::reg* c, typename V::reg one,
                             std::int64_t s1, std::int64_t s2) {
  using reg = typename V::reg;
  reg lap[U], below[U], above[U];
#pragma GCC unroll 16
  for (int u = 0; u < U; ++u) {
    const reg centre = V::load(p + u * s1);
    below[u] = centre;
    above[u] = centre;
    lap[u] = V::mul(c[0], centre);
  }
  // The k loop stays rolled and walks a few pointers outwards: unrolled, its 4R + 2 distinct
  // neighbour addresses per row would need more integer registers than the machine has.
  const T* row_below = p - s1;       // row y - k
  const T* row_above = p + U * s1;   // row y + U - 1 + k
  const T* plane_below = p - s2;     // plane z - k, row y
  const T* plane_above = p + s2;     // plane z + k, row y
#pragma GCC unroll 1
  for (int k = 1; k <= R; ++k) {
    // below[u] becomes row y + u - k and above[u] row y + u + k: each window moves one row.
#pragma GCC unroll 16
    for (int u = U - 1; u > 0; --u) below[u] = below[u - 1];
    below[0] = V::load(row_below);
#pragma GCC unroll 16
    for (int u = 0; u < U - 1; ++u) above[u] = above[u + 1];
    above[U - 1] = V::load(row_above);
    const reg weight = c[k];
#pragma GCC unroll 16
    for (int u = 0; u < U; ++u) {
      const reg xs = V::add(V::load(p + u * s1 - k), V::load(p + u * s1 + k));
      const reg ys = V::add_on_multiplier(below[u], above[u], one);
      const reg zs = V::add_on_multiplier(V::load(plane_below + u * s1), V::load(plane_above + u * s1), one);
      lap[u] = V::fma(weight, V::add(V::add(xs, ys), zs), lap[u]);
    }
    row_below -= s1;
    row_above += s1;
    plane_below -= s2;
    plane_above += s2;
  }
#pragma GCC unroll 16
  for (int u = 0; u < U; ++u) {
    const reg centre = V::load(p + u * s1);
    const reg old = V::load(next + u * s1);
    V::store(next + u * s1, V::fma(V::load(vel + u * s1), lap[u], V::sub(V::add(centre, centre), old)));
  }
}

// `len` points of U rows starting at p: whole vectors, then the row ends one point at a time with the
// same arithmetic. weights: c[0..R] as the reference kernel holds them.
template <typename T, int R, int U>
inline void update_rows_jammed(const T* p, T* next, const T* vel, const T* weights, std::int64_t len,
                               std::int64_t s1, std::int64_t s2) {
  std::int64_t i = 0;
  if constexpr (simd::has_native) {
    using V = simd::Native<T>;
    const auto c = simd::broadcast_weights<V, R>(weights);
    const typename V::reg one = V::one();
    for (; i + V::width <= len; i += V::width)
      update_row_group<V, T, R, U>(p + i, next + i, vel + i, c.data(), one, s1, s2);
  }
  using S = simd::Scalar<T>;
  for (; i < len; ++i) update_row_group<S, T, R, U>(p + i, next + i, vel + i, weights, S::one(), s1, s2);
}

// The same for 1 <= rows <= kJamRows rows (a block's last group may be short).
template <typename T, int R>
inline void update_rows_jammed(int rows, const T* p, T* next, const T* vel, const T* weights, std::int64_t len,
                               std::int64_t s1, std::int64_t s2) {
  static_assert(kJamRows == 4);
  switch (rows) {
    case 4: return update_rows_jammed<T, R, 4>(p, next, vel, weights, len, s1, s2);
    case 3: return update_rows_jammed<T, R, 3>(p, next, vel, weights, len, s1, s2);
    case 2: return update_rows_jammed<T, R, 2>(p, next, vel, weights, len, s1, s2);
    default: return update_rows_jammed<T, R, 1>(p, next, vel, weights, len, s1, s2);
  }
}

}  // namespace wave3d
