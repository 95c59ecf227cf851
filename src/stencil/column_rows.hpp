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

// f.template operator()<K>() for K = 1..R in order: neighbour distances as compile-time constants.
template <int R, typename F, int... K>
inline void for_each_distance(F&& f, std::integer_sequence<int, K...>) {
  (f.template operator()<K + 1>(), ...);
}
template <int R, typename F>
inline void for_each_distance(F&& f) {
  for_each_distance<R>(f, std::make_integer_sequence<int, R>{});
}

// One row further from the centre on either side, with the pointers' values hidden from the
// optimiser (see update_column).
template <typename T>
inline void step_rows(const T*& up, const T*& down, std::int64_t s1) {
  up += s1;
  down -= s1;
  asm("" : "+r"(up), "+r"(down));
}

// How many neighbouring vectors of a row march along z together: two where the vectors can be
// shifted across lanes (the x neighbours of one are then lane shifts of the other) and the two
// windows take at most a third of the registers; else one. Two columns at once share the loop, the
// x neighbours' loads and the prefetch of the vector after them, and give the core two independent
// chains of sums. Measured on a 256^3 grid (AVX-512, AMD Zen 5), one thread, 1 and 4 steps per sweep:
// R = 1 1.12-1.17x, R = 2 1.19-1.25x. At R = 4 (two windows of 9 vectors, 18 of the 32 registers) two
// at once ran 0.90-0.98x as fast as one on 2 threads, at R = 8 they would not fit.
template <typename V, int R>
inline constexpr int kColumnsAtOnce =
    V::has_lane_shift && R <= V::width && 3 * 2 * (2 * R + 1) <= simd::native_registers ? 2 : 1;

// `planes` points along z of N neighbouring columns of V::width points each, starting at p (on a
// cache line), row stride s1, plane stride s2. c holds the weights broadcast to whole vectors. Every
// load is a whole vector on a cache line; with Partial (one column only) just the lanes of
// `store_mask` are stored, so that a column may reach over the start or the end of the region (the
// lanes beyond it read halo or padding, which the field always holds, and are thrown away).
// ahead: how far ahead the lines of a later column are asked for, in elements (a whole number of rows).
template <typename V, typename T, int R, int N, bool Partial>
[[gnu::always_inline]] inline void update_column(const T* p, T* next, const T* vel, const typename V::reg* c,
                                                 typename V::reg one, std::int64_t s1, std::int64_t s2,
                                                 std::int64_t planes, std::int64_t ahead,
                                                 typename V::mask store_mask) {
  static_assert(N == 1 || (!Partial && V::has_lane_shift), "several columns at once need whole lane-shifted vectors");
  using reg = typename V::reg;
  constexpr int W = V::width;
  reg window[N][2 * R + 1];  // window[n][R + d] = plane z + d of column n
  for (int n = 0; n < N; ++n)
#pragma GCC unroll 17
    for (int d = 0; d <= 2 * R; ++d) window[n][d] = V::load(p + n * W + (d - R) * s2);
  for (std::int64_t z = 0; z < planes; ++z) {
    const T* q = p + z * s2;
    const std::int64_t o = z * s2;
    // The lines the column `ahead` further on reads first and no column before it read: its row R
    // rows away, its z neighbour beyond the block, its vel and next, the vector after it (x
    // neighbours) and, over the first R planes, its z neighbours below the block (read last by the
    // z block before, long gone from L1). By the time it runs they are in.
    for (int n = 0; n < N; ++n) {
      __builtin_prefetch(q + n * W + ahead + R * s1, 0, 3);
      __builtin_prefetch(q + n * W + ahead + (R + 1) * s2, 0, 3);
      // vel is read once a step: asked for as non-temporal, so that it does not push out of the caches
      // the planes of prev that later columns and z blocks read again (one thread ran 1.11x faster).
      __builtin_prefetch(vel + o + n * W + ahead, 0, 0);
      __builtin_prefetch(next + o + n * W + ahead, 1, 3);
      if (z < R) __builtin_prefetch(p + n * W + ahead + (z - R) * s2, 0, 3);
    }
    __builtin_prefetch(q + ahead + N * W, 0, 3);
    // And the vector before it: the previous x vector's pass over the block read it long ago (or, at
    // the block's first vector, never). Without this its load stalled the loop most of all (sampled
    // on R = 8, 4 steps per sweep); with it, 256^3, one thread: R = 8 1.06x at 1 step per sweep and
    // 1.09x at 4, R = 4 1.02x at 4 and 0.97x at 1, R = 2 1.03x.
    __builtin_prefetch(q + ahead - W, 0, 3);
    reg lap[N];
    for (int n = 0; n < N; ++n) lap[n] = V::mul(c[0], window[n][R]);
    // The y neighbours' addresses, a row further at each distance. Written as offsets from q, the 2R
    // offsets k s1 would be loop invariants that the compiler keeps in general registers, more than
    // there are: it spilled and reloaded them at every point. The empty asm hides the pointers' values
    // so that they are stepped, two registers in all (R = 8, one thread: 1.07x in a loop over
    // L2-resident data; 1.00-1.04x in wave3d bench on a 256^3 grid).
    const T* row_up = q;
    const T* row_down = q;
    if constexpr (V::has_lane_shift && R <= W) {
      // The x neighbours are lane shifts of a column's vector and of the vectors on either side (the
      // neighbouring column's, or one load beyond the outer ones): two loads for all 2R of them in
      // every column, none across a cache line.
      const reg before = V::load(q - W), after = V::load(q + N * W);
      for_each_distance<R>([&]<int K>() {
        step_rows(row_up, row_down, s1);
        for (int n = 0; n < N; ++n) {
          const reg& left = n == 0 ? before : window[n - 1][R];
          const reg& right = n + 1 == N ? after : window[n + 1][R];
          const reg xs = V::add(V::template behind<K>(left, window[n][R]), V::template ahead<K>(window[n][R], right));
          const reg ys = V::add_on_multiplier(V::load(row_down + n * W), V::load(row_up + n * W), one);
          // The z pair with a plain add: as a multiply-add by one it needs a copy of a window register
          // first (the multiply-add overwrites an operand, and both planes stay in the window), one
          // instruction more per distance (R = 8, one thread, L2-resident loop: 1.02-1.06x).
          const reg zs = V::add(window[n][R - K], window[n][R + K]);
          lap[n] = V::fma(c[K], V::add(V::add(xs, ys), zs), lap[n]);
        }
      });
    } else {
#pragma GCC unroll 16
      for (int k = 1; k <= R; ++k) {
        step_rows(row_up, row_down, s1);
        const reg xs = V::add(V::load(q - k), V::load(q + k));
        const reg ys = V::add_on_multiplier(V::load(row_down), V::load(row_up), one);
        const reg zs = V::add_on_multiplier(window[0][R - k], window[0][R + k], one);
        lap[0] = V::fma(c[k], V::add(V::add(xs, ys), zs), lap[0]);
      }
    }
    for (int n = 0; n < N; ++n) {
      const reg centre = window[n][R];
      const std::int64_t at = o + n * W;
      const reg updated = V::fma(V::load(vel + at), lap[n], V::sub(V::add(centre, centre), V::load(next + at)));
      if constexpr (Partial) V::store_lanes(next + at, updated, store_mask);
      else V::store(next + at, updated);
    }
    if (z + 1 == planes) break;  // plane z + R + 1 may lie beyond the field
    for (int n = 0; n < N; ++n) {
#pragma GCC unroll 16
      for (int d = 0; d < 2 * R; ++d) window[n][d] = window[n][d + 1];
      window[n][2 * R] = V::load(q + n * W + (R + 1) * s2);
    }
  }
}

