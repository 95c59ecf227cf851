#pragma once
// One field of the whole grid as a 3D HDF5 dataset, and the collective transfer of each rank's box of
// it. The dataset's dimensions are {n3, n2, n1}: z slowest, x fastest, like the field layout in
// memory, so h5py and numpy index it as u[z, y, x].
//
// Memory side: a box's values lie in a buffer as rows of n1 values, rows `row_stride` apart, planes
// `plane_stride` apart (a Field<T> with its halo and padding, or a plain contiguous array). HDF5 sees
// the buffer as a 2D array of planes x plane_stride values and the box as one regular hyperslab of
// it (count {n3, n2}, block {1, n1}, stride {1, row_stride}), so nothing is copied and each rank's
// part is one MPI datatype in a single collective MPI-IO call.
#include <hdf5.h>

#include <cstdint>
#include <string>

#include "field/field.hpp"
#include "geometry/box.hpp"
#include "io/hdf5/hid.hpp"

namespace wave3d::io {

// The HDF5 memory type of a value type: H5T_NATIVE_FLOAT, H5T_NATIVE_DOUBLE.
template <typename T>
hid_t native_type();

// Where the values of `box` lie: value (x, y, z) is at
// data[first + (z - box.lo[2]) * plane_stride + (y - box.lo[1]) * row_stride + (x - box.lo[0])].
template <typename T>
struct StridedBox {
  T* data = nullptr;
  Box box{};
  std::int64_t first = 0;
  std::int64_t row_stride = 0;    // >= box extent along x
  std::int64_t plane_stride = 0;  // >= the span of the box's rows in one plane
};

// `box` (inside f.with_halo()) of a field, or its owned box.
template <typename T>
StridedBox<T> strided_box(Field<T>& f, const Box& box) {
  return {f.data(), box, f.offset(box.lo[0], box.lo[1], box.lo[2]), f.row_stride(), f.plane_stride()};
}
template <typename T>
StridedBox<const T> strided_box(const Field<T>& f, const Box& box) {
  return {f.data(), box, f.offset(box.lo[0], box.lo[1], box.lo[2]), f.row_stride(), f.plane_stride()};
}
template <typename T>
StridedBox<const T> owned_box(const Field<T>& f) {
  return strided_box(f, f.owned());
}
template <typename T>
StridedBox<T> owned_box(Field<T>& f) {
  return strided_box(f, f.owned());
}

// Collective. Creates dataset `name` in `file` for a grid of global_n points (x, y, z) of type T,
// contiguous, its file space allocated at once and never filled (every value is written by a rank),
// so the raw data is one block of the file at a fixed offset.
template <typename T>
Hid create_grid_dataset(hid_t file, const std::string& name, const Index3& global_n);

// Collective. Opens an existing dataset; throws Hdf5Error naming it when there is none.
Hid open_grid_dataset(hid_t file, const std::string& name);

// What a dataset holds, as read from the file itself.
struct GridDatasetShape {
  Index3 n{0, 0, 0};          // x, y, z (the reverse of the dataset's dimensions)
  bool floating_point = false;
  std::size_t value_bytes = 0;
};
// Throws Hdf5Error when the dataset is not three-dimensional.
GridDatasetShape grid_dataset_shape(hid_t dataset, const std::string& name);

// Byte offset of a contiguous dataset's raw data in its file (for writers that bypass HDF5).
// Throws Hdf5Error when the data has no single location (chunked, or not allocated).
std::uint64_t contiguous_data_offset(hid_t dataset, const std::string& name);

// Collective: every rank writes (reads) its box, which may be empty; boxes of different ranks must
// not overlap when writing. The dataset's type must be T's (no conversion is asked for).
// Throws std::invalid_argument when the box does not fit its strides or the dataset.
template <typename T>
void write_box(hid_t dataset, const StridedBox<const T>& values);
template <typename T>
void read_box(hid_t dataset, const StridedBox<T>& values);

}  // namespace wave3d::io
