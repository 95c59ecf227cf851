#pragma once
// Box: a half-open 3D index range [lo, hi) in global grid indices, x (axis 0, n1) fastest.
#include <array>
#include <cstdint>
#include <vector>

namespace wave3d {

using Index3 = std::array<std::int64_t, 3>;

// How messages name the axes: x is axis 0 (fastest), z axis 2.
inline constexpr const char* kAxisNames[3] = {"x", "y", "z"};

struct Box {
  Index3 lo{0, 0, 0};
  Index3 hi{0, 0, 0};

  std::int64_t extent(int axis) const { return hi[axis] > lo[axis] ? hi[axis] - lo[axis] : 0; }
  Index3 extents() const { return {extent(0), extent(1), extent(2)}; }
  std::int64_t volume() const { return extent(0) * extent(1) * extent(2); }
  bool empty() const { return volume() == 0; }
  bool contains(const Index3& p) const {
    for (int a = 0; a < 3; ++a)
      if (p[a] < lo[a] || p[a] >= hi[a]) return false;
    return true;
  }
  // The box grown by `width` cells on every side (negative shrinks).
  Box grown(std::int64_t width) const {
    Box b = *this;
    for (int a = 0; a < 3; ++a) {
      b.lo[a] -= width;
      b.hi[a] += width;
    }
    return b;
  }
  friend bool operator==(const Box&, const Box&) = default;
};

inline Box intersect(const Box& a, const Box& b) {
  Box r;
  for (int i = 0; i < 3; ++i) {
    r.lo[i] = a.lo[i] > b.lo[i] ? a.lo[i] : b.lo[i];
    r.hi[i] = a.hi[i] < b.hi[i] ? a.hi[i] : b.hi[i];
    if (r.hi[i] < r.lo[i]) r.hi[i] = r.lo[i];
  }
  return r;
}

inline Box box_from_extents(const Index3& n) { return Box{{0, 0, 0}, n}; }

// Per axis (x, y, z) and side (0 = low, 1 = high) flags: e.g. the faces of a subdomain that border
// a neighbour.
using FaceFlags = std::array<std::array<bool, 2>, 3>;

inline bool any_face(const FaceFlags& faces) {
  for (const auto& axis : faces)
    if (axis[0] || axis[1]) return true;
  return false;
}

// Per axis: whether either of its faces is marked.
inline std::array<bool, 3> axes_of(const FaceFlags& faces) {
  return {faces[0][0] || faces[0][1], faces[1][0] || faces[1][1], faces[2][0] || faces[2][1]};
}

// The faces of `faces` on the axes marked in `axes`.
inline FaceFlags faces_on(const FaceFlags& faces, const std::array<bool, 3>& axes) {
  FaceFlags r{};
  for (std::size_t a = 0; a < 3; ++a)
    if (axes[a]) r[a] = faces[a];
  return r;
}

// `b` with every face marked in `faces` moved outward by `width` (inward if width is negative).
inline Box grown_at(const Box& b, const FaceFlags& faces, std::int64_t width) {
  Box r = b;
  for (std::size_t a = 0; a < 3; ++a) {
    if (faces[a][0]) r.lo[a] -= width;
    if (faces[a][1]) r.hi[a] += width;
  }
  return r;
}

// The part of `outer` not in `inner` (inner must lie inside outer), as at most six disjoint boxes:
// the z slabs below and above inner, then the y slabs and the x slabs of inner's z range. Empty
// pieces are left out; an empty inner gives outer itself.
std::vector<Box> boxes_outside(const Box& outer, const Box& inner);

}  // namespace wave3d
