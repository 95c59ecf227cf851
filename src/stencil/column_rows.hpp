#pragma once
// The z-column kernel's inner loop: one vector width of x at one y, marching along z with the point's
// 2R + 1 z neighbours held in registers.
//
// Why: a high-order star reads 2R + 1 planes around every point. Sweeping rows plane by plane, each
// output vector loads its 2R z neighbours from planes far apart in memory, which live in L2 at best
// (a plane of a 256-wide block is hundreds of KiB), and those loads, not the arithmetic, bound the
// single-sweep kernel. Marching one vector along z instead, the z neighbours of plane z + 1 are
// those of plane z shifted by one: one new load per step replaces 2R. The y neighbours of a column
// are the next column's too, so a block of a few columns keeps them in L1; the block sizes that do
// that are found by the tuner (blocking.size = "auto").
//
// Memory is read in short strides here rather than long rows, so the hardware prefetchers see less;
// the lines a column will need a few planes ahead are asked for explicitly.
//
// Each point's arithmetic is the reference kernel's, operation for operation: lap = 3c0 p, then for
// k = 1..R lap = fma(c_k, ((x- + x+) + (y- + y+)) + (z- + z+), lap), then next = fma(vel, lap, 2p - next).
// Only where the operands come from differs, so the results are bitwise equal.
#include <algorithm>
#include <cstdint>
#include <utility>

#include "stencil/simd.hpp"

namespace wave3d {

// How many planes ahead a column asks for the lines it will read.
inline constexpr int kColumnPrefetchPlanes = 8;

// f.template operator()<K>() for K = 1..R in order: neighbour distances as compile-time constants.
template <int R, typename F, int... K>
inline void for_each_distance(F&& f, std::integer_sequence<int, K...>) {
  (f.template operator()<K + 1>(), ...);
}
template <int R, typename F>
inline void for_each_distance(F&& f) {
  for_each_distance<R>(f, std::make_integer_sequence<int, R>{});
}

// Loads of a column: whole vectors, or (Tail) only the lanes of `mask`, the rest zero.
template <typename V, bool Tail>
struct ColumnLoads {
  typename V::mask mask;
  template <typename T>
  typename V::reg operator()(const T* p) const {
    if constexpr (Tail) return V::load_lanes(p, mask);
    else return V::load(p);
  }
};

// `planes` points along z of one column of V::width points (fewer under a tail mask) starting at p,
// row stride s1, plane stride s2. c holds the weights broadcast to whole vectors.
template <typename V, typename T, int R, bool Tail>
inline void update_column(const T* p, T* next, const T* vel, const typename V::reg* c, typename V::reg one,
                          std::int64_t s1, std::int64_t s2, std::int64_t planes, ColumnLoads<V, Tail> load) {
  using reg = typename V::reg;
  constexpr int kAhead = kColumnPrefetchPlanes;
  reg window[2 * R + 1];  // window[R + d] = plane z + d of this column
#pragma GCC unroll 17
  for (int d = 0; d <= 2 * R; ++d) window[d] = load(p + (d - R) * s2);
  for (std::int64_t z = 0; z < planes; ++z) {
    const T* q = p + z * s2;
    const std::int64_t o = z * s2;
    // The lines of plane z + kAhead this column has not read yet: its own z neighbour R planes beyond,
    // the row R rows away that no earlier column read, the next vector along x, vel and next.
    __builtin_prefetch(q + (kAhead + R + 1) * s2, 0, 3);
    __builtin_prefetch(q + kAhead * s2 + R * s1, 0, 3);
    __builtin_prefetch(q + kAhead * s2 + V::width, 0, 3);
    __builtin_prefetch(vel + o + kAhead * s2, 0, 3);
    __builtin_prefetch(next + o + kAhead * s2, 1, 3);
    reg lap = V::mul(c[0], window[R]);
    if constexpr (V::has_lane_shift && !Tail && R <= V::width) {
      // A whole vector on a cache line: its x neighbours are lane shifts of it and of the vectors on
      // either side, two loads for all 2R of them, none across a line.
      const reg before = V::load(q - V::width), after = V::load(q + V::width);
      for_each_distance<R>([&]<int K>() {
        const reg xs = V::add(V::template behind<K>(before, window[R]), V::template ahead<K>(window[R], after));
        const reg ys = V::add_on_multiplier(load(q - K * s1), load(q + K * s1), one);
        const reg zs = V::add_on_multiplier(window[R - K], window[R + K], one);
        lap = V::fma(c[K], V::add(V::add(xs, ys), zs), lap);
      });
    } else {
#pragma GCC unroll 16
      for (int k = 1; k <= R; ++k) {
        const reg xs = V::add(load(q - k), load(q + k));
        const reg ys = V::add_on_multiplier(load(q - k * s1), load(q + k * s1), one);
        const reg zs = V::add_on_multiplier(window[R - k], window[R + k], one);
        lap = V::fma(c[k], V::add(V::add(xs, ys), zs), lap);
      }
    }
    const reg centre = window[R];
    const reg updated = V::fma(load(vel + o), lap, V::sub(V::add(centre, centre), load(next + o)));
    if constexpr (Tail) V::store_lanes(next + o, updated, load.mask);
    else V::store(next + o, updated);
    if (z + 1 == planes) break;  // plane z + R + 1 may lie beyond the field
#pragma GCC unroll 16
    for (int d = 0; d < 2 * R; ++d) window[d] = window[d + 1];
    window[2 * R] = load(q + (R + 1) * s2);
  }
}

// The columns of `len` points along x, `rows` rows and `planes` planes starting at p: x vector by
// x vector, each down its rows, each row a column along z. The vectors sit on cache lines (rows
// start on one, field.hpp), so that a vector loads one line, not two: where p is not on a line (a
// region starting inside the halo or the boundary layer), the points up to the next line go first
// as one vector under a mask, and the row's last points too. weights: c[0..R] as the reference kernel
// holds them.
template <typename T, int R>
inline void update_columns(const T* p, T* next, const T* vel, const T* weights, std::int64_t len, std::int64_t rows,
                           std::int64_t planes, std::int64_t s1, std::int64_t s2) {
  using V = simd::ColumnVector<T>;
  const auto c = simd::broadcast_weights<V, R>(weights);
  const typename V::reg one = V::one();
  const auto masked_columns = [&](std::int64_t i, std::int64_t lanes) {
    const ColumnLoads<V, true> part{V::first_lanes(static_cast<int>(lanes))};
    for (std::int64_t y = 0; y < rows; ++y) {
      const std::int64_t o = i + y * s1;
      update_column<V, T, R, true>(p + o, next + o, vel + o, c.data(), one, s1, s2, planes, part);
    }
  };
  constexpr std::int64_t kVectorBytes = V::width * static_cast<std::int64_t>(sizeof(T));
  const auto past_line = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p) % kVectorBytes) /
                         static_cast<std::int64_t>(sizeof(T));
  std::int64_t i = past_line == 0 ? 0 : std::min(len, V::width - past_line);
  if (i > 0) masked_columns(0, i);
  for (; i + V::width <= len; i += V::width)
    for (std::int64_t y = 0; y < rows; ++y) {
      const std::int64_t o = i + y * s1;
      update_column<V, T, R, false>(p + o, next + o, vel + o, c.data(), one, s1, s2, planes, {});
    }
  if (i < len) masked_columns(i, len - i);
}

}  // namespace wave3d
