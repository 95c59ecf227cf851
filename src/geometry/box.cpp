#include "geometry/box.hpp"

namespace wave3d {

std::vector<Box> boxes_outside(const Box& outer, const Box& inner) {
  if (inner.empty()) return outer.empty() ? std::vector<Box>{} : std::vector<Box>{outer};
  std::vector<Box> pieces;
  Box rest = outer;  // shrinks to inner one axis at a time, z first so the big slabs come first
  for (int axis = 2; axis >= 0; --axis) {
    Box below = rest, above = rest;
    below.hi[axis] = inner.lo[axis];
    above.lo[axis] = inner.hi[axis];
    if (!below.empty()) pieces.push_back(below);
    if (!above.empty()) pieces.push_back(above);
    rest.lo[axis] = inner.lo[axis];
    rest.hi[axis] = inner.hi[axis];
  }
  return pieces;
}

}  // namespace wave3d
