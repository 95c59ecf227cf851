#pragma once
// What the halo exchanges (halo_exchange.cpp, folded_halo_exchange.cpp, deep_halo_exchange.cpp) share: the boxes a message
// carries, the MPI type of a field value, their phase timer and how they walk a face's rows. Internal
// to mpi/.
#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "field/field.hpp"
#include "geometry/box.hpp"
#include "mpi/decomposition.hpp"

namespace wave3d::mpi::halo {

template <typename T>
MPI_Datatype datatype_of() {
  static_assert(sizeof(T) == sizeof(float) || sizeof(T) == sizeof(double), "fields hold float or double");
  return sizeof(T) == sizeof(double) ? MPI_DOUBLE : MPI_FLOAT;
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The tag of a face's message travelling along `axis` in `direction` (halo_exchange.hpp's protocol).
inline int travel_tag(int axis, int direction) { return 2 * axis + (direction > 0 ? 1 : 0); }

// A box as [x0..x1, y0..y1, z0..z1), for error messages.
inline std::string box_text(const Box& b) {
  std::string s = "[";
  for (int a = 0; a < 3; ++a) s += (a > 0 ? ", " : "") + std::to_string(b.lo[a]) + ".." + std::to_string(b.hi[a]);
  return s + ')';
}

// The offset (-1, 0 or +1 per axis) of the face neighbour one step along `axis` in `direction`.
inline Dims3 face_offset(int axis, int direction) {
  Dims3 d{0, 0, 0};
  d[static_cast<std::size_t>(axis)] = direction < 0 ? -1 : 1;
  return d;
}

// The owned cells within `width` of the faces `d` points to (the full owned range along an axis
// where d is 0): what the neighbour at offset d needs.
inline Box send_box(const Box& owned, const Dims3& d, int width) {
  Box b = owned;
  for (std::size_t a = 0; a < 3; ++a) {
    if (d[a] < 0) b.hi[a] = owned.lo[a] + width;
    if (d[a] > 0) b.lo[a] = owned.hi[a] - width;
  }
  return b;
}

// The halo cells at offset `d`: `width` deep beyond each face d points to.
inline Box ghost_box(const Box& owned, const Dims3& d, int width) {
  Box b = owned;
  for (std::size_t a = 0; a < 3; ++a) {
    if (d[a] < 0) {
      b.lo[a] = owned.lo[a] - width;
      b.hi[a] = owned.lo[a];
    }
    if (d[a] > 0) {
      b.lo[a] = owned.hi[a];
      b.hi[a] = owned.hi[a] + width;
    }
  }
  return b;
}

// The offset in its field of row `row` of `box`, rows numbered y fastest, then z (the order in which
// the exchanges copy them and lay them out in their buffers).
template <typename T>
std::int64_t row_offset(const Field<T>& f, const Box& box, std::int64_t row) {
  const std::int64_t ny = box.extent(1);
  return f.offset(box.lo[0], box.lo[1] + row % ny, box.lo[2] + row / ny);
}

// How many rows ahead of the one being copied a short row is asked for.
inline constexpr std::int64_t kShortRowsAhead = 64;

// Asks for the first four lines of row `row` + kShortRowsAhead of `box` (if there is one) when the
// box's rows are that short: a face across x is R values per (y, z), each row in lines of its own a row
// stride from the next, and copying them one after the other waits on every line in turn; the hardware
// prefetchers follow long rows but not these. (x faces of a 256^3 grid over 2 x 1 x 1 ranks, R = 8, AMD
// Zen 5: pack 0.72 -> 0.33 ms per step with 64 rows ahead, 0.41 with 24, 0.56 with 8.) ForWrite: the
// row is a target.
//
// Always inlined, with no lambda: GCC counts a function whose only effect is a prefetch as one
// without effects, and drops the calls to it.
template <bool ForWrite, typename T>
[[gnu::always_inline]] inline void prefetch_short_row_ahead(const Field<T>& f, const Box& box, std::int64_t row) {
  constexpr auto kLine = static_cast<std::uintptr_t>(kCacheLine);
  constexpr int kWrite = ForWrite ? 1 : 0;
  const auto bytes = static_cast<std::uintptr_t>(box.extent(0)) * sizeof(T);
  const std::int64_t ahead = row + kShortRowsAhead;
  if (bytes > 4 * kLine || ahead >= box.extent(1) * box.extent(2)) return;
  const auto start = reinterpret_cast<std::uintptr_t>(f.data() + row_offset(f, box, ahead));
  const std::uintptr_t end = start + bytes, line = start / kLine * kLine;
  __builtin_prefetch(reinterpret_cast<const void*>(line), kWrite, 3);
  if (line + kLine < end) __builtin_prefetch(reinterpret_cast<const void*>(line + kLine), kWrite, 3);
  if (line + 2 * kLine < end) __builtin_prefetch(reinterpret_cast<const void*>(line + 2 * kLine), kWrite, 3);
  if (line + 3 * kLine < end) __builtin_prefetch(reinterpret_cast<const void*>(line + 3 * kLine), kWrite, 3);
}

}  // namespace wave3d::mpi::halo