// The columns of `len` points along x, `rows` rows and `planes` planes starting at p: x vector by
// x vector, each down its rows, each row a column along z. The vectors sit on cache lines (a row's
// first owned point starts one, field.hpp), so that no load crosses a line: where p is not on a
// line (a region starting inside the halo or the boundary layer) the first vector starts on the line
// before p and stores only the lanes from p on, and the last stores only the lanes before p + len.
// weights: c[0..R] as the reference kernel holds them. prefetch_rows: how many rows (columns) ahead
// the lines a column will read are asked for: enough to cover the latency of the caches the data comes
// from, not so many that they are pushed out again before use. The best distance depends on the
// machine, the radius and the threads (256^3 grid, R = 8, blocks 0 x 64 x 16, AMD Zen 5, MPoints/s for
// 1, 2, 3 and 4 rows: one thread 1284-1329, 1537-1620, 1641-1725, 1605-1682; two threads with 4 steps
// per sweep 2770-2804, 3091-3099, 3026-3064, 2905-2928), so the block tuner measures it
// (blocking.prefetch_rows).
template <typename T, int R>
inline void update_columns(const T* p, T* next, const T* vel, const T* weights, std::int64_t len, std::int64_t rows,
                           std::int64_t planes, std::int64_t s1, std::int64_t s2, int prefetch_rows) {
  using V = simd::ColumnVector<T>;
  const auto c = simd::broadcast_weights<V, R>(weights);
  const typename V::reg one = V::one();
  const std::int64_t ahead = prefetch_rows * s1;
  constexpr std::int64_t kVectorBytes = V::width * static_cast<std::int64_t>(sizeof(T));
  const auto past_line = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p) % kVectorBytes) /
                         static_cast<std::int64_t>(sizeof(T));
  // Vector starts relative to p: from -past_line in steps of a vector while they overlap [0, len).
  for (std::int64_t i = -past_line; i < len; i += V::width) {
    const std::int64_t first_lane = std::max<std::int64_t>(0, -i), end_lane = std::min<std::int64_t>(V::width, len - i);
    const bool whole = first_lane == 0 && end_lane == V::width;
    const auto mask = V::lanes_between(static_cast<int>(first_lane), static_cast<int>(end_lane));
    constexpr int kAtOnce = kColumnsAtOnce<V, R>;
    if (kAtOnce > 1 && whole && i + kAtOnce * V::width <= len) {
      for (std::int64_t y = 0; y < rows; ++y) {
        const std::int64_t o = i + y * s1;
        update_column<V, T, R, kAtOnce, false>(p + o, next + o, vel + o, c.data(), one, s1, s2, planes, ahead, mask);
      }
      i += (kAtOnce - 1) * V::width;
      continue;
    }
    for (std::int64_t y = 0; y < rows; ++y) {
      const std::int64_t o = i + y * s1;
      if (whole) update_column<V, T, R, 1, false>(p + o, next + o, vel + o, c.data(), one, s1, s2, planes, ahead, mask);
      else update_column<V, T, R, 1, true>(p + o, next + o, vel + o, c.data(), one, s1, s2, planes, ahead, mask);
    }
  }
}

}  // namespace wave3d
