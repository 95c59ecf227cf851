#include "field/periodic_halo.hpp"

#include <cstring>

namespace wave3d {
namespace {

std::int64_t wrap(std::int64_t i, std::int64_t n) {
  const std::int64_t r = i % n;
  return r < 0 ? r + n : r;
}

// Ghost layer g (1..h) below and above the owned range [0, n) takes the owned layer one period away.
struct GhostPair {
  std::int64_t low_ghost, low_source, high_ghost, high_source;
};
GhostPair ghost_pair(std::int64_t n, std::int64_t g) { return {-g, wrap(-g, n), n - 1 + g, wrap(n - 1 + g, n)}; }

}  // namespace

template <typename T>
void fill_periodic_halo(Field<T>& field, const Grid& grid) {
  const Box owned = field.owned();
  const std::int64_t h = field.halo();
  auto spans_axis = [&](int axis) { return owned.lo[axis] == 0 && owned.hi[axis] == grid.n[axis]; };
  // The filled range grows by the halo on each periodic axis, so later axes also fill edges and corners.
  Box span = owned;

  if (spans_axis(0)) {  // x: a few elements at both ends of every row
#pragma omp parallel for collapse(2) schedule(static)
    for (std::int64_t z = span.lo[2]; z < span.hi[2]; ++z)
      for (std::int64_t y = span.lo[1]; y < span.hi[1]; ++y) {
        T* row = &field.at(0, y, z);
        for (std::int64_t g = 1; g <= h; ++g) {
          const GhostPair p = ghost_pair(grid.n[0], g);
          row[p.low_ghost] = row[p.low_source];
          row[p.high_ghost] = row[p.high_source];
        }
      }
    span.lo[0] -= h;
    span.hi[0] += h;
  }
  const std::size_t row_bytes = static_cast<std::size_t>(span.extent(0)) * sizeof(T);
  if (spans_axis(1)) {  // y: whole rows within each plane
#pragma omp parallel for collapse(2) schedule(static)
    for (std::int64_t z = span.lo[2]; z < span.hi[2]; ++z)
      for (std::int64_t g = 1; g <= h; ++g) {
        const GhostPair p = ghost_pair(grid.n[1], g);
        std::memcpy(&field.at(span.lo[0], p.low_ghost, z), &field.at(span.lo[0], p.low_source, z), row_bytes);
        std::memcpy(&field.at(span.lo[0], p.high_ghost, z), &field.at(span.lo[0], p.high_source, z), row_bytes);
      }
    span.lo[1] -= h;
    span.hi[1] += h;
  }
  if (spans_axis(2)) {  // z: whole planes, row by row
#pragma omp parallel for collapse(2) schedule(static)
    for (std::int64_t g = 1; g <= h; ++g)
      for (std::int64_t y = span.lo[1]; y < span.hi[1]; ++y) {
        const GhostPair p = ghost_pair(grid.n[2], g);
        std::memcpy(&field.at(span.lo[0], y, p.low_ghost), &field.at(span.lo[0], y, p.low_source), row_bytes);
        std::memcpy(&field.at(span.lo[0], y, p.high_ghost), &field.at(span.lo[0], y, p.high_source), row_bytes);
      }
  }
}

template void fill_periodic_halo<float>(Field<float>&, const Grid&);
template void fill_periodic_halo<double>(Field<double>&, const Grid&);

}  // namespace wave3d
