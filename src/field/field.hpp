#pragma once
// Field<T>: one 3D array of a subdomain with a halo of width R on every side, x fastest.
//
// Layout, per z plane (x runs left to right, y down):
//
//   |<- xoff ->|<------- owned n1 ------->|<- R ->|pad|   row length ld1 (multiple of 64 bytes)
//   rows: R halo rows, n2 owned rows, R halo rows         ld2 = n2 + 2R rows per plane
//   planes: R halo planes, n3 owned planes, R halo planes
//
// xoff is R rounded up to a cache line, so the first owned x of every row is 64-byte aligned.
// Indices are global grid indices; the owned box says where this subdomain sits in the grid.
#include <cstddef>
#include <cstdint>

#include "field/aligned_buffer.hpp"
#include "geometry/box.hpp"

namespace wave3d {

inline constexpr std::size_t kCacheLine = 64;

template <typename T>
class Field {
 public:
  Field() = default;
  // The shape of the allocation for a subdomain, without allocating it (the halo exchange and the
  // memory estimate need it before or without a field).
  struct Layout {
    std::int64_t xoff = 0, ld1 = 0, ld2 = 0, plane = 0, size = 0;  // in elements
  };
  static Layout layout_for(const Box& owned, int halo) {
    const std::int64_t per_line = kCacheLine / sizeof(T);
    Layout l;
    l.xoff = round_up(halo, per_line);
    l.ld1 = round_up(l.xoff + owned.extent(0) + halo, per_line);
    l.ld2 = owned.extent(1) + 2 * halo;
    l.plane = l.ld1 * l.ld2;
    // A plane stride that is a multiple of 4 KiB maps all 2R+1 z-neighbours of a point to one L1
    // set, far more than its ways: pad the plane to an odd number of cache lines modulo 4 KiB.
    while (((l.plane * static_cast<std::int64_t>(sizeof(T))) / static_cast<std::int64_t>(kCacheLine)) % 2 == 0)
      l.plane += per_line;
    l.size = l.plane * (owned.extent(2) + 2 * halo);
    return l;
  }

  // huge_pages: back the field with transparent huge pages where the system allows (huge_pages.hpp).
  Field(const Box& owned, int halo, bool huge_pages = false) : owned_(owned), halo_(halo) {
    const Layout l = layout_for(owned, halo);
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
  std::int64_t xoff_ = 0, ld1_ = 0, ld2_ = 0, plane_ = 0, size_ = 0;
  AlignedBuffer buffer_;
};

}  // namespace wave3d
