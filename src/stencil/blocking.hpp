#pragma once
// Cache-blocking of the kernel's loops: block sizes along x (n1), y (n2) and z (n3), and the time
// steps computed per sweep.
#include <cstdint>

#include "geometry/box.hpp"

namespace wave3d {

// The most time steps one sweep may take (blocking.steps).
inline constexpr int kMaxStepsPerSweep = 64;
// The farthest ahead, in rows, the z-column kernel may ask for the lines of the columns after the
// one it computes (blocking.prefetch_rows).
inline constexpr int kMaxPrefetchRows = 4;

struct Blocking {
  Index3 size{0, 16, 16};  // 0 on an axis means the whole extent of the region being updated
  int steps = 1;           // time steps per sweep over memory (temporal blocking, solver/temporal_sweep.hpp)
  // The order blocks are handed out in: z blocks outermost (planes of blocks, for kernels that sweep
  // rows), or innermost (each y and x block marched along z, for the z-column kernel, whose next z
  // block finds the planes below it still in L2). Set by the kernel variant, not by configuration.
  bool z_innermost = false;
  // How many rows ahead the z-column kernel prefetches (column_rows.hpp); 0 = its rule for the radius
  // (default_prefetch_rows). The other kernels ignore it.
  int prefetch_rows = 0;

  // The block size actually used on `axis` for a region of extent `extent`.
  std::int64_t effective(int axis, std::int64_t extent) const {
    return (size[axis] <= 0 || size[axis] > extent) ? extent : size[axis];
  }
};

}  // namespace wave3d
