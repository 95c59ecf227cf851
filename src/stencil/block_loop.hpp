#pragma once
// The one loop over cache blocks that the kernel and first-touch initialisation share, so that a page
// is first touched by the thread that later computes it (static schedule, same block order).
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "geometry/box.hpp"
#include "stencil/blocking.hpp"

namespace wave3d {

// How `blocking` cuts a region: the block size and the number of blocks along each axis (the first
// and last block of an axis may be shorter). An empty region has no blocks.
//
// Along x, blocks narrower than the region are cut at x_origin + k * size rather than at the region's
// start: with x_origin at a field's line start x (64-byte aligned, field.hpp) and a size of whole
// cache lines, every block then starts on a cache line, however far from the line start the region
// starts (zero boundaries, overlap shells). A vector of a block then loads one line, not two.
struct BlockGrid {
  Index3 size{0, 0, 0};
  Index3 count{0, 0, 0};
  std::int64_t x_shift = 0;  // how many points the first x block lacks of a whole one

  BlockGrid(const Box& region, const Blocking& blocking) : BlockGrid(region, blocking, region.lo[0]) {}
  BlockGrid(const Box& region, const Blocking& blocking, std::int64_t x_origin) {
    if (region.empty()) return;
    for (int a = 0; a < 3; ++a) size[a] = blocking.effective(a, region.extent(a));
    if (size[0] < region.extent(0)) x_shift = ((region.lo[0] - x_origin) % size[0] + size[0]) % size[0];
    for (int a = 0; a < 3; ++a) count[a] = (region.extent(a) + (a == 0 ? x_shift : 0) + size[a] - 1) / size[a];
  }
  std::int64_t total() const { return count[0] * count[1] * count[2]; }
  // The number of block (i, j, k) in the static schedule's order: z blocks outermost.
  std::int64_t number(std::int64_t i, std::int64_t j, std::int64_t k) const { return (k * count[1] + j) * count[0] + i; }
  // Block (i, j, k) of `region`.
  Box block(const Box& region, std::int64_t i, std::int64_t j, std::int64_t k) const {
    const std::int64_t x_end = region.lo[0] - x_shift + (i + 1) * size[0];
    Box b;
    b.lo = {i == 0 ? region.lo[0] : region.lo[0] - x_shift + i * size[0], region.lo[1] + j * size[1],
            region.lo[2] + k * size[2]};
    b.hi = {x_end < region.hi[0] ? x_end : region.hi[0], b.lo[1] + size[1], b.lo[2] + size[2]};
    for (int a = 1; a < 3; ++a)
      if (b.hi[a] > region.hi[a]) b.hi[a] = region.hi[a];
    return b;
  }
};

// How many blocks `blocking` cuts `region` into: the most threads for_each_block can keep busy.
inline std::int64_t block_count(const Box& region, const Blocking& blocking) {
  return BlockGrid(region, blocking).total();
}

// The iteration number for_each_block gives the block that holds point p of `region`.
inline std::int64_t block_number(const Box& region, const BlockGrid& grid, const Index3& p) {
  return grid.number((p[0] - region.lo[0] + grid.x_shift) / grid.size[0], (p[1] - region.lo[1]) / grid.size[1],
                     (p[2] - region.lo[2]) / grid.size[2]);
}

// The thread of a team of `threads` that runs iteration `index` of a `count`-iteration loop under
// schedule(static) without a chunk size. OpenMP leaves the chunk sizes to the implementation; GCC and
// LLVM give each thread one contiguous chunk, in thread order, the first count % threads chunks one
// iteration longer than the others. The kernel and first touch simply share the runtime's
// choice; this replays it without a team, for tests that check thread counts this machine lacks.
inline int static_schedule_thread(std::int64_t index, std::int64_t count, int threads) {
  const std::int64_t base = count / threads;
  const std::int64_t longer = count % threads;        // threads that run base + 1 iterations
  const std::int64_t in_longer = longer * (base + 1);  // the iterations those threads run
  return static_cast<int>(index < in_longer ? index / (base + 1) : longer + (index - in_longer) / base);
}

// The iterations [first, end) that `thread` runs under the same schedule: the inverse of
// static_schedule_thread, for loops that visit one thread's share in an order of their own.
struct IterationShare {
  std::int64_t first = 0;
  std::int64_t end = 0;
};

inline IterationShare static_schedule_share(std::int64_t thread, std::int64_t count, std::int64_t threads) {
  const std::int64_t base = count / threads;
  const std::int64_t longer = count % threads;
  const std::int64_t first = thread * base + std::min(thread, longer);
  return {first, first + base + (thread < longer ? 1 : 0)};
}

// Calls body(block) for every block of `region` (x blocks cut from x_origin, see BlockGrid) on a new
// team of threads, each thread the blocks of its share of block_number's order under schedule(static):
// a contiguous run of blocks, z blocks outermost, so one stretch of planes per thread whichever order
// it visits them in, and its pages its own even where a huge page holds several whole planes.
//
// The visiting order: block_number's, or with Blocking::z_innermost each thread goes y block by y
// block (then x) through its blocks with z innermost, as the z-column kernel wants: the next z block
// of a slab finds the planes below it still in L2.
template <typename Body>
void for_each_block(const Box& region, const Blocking& blocking, std::int64_t x_origin, Body&& body) {
  const BlockGrid grid(region, blocking, x_origin);
  const std::int64_t total = grid.total();
  if (total == 0) return;
  if (!blocking.z_innermost) {
#pragma omp parallel for schedule(static)
    for (std::int64_t n = 0; n < total; ++n) {
      const std::int64_t i = n % grid.count[0], j = (n / grid.count[0]) % grid.count[1];
      body(grid.block(region, i, j, n / (grid.count[0] * grid.count[1])));
    }
    return;
  }
#pragma omp parallel
  {
    // This thread's share, as schedule(static) gives it.
    const auto [first, end] = static_schedule_share(omp_get_thread_num(), total, omp_get_num_threads());
    if (first < end) {
      const std::int64_t per_plane = grid.count[0] * grid.count[1];
      for (std::int64_t j = 0; j < grid.count[1]; ++j)
        for (std::int64_t i = 0; i < grid.count[0]; ++i)
          for (std::int64_t k = first / per_plane; k <= (end - 1) / per_plane; ++k) {
            const std::int64_t n = grid.number(i, j, k);
            if (n >= first && n < end) body(grid.block(region, i, j, k));
          }
    }
  }
}

// The same with x blocks cut from the region's own start.
template <typename Body>
void for_each_block(const Box& region, const Blocking& blocking, Body&& body) {
  for_each_block(region, blocking, region.lo[0], std::forward<Body>(body));
}

}  // namespace wave3d
