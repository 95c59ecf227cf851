#pragma once
// The one loop over cache blocks that the kernel and first-touch initialisation share, so that a page
// is first touched by the thread that later computes it (static schedule, same block order).
#include <cstdint>
#include <utility>

#include "geometry/box.hpp"
#include "stencil/blocking.hpp"

namespace wave3d {

// How `blocking` cuts a region: the block size and the number of blocks along each axis (the first
// and last block of an axis may be shorter). An empty region has no blocks.
//
// Along x, blocks narrower than the region are cut at x_origin + k * size rather than at the region's
// start: with x_origin at a field's first owned x (64-byte aligned) and a size of whole cache lines,
// every block then starts on a cache line, however far in from the field's edge the region starts
// (zero boundaries, overlap shells). A vector of a block then loads one line, not two.
struct BlockGrid {
  Index3 size{0, 0, 0};
  Index3 count{0, 0, 0};
  std::int64_t x_shift = 0;  // how many points the first x block lacks of a whole one

  BlockGrid(const Box& region, const Blocking& blocking) : BlockGrid(region, blocking, region.lo[0]) {}
  BlockGrid(const Box& region, const Blocking& blocking, std::int64_t x_origin) {
    z_innermost = blocking.z_innermost;
    if (region.empty()) return;
    for (int a = 0; a < 3; ++a) size[a] = blocking.effective(a, region.extent(a));
    if (size[0] < region.extent(0)) x_shift = ((region.lo[0] - x_origin) % size[0] + size[0]) % size[0];
    for (int a = 0; a < 3; ++a) count[a] = (region.extent(a) + (a == 0 ? x_shift : 0) + size[a] - 1) / size[a];
  }
  bool z_innermost = false;  // the order of the blocks (Blocking::z_innermost)
  std::int64_t total() const { return count[0] * count[1] * count[2]; }
  // Where x block i of `region` starts and ends.
  std::int64_t x_begin(const Box& region, std::int64_t i) const {
    return i == 0 ? region.lo[0] : region.lo[0] - x_shift + i * size[0];
  }
  std::int64_t x_end(const Box& region, std::int64_t i) const {
    const std::int64_t end = region.lo[0] - x_shift + (i + 1) * size[0];
    return end < region.hi[0] ? end : region.hi[0];
  }
};

// How many blocks `blocking` cuts `region` into: the most threads for_each_block can keep busy.
inline std::int64_t block_count(const Box& region, const Blocking& blocking) {
  return BlockGrid(region, blocking).total();
}
inline std::int64_t block_count(const Box& region, const Blocking& blocking, std::int64_t x_origin) {
  return BlockGrid(region, blocking, x_origin).total();
}

// The iteration number for_each_block gives the block that holds point p of `region`.
inline std::int64_t block_number(const Box& region, const BlockGrid& grid, const Index3& p) {
  Index3 b;
  for (int a = 0; a < 3; ++a) b[a] = (p[a] - region.lo[a] + (a == 0 ? grid.x_shift : 0)) / grid.size[a];
  if (grid.z_innermost) return (b[1] * grid.count[0] + b[0]) * grid.count[2] + b[2];
  return (b[2] * grid.count[1] + b[1]) * grid.count[0] + b[0];
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

// Calls body(block) for every block of `region` (x blocks cut from x_origin, see BlockGrid),
// distributed over the threads of a new parallel region with `omp for schedule(static)` over the
// blocks in block_number's order: z blocks outermost, or innermost (Blocking::z_innermost).
template <typename Body>
void for_each_block(const Box& region, const Blocking& blocking, std::int64_t x_origin, Body&& body) {
  const BlockGrid grid(region, blocking, x_origin);
  const std::int64_t total = grid.total();
  if (total == 0) return;
  const std::int64_t nb0 = grid.count[0], nb1 = grid.count[1], nb2 = grid.count[2];
#pragma omp parallel for schedule(static)
  for (std::int64_t n = 0; n < total; ++n) {
    std::int64_t i, j, k;  // the x, y and z block of iteration n
    if (grid.z_innermost) {
      k = n % nb2;
      i = (n / nb2) % nb0;
      j = n / (nb2 * nb0);
    } else {
      i = n % nb0;
      j = (n / nb0) % nb1;
      k = n / (nb0 * nb1);
    }
    Box block;
    block.lo = {grid.x_begin(region, i), region.lo[1] + j * grid.size[1], region.lo[2] + k * grid.size[2]};
    block.hi = {grid.x_end(region, i), block.lo[1] + grid.size[1], block.lo[2] + grid.size[2]};
    for (int a = 1; a < 3; ++a)
      if (block.hi[a] > region.hi[a]) block.hi[a] = region.hi[a];
    body(block);
  }
}

// The same with x blocks cut from the region's own start.
template <typename Body>
void for_each_block(const Box& region, const Blocking& blocking, Body&& body) {
  for_each_block(region, blocking, region.lo[0], std::forward<Body>(body));
}

}  // namespace wave3d
