#pragma once
// Placing the pages of a field: who writes each page first decides the NUMA node it lives on.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "field/field.hpp"
#include "stencil/block_loop.hpp"
#include "stencil/blocking.hpp"

namespace wave3d {

enum class InitPolicy {
  first_touch,  // the threads write the blocks they will compute, in the kernel's static block order
  serial,       // one thread writes everything (all pages on its node: the slow case of the studies)
};

// Writes zero into every allocated element of `field` (halo and padding included) under `policy`.
// sweeps: the regions the kernel updates, in the order it sweeps them, each with a for_each_block of
// its own (kernel_sweeps() of solver/update_regions.hpp); together they must tile a box inside the
// owned box. None: the kernel sweeps the whole owned box at once.
template <typename T>
void first_touch(Field<T>& field, InitPolicy policy, const Blocking& blocking, const std::vector<Box>& sweeps = {});

// Writes zero into every allocated element of `field` for a kernel that sweeps `region` in slabs of
// rows, one per thread: thread t of a team of n writes the rows [starts[t], starts[t + 1]) of it,
// starts = thread_rows(n) (n + 1 values, clipped to the region; temporal blocking's tiles).
template <typename T>
void first_touch_rows(Field<T>& field, const Box& region,
                      const std::function<std::vector<std::int64_t>(int threads)>& thread_rows);

// The work of first_touch: calls write(begin, end) for every run [begin, end) of element offsets from
// field.data(), on the thread that computes the block the run belongs to. visit_blocks(sweep, body)
// calls body(block) for the blocks of each sweep on the threads that compute them (for_each_block's
// static schedule, or a schedule of the kernel's own). A block's run covers its own points and,
// where the block lies on a face of the swept box, everything beyond that face (halo, fixed boundary
// layer, row and plane padding), so each allocated element goes to the thread that computes the
// nearest updated point, exactly once.
template <typename T, typename VisitBlocks, typename Write>
void for_each_touch_span_of(const Field<T>& field, std::vector<Box> sweeps, VisitBlocks&& visit_blocks, Write&& write) {
  const Box owned = field.owned();
  if (sweeps.empty()) sweeps = {owned};
  Box swept{};  // the smallest box holding every sweep
  std::int64_t swept_points = 0;
  for (const Box& s : sweeps) {
    if (s.empty()) continue;
    if (intersect(s, owned) != s) throw std::logic_error("first_touch: a sweep lies outside the owned box");
    if (swept.empty()) swept = s;
    for (int a = 0; a < 3; ++a) {
      swept.lo[a] = std::min(swept.lo[a], s.lo[a]);
      swept.hi[a] = std::max(swept.hi[a], s.hi[a]);
    }
    swept_points += s.volume();
  }
  if (swept_points != swept.volume()) throw std::logic_error("first_touch: the sweeps do not tile a box");
  if (swept.empty()) {  // nothing is computed here: no thread is better placed than another
    write(std::int64_t{0}, field.allocated_elements());
    return;
  }
  const Box all = field.with_halo();
  const std::int64_t ld1 = field.row_stride();
  for (const Box& sweep : sweeps) {
    visit_blocks(sweep, [&](const Box& b) {
      Box t = b;  // the block stretched over every face of `swept` it lies on
      for (int a = 0; a < 3; ++a) {
        if (b.lo[a] == swept.lo[a]) t.lo[a] = all.lo[a];
        if (b.hi[a] == swept.hi[a]) t.hi[a] = all.hi[a];
      }
      const bool x_tail = t.hi[0] == all.hi[0];
      for (std::int64_t z = t.lo[2]; z < t.hi[2]; ++z) {
        for (std::int64_t y = t.lo[1]; y < t.hi[1]; ++y) {
          const std::int64_t row = field.row_begin_offset(y, z);
          const std::int64_t first = t.lo[0] == all.lo[0] ? row : field.offset(t.lo[0], y, z);
          std::int64_t last = x_tail ? row + ld1 : field.offset(t.hi[0], y, z);
          // The plane's padding follows its last row in memory.
          if (x_tail && y == all.hi[1] - 1) last = field.row_begin_offset(all.lo[1], z) + field.plane_stride();
          write(first, last);
        }
      }
    });
  }
}

// The same under for_each_block's static schedule of `blocking` (x blocks cut from the field's line
// start x), as first_touch(field, InitPolicy::first_touch, blocking, sweeps) does it.
template <typename T, typename Write>
void for_each_touch_span(const Field<T>& field, const Blocking& blocking, std::vector<Box> sweeps, Write&& write) {
  const std::int64_t x_origin = field.line_start_x();
  for_each_touch_span_of(
      field, std::move(sweeps),
      [&](const Box& sweep, const auto& body) { for_each_block(sweep, blocking, x_origin, body); },
      std::forward<Write>(write));
}

}  // namespace wave3d
