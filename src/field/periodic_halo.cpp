#include "field/periodic_halo.hpp"

namespace wave3d {
namespace {

std::int64_t wrap(std::int64_t i, std::int64_t n) {
  const std::int64_t r = i % n;
  return r < 0 ? r + n : r;
}

}  // namespace

template <typename T>
void fill_periodic_halo(Field<T>& field, const Grid& grid) {
  const Box owned = field.owned();
  const std::int64_t h = field.halo();
  Box span = owned;  // the range already valid; grows by the halo on each filled axis
  for (int axis = 0; axis < 3; ++axis) {
    if (owned.lo[axis] != 0 || owned.hi[axis] != grid.n[axis]) continue;
    const std::int64_t n = grid.n[axis];
    const int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
#pragma omp parallel for collapse(2) schedule(static)
    for (std::int64_t j = span.lo[a2]; j < span.hi[a2]; ++j)
      for (std::int64_t i = span.lo[a1]; i < span.hi[a1]; ++i)
        for (std::int64_t g = 1; g <= h; ++g) {
          Index3 lo_ghost{}, hi_ghost{}, lo_src{}, hi_src{};
          lo_ghost[a1] = hi_ghost[a1] = lo_src[a1] = hi_src[a1] = i;
          lo_ghost[a2] = hi_ghost[a2] = lo_src[a2] = hi_src[a2] = j;
          lo_ghost[axis] = -g;
          lo_src[axis] = wrap(-g, n);
          hi_ghost[axis] = n - 1 + g;
          hi_src[axis] = wrap(n - 1 + g, n);
          field.at(lo_ghost[0], lo_ghost[1], lo_ghost[2]) = field.at(lo_src[0], lo_src[1], lo_src[2]);
          field.at(hi_ghost[0], hi_ghost[1], hi_ghost[2]) = field.at(hi_src[0], hi_src[1], hi_src[2]);
        }
    span.lo[axis] -= h;
    span.hi[axis] += h;
  }
}

template void fill_periodic_halo<float>(Field<float>&, const Grid&);
template void fill_periodic_halo<double>(Field<double>&, const Grid&);

}  // namespace wave3d
