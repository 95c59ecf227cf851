#include "field/first_touch.hpp"

#include "stencil/block_loop.hpp"

namespace wave3d {

template <typename T>
void first_touch(Field<T>& field, InitPolicy policy, const Blocking& blocking) {
  T* base = field.data();
  if (policy == InitPolicy::serial) {
    for (std::int64_t i = 0; i < field.allocated_elements(); ++i) base[i] = T(0);
    return;
  }
  const Box owned = field.owned();
  const std::int64_t h = field.halo();
  const std::int64_t ld1 = field.row_stride();
  // Blocks on the faces of the owned box also take the halo, padding and row tails beyond them, so
  // every element a kernel or halo exchange can reach is written exactly once by the thread whose block is nearest.
  for_each_block(owned, blocking, [&](const Box& b) {
    const std::int64_t z0 = b.lo[2] == owned.lo[2] ? b.lo[2] - h : b.lo[2];
    const std::int64_t z1 = b.hi[2] == owned.hi[2] ? b.hi[2] + h : b.hi[2];
    const std::int64_t y0 = b.lo[1] == owned.lo[1] ? b.lo[1] - h : b.lo[1];
    const std::int64_t y1 = b.hi[1] == owned.hi[1] ? b.hi[1] + h : b.hi[1];
    for (std::int64_t z = z0; z < z1; ++z) {
      for (std::int64_t y = y0; y < y1; ++y) {
        const std::int64_t row = field.row_begin_offset(y, z);
        const std::int64_t first = b.lo[0] == owned.lo[0] ? row : field.offset(b.lo[0], y, z);
        const std::int64_t last = b.hi[0] == owned.hi[0] ? row + ld1 : field.offset(b.hi[0], y, z);
        for (std::int64_t i = first; i < last; ++i) base[i] = T(0);
      }
    }
  });
}

template void first_touch<float>(Field<float>&, InitPolicy, const Blocking&);
template void first_touch<double>(Field<double>&, InitPolicy, const Blocking&);

}  // namespace wave3d
