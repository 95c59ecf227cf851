#pragma once
// Field<T>: one 3D array of a subdomain with a halo of width R on every side, x fastest.
//
// Layout, per z plane (x runs left to right, y down):
//
//   |<- xoff ->|<------- owned n1 ------->|<- R ->|pad|   row length ld1 (multiple of 64 bytes)
//   rows: R halo rows, n2 owned rows, R halo rows         ld2 = n2 + 2R rows per plane
//   planes: R halo planes, n3 owned planes, R halo planes
//
// xoff is at least R, and as small as puts one chosen x of every row on a 64-byte boundary: the
// line start x, by default the first owned x. The kernel's vectors start on cache lines (a vector
// across two lines loads both), so a row the kernel updates from its line start x on takes no more
// vectors than its length needs. Where a zero boundary fixes the first R owned points, the solver
// puts the line start where its updates begin: 240 updated points of a 256-point row are then 15
// vectors of 16 floats, not 16 (R = 8: 1.05-1.07x faster in a loop over the column kernel).
// Indices are global grid indices; the owned box says where this subdomain sits in the grid.
#include <cstddef>
#include <cstdint>

#include "field/aligned_buffer.hpp"
#include "field/plane_stride.hpp"
#include "geometry/box.hpp"

namespace wave3d {

inline constexpr std::size_t kCacheLine = 64;

template <typename T>
class Field {
 public:
  using value_type = T;
  Field() = default;
  // The shape of the allocation for a subdomain, without allocating it (the halo exchange and the
  // memory estimate need it before or without a field).
  struct Layout {
    std::int64_t xoff = 0, ld1 = 0, ld2 = 0, plane = 0, size = 0;  // in elements
  };
  static Layout layout_for(const Box& owned, int halo) { return layout_for(owned, halo, owned.lo[0]); }
  static Layout layout_for(const Box& owned, int halo, std::int64_t line_start_x) {
    const std::int64_t per_line = kCacheLine / sizeof(T);
    Layout l;
    // How far the line start lies beyond the last line boundary at or before the first owned x.
    const std::int64_t past_line = ((line_start_x - owned.lo[0]) % per_line + per_line) % per_line;
    l.xoff = round_up(halo + past_line, per_line) - past_line;
    l.ld1 = round_up(l.xoff + owned.extent(0) + halo, per_line);
    l.ld2 = owned.extent(1) + 2 * halo;
    // Padded so that the lines the column kernel keeps in L1 spread over its sets (plane_stride.hpp).
    l.plane = plane_stride_lines(l.ld1 / per_line, l.ld1 * l.ld2 / per_line, halo) * per_line;
    l.size = l.plane * (owned.extent(2) + 2 * halo);
    return l;
  }

  // huge_pages: back the field with transparent huge pages where the system allows (huge_pages.hpp).
  Field(const Box& owned, int halo, bool huge_pages = false) : Field(owned, halo, huge_pages, owned.lo[0]) {}
  // line_start_x: the global x that starts a cache line in every row (see the header comment).
  Field(const Box& owned, int halo, bool huge_pages, std::int64_t line_start_x)
      : owned_(owned), halo_(halo), line_start_x_(line_start_x) {
    const Layout l = layout_for(owned, halo, line_start_x);
    xoff_ = l.xoff;
    ld1_ = l.ld1;
    ld2_ = l.ld2;
    plane_ = l.plane;
    size_ = l.size;
    buffer_ = AlignedBuffer(static_cast<std::size_t>(size_) * sizeof(T), huge_pages);
  }

  const Box& owned() const { return owned_; }
  Box with_halo() const { return owned_.grown(halo_); }
  int halo() const { return halo_; }
  // The x that starts a cache line in every row.
  std::int64_t line_start_x() const { return line_start_x_; }
  std::int64_t row_stride() const { return ld1_; }    // elements between y neighbours
  std::int64_t plane_stride() const { return plane_; }  // elements between z neighbours
  std::int64_t allocated_elements() const { return size_; }
  std::size_t allocated_bytes() const { return buffer_.bytes(); }

  T* data() { return static_cast<T*>(buffer_.data()); }
  const T* data() const { return static_cast<const T*>(buffer_.data()); }

  // Offset of global point (x, y, z) from data(); valid for points of with_halo().
  std::int64_t offset(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return (z - owned_.lo[2] + halo_) * plane_ + (y - owned_.lo[1] + halo_) * ld1_ + xoff_ + (x - owned_.lo[0]);
  }
  T& at(std::int64_t x, std::int64_t y, std::int64_t z) { return data()[offset(x, y, z)]; }
  const T& at(std::int64_t x, std::int64_t y, std::int64_t z) const { return data()[offset(x, y, z)]; }

  // The allocated span of one row: from its first to one past its last element (halo and padding included).
  std::int64_t row_begin_offset(std::int64_t y, std::int64_t z) const { return offset(owned_.lo[0], y, z) - xoff_; }

  friend void swap(Field& a, Field& b) noexcept {
    using std::swap;
    swap(a.owned_, b.owned_);
    swap(a.halo_, b.halo_);
    swap(a.line_start_x_, b.line_start_x_);
    swap(a.xoff_, b.xoff_);
    swap(a.ld1_, b.ld1_);
    swap(a.ld2_, b.ld2_);
    swap(a.plane_, b.plane_);
    swap(a.size_, b.size_);
    swap(a.buffer_, b.buffer_);
  }

 private:
  static std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }

  Box owned_{};
  int halo_ = 0;
  std::int64_t line_start_x_ = 0;
  std::int64_t xoff_ = 0, ld1_ = 0, ld2_ = 0, plane_ = 0, size_ = 0;
  AlignedBuffer buffer_;
};

}  // namespace wave3d
