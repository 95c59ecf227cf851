#pragma once
// The one loop over cache blocks that the kernel and first-touch initialisation share, so that a page
// is first touched by the thread that later computes it (static schedule, same block order).
#include <cstdint>

#include "geometry/box.hpp"
#include "stencil/blocking.hpp"

namespace wave3d {

// How many blocks `blocking` cuts `region` into: the most threads for_each_block can keep busy.
inline std::int64_t block_count(const Box& region, const Blocking& blocking) {
  if (region.empty()) return 0;
  std::int64_t count = 1;
  for (int a = 0; a < 3; ++a) {
    const std::int64_t b = blocking.effective(a, region.extent(a));
    count *= (region.extent(a) + b - 1) / b;
  }
  return count;
}

// Calls body(block) for every block of `region`, distributed over the threads of a new parallel
// region with `omp for collapse(3) schedule(static)`, z blocks outermost.
template <typename Body>
void for_each_block(const Box& region, const Blocking& blocking, Body&& body) {
  if (region.empty()) return;
  const std::int64_t b0 = blocking.effective(0, region.extent(0));
  const std::int64_t b1 = blocking.effective(1, region.extent(1));
  const std::int64_t b2 = blocking.effective(2, region.extent(2));
  const std::int64_t nb0 = (region.extent(0) + b0 - 1) / b0;
  const std::int64_t nb1 = (region.extent(1) + b1 - 1) / b1;
  const std::int64_t nb2 = (region.extent(2) + b2 - 1) / b2;
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
