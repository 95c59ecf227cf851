#pragma once
// Where the owned points of a subdomain go in a global dataset stored contiguously in C order with
// dimensions (nz, ny, nx): x fastest, as HDF5 lays out a dataset of shape (n[2], n[1], n[0]). Each
// x-row of the box is one segment from memory to the file; rows that follow each other in the file
// (a box spanning all of x) are written together by write_segments.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "field/field.hpp"
#include "geometry/box.hpp"
#include "iobench/write_segment.hpp"

namespace wave3d {

// A box of elements in memory: `first` is the box's lowest corner (box.lo), rows and planes are
// `row_stride` and `plane_stride` elements apart.
struct BoxRows {
  const std::byte* first = nullptr;
  std::int64_t row_stride = 0;
  std::int64_t plane_stride = 0;
  std::size_t element_bytes = 0;
  Box box;
};

// Byte offset of global point p in the C-order dataset of extents n (x fastest), from its start.
std::uint64_t c_order_offset(const Index3& n, const Index3& p, std::size_t element_bytes);

// One segment per x-row of the box, in file order (z, then y), at dataset_offset + c_order_offset.
// Throws std::invalid_argument when the box does not lie inside the dataset's extents.
std::vector<WriteSegment> box_rows_in_dataset(const BoxRows& source, const Index3& global_extents,
                                              std::uint64_t dataset_offset);

// The owned box of a field.
template <typename T>
BoxRows owned_rows(const Field<T>& field) {
  const Box& owned = field.owned();
  return BoxRows{.first = reinterpret_cast<const std::byte*>(&field.at(owned.lo[0], owned.lo[1], owned.lo[2])),
                    .row_stride = field.row_stride(),
                    .plane_stride = field.plane_stride(),
                    .element_bytes = sizeof(T),
                    .box = owned};
}

}  // namespace wave3d
