#pragma once
// The one loop over cache blocks that the kernel and first-touch initialisation share, so that a page
// is first touched by the thread that later computes it (static schedule, same block order).
#include <cstdint>

#include "geometry/box.hpp"
#include "stencil/blocking.hpp"

namespace wave3d {

// How `blocking` cuts a region: the block size and the number of blocks along each axis (the last
// block of an axis may be shorter). An empty region has no blocks.
struct BlockGrid {
  Index3 size{0, 0, 0};
  Index3 count{0, 0, 0};

  BlockGrid(const Box& region, const Blocking& blocking) {
    if (region.empty()) return;
    for (int a = 0; a < 3; ++a) {
      size[a] = blocking.effective(a, region.extent(a));
      count[a] = (region.extent(a) + size[a] - 1) / size[a];
    }
  }
  std::int64_t total() const { return count[0] * count[1] * count[2]; }
};

// How many blocks `blocking` cuts `region` into: the most threads for_each_block can keep busy.
inline std::int64_t block_count(const Box& region, const Blocking& blocking) {
  return BlockGrid(region, blocking).total();
}

// The iteration number for_each_block gives the block that holds point p of `region`.
inline std::int64_t block_number(const Box& region, const BlockGrid& grid, const Index3& p) {
  std::int64_t n = 0;
  for (int a = 2; a >= 0; --a) n = n * grid.count[a] + (p[a] - region.lo[a]) / grid.size[a];
  return n;
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

// Calls body(block) for every block of `region`, distributed over the threads of a new parallel
// region with `omp for collapse(3) schedule(static)`, z blocks outermost (block_number's order).
template <typename Body>
void for_each_block(const Box& region, const Blocking& blocking, Body&& body) {
  const BlockGrid grid(region, blocking);
  if (grid.total() == 0) return;
  const std::int64_t b0 = grid.size[0], b1 = grid.size[1], b2 = grid.size[2];
  const std::int64_t nb0 = grid.count[0], nb1 = grid.count[1], nb2 = grid.count[2];
#pragma omp parallel for collapse(3) schedule(static)
  for (std::int64_t k = 0; k < nb2; ++k) {
    for (std::int64_t j = 0; j < nb1; ++j) {
      for (std::int64_t i = 0; i < nb0; ++i) {
        Box block;
        block.lo = {region.lo[0] + i * b0, region.lo[1] + j * b1, region.lo[2] + k * b2};
        block.hi = {block.lo[0] + b0, block.lo[1] + b1, block.lo[2] + b2};
        for (int a = 0; a < 3; ++a)
          if (block.hi[a] > region.hi[a]) block.hi[a] = region.hi[a];
        body(block);
      }
    }
  }
}

}  // namespace wave3d
