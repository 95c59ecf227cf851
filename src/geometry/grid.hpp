#pragma once
// Grid: the global problem: extent in points (n1 fastest), isotropic spacing, boundary kind, and
// the stencil radius that decides which points are updated.
#include "geometry/box.hpp"

namespace wave3d {

enum class Boundary { zero, periodic };

struct Grid {
  Index3 n{0, 0, 0};     // global points per axis, x (n1) first
  double spacing = 1.0;  // metres between points, the same on every axis
  Boundary boundary = Boundary::zero;
  int radius = 8;  // stencil half-length R

  Box whole() const { return box_from_extents(n); }

  // Points the time step updates. With zero boundaries the outer R layer is held fixed (as ISO3DFD);
  // with periodic boundaries every point is updated.
  Box updated() const { return boundary == Boundary::periodic ? whole() : whole().grown(-radius); }

  std::int64_t updated_points() const { return updated().volume(); }
};

}  // namespace wave3d
