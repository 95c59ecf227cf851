#include "io/hdf5/grid_dataset.hpp"

#include <fmt/format.h>

#include <array>
#include <stdexcept>

#include "io/hdf5/parallel_file.hpp"

namespace wave3d::io {

template <>
hid_t native_type<float>() {
  return H5T_NATIVE_FLOAT;
}
template <>
hid_t native_type<double>() {
  return H5T_NATIVE_DOUBLE;
}

namespace {

// HDF5's dimension order {z, y, x} of an x, y, z triple.
std::array<hsize_t, 3> zyx(const Index3& v) {
  return {static_cast<hsize_t>(v[2]), static_cast<hsize_t>(v[1]), static_cast<hsize_t>(v[0])};
}

std::string box_text(const Box& b) {
  return fmt::format("[{}, {}) x [{}, {}) x [{}, {})", b.lo[0], b.hi[0], b.lo[1], b.hi[1], b.lo[2], b.hi[2]);
}

// The dataset's file space with this rank's box selected (nothing for an empty box).
Hid file_selection(hid_t dataset, const Box& box) {
  Hid space(H5Dget_space(dataset), H5Sclose, "cannot get the dataspace of a grid dataset");
  std::array<hsize_t, 3> dims{};
  if (H5Sget_simple_extent_ndims(space.get()) != 3 || H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) != 3)
    throw Hdf5Error("a grid dataset is not three-dimensional");
  if (box.empty()) {
    check_status(H5Sselect_none(space.get()), "cannot clear a selection");
    return space;
  }
  const std::array<hsize_t, 3> start = zyx(box.lo), count = zyx(box.extents());
  for (int d = 0; d < 3; ++d)
    if (box.lo[2 - d] < 0 || start[d] + count[d] > dims[d])
      throw std::invalid_argument(fmt::format("box {} lies outside the dataset's grid {}x{}x{}", box_text(box), dims[2],
                                              dims[1], dims[0]));
  check_status(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
               "cannot select a box of a grid dataset");
  return space;
}

// The buffer as planes x plane_stride values with the box selected as one regular hyperslab.
template <typename T>
Hid memory_selection(const StridedBox<T>& v) {
  const Box& b = v.box;
  if (b.empty()) {
    const hsize_t one = 1;
    Hid space(H5Screate_simple(1, &one, nullptr), H5Sclose, "cannot create a memory dataspace");
    check_status(H5Sselect_none(space.get()), "cannot clear a selection");
    return space;
  }
  const std::int64_t n1 = b.extent(0), n2 = b.extent(1), n3 = b.extent(2);
  const std::int64_t plane = v.plane_stride, row = v.row_stride;
  if (v.data == nullptr || v.first < 0 || row < n1 || plane <= 0 || v.first % plane + (n2 - 1) * row + n1 > plane)
    throw std::invalid_argument(fmt::format("box {} does not fit its buffer (first {}, row stride {}, plane stride {})",
                                            box_text(b), v.first, row, plane));
  const std::array<hsize_t, 2> dims{static_cast<hsize_t>(v.first / plane + n3), static_cast<hsize_t>(plane)};
  const std::array<hsize_t, 2> start{static_cast<hsize_t>(v.first / plane), static_cast<hsize_t>(v.first % plane)};
  const std::array<hsize_t, 2> stride{1, static_cast<hsize_t>(row)};
  const std::array<hsize_t, 2> count{static_cast<hsize_t>(n3), static_cast<hsize_t>(n2)};
  const std::array<hsize_t, 2> block{1, static_cast<hsize_t>(n1)};
  Hid space(H5Screate_simple(2, dims.data(), nullptr), H5Sclose, "cannot create a memory dataspace");
  check_status(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), stride.data(), count.data(), block.data()),
               "cannot select a box in memory");
  return space;
}

}  // namespace

template <typename T>
Hid create_grid_dataset(hid_t file, const std::string& name, const Index3& global_n) {
  silence_hdf5_errors();
  const std::array<hsize_t, 3> dims = zyx(global_n);
  const Hid space(H5Screate_simple(3, dims.data(), nullptr), H5Sclose, "cannot create the dataspace of '" + name + "'");
  const Hid dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "cannot create a dataset creation property list");
  check_status(H5Pset_layout(dcpl.get(), H5D_CONTIGUOUS), "cannot make '" + name + "' contiguous");
  check_status(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY), "cannot allocate '" + name + "' early");
  // Filling would write the whole dataset once more before the ranks write it.
  check_status(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), "cannot turn off fill values of '" + name + "'");
  return Hid(H5Dcreate2(file, name.c_str(), native_type<T>(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
             H5Dclose, "cannot create dataset '" + name + "'");
}

Hid open_grid_dataset(hid_t file, const std::string& name) {
  silence_hdf5_errors();
  if (H5Lexists(file, name.c_str(), H5P_DEFAULT) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw Hdf5Error("there is no dataset '" + name + "'");
  }
  return Hid(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, "cannot open dataset '" + name + "'");
}

GridDatasetShape grid_dataset_shape(hid_t dataset, const std::string& name) {
  const Hid space(H5Dget_space(dataset), H5Sclose, "cannot get the dataspace of '" + name + "'");
  std::array<hsize_t, 3> dims{};
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank != 3) throw Hdf5Error(fmt::format("dataset '{}' has {} dimensions, a grid has 3", name, rank));
  check_status(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), "cannot read the extent of '" + name + "'");
  const Hid type(H5Dget_type(dataset), H5Tclose, "cannot get the type of '" + name + "'");
  GridDatasetShape shape;
  shape.n = {static_cast<std::int64_t>(dims[2]), static_cast<std::int64_t>(dims[1]), static_cast<std::int64_t>(dims[0])};
  shape.floating_point = H5Tget_class(type.get()) == H5T_FLOAT;
  shape.value_bytes = H5Tget_size(type.get());
  return shape;
}

std::uint64_t contiguous_data_offset(hid_t dataset, const std::string& name) {
  const haddr_t offset = H5Dget_offset(dataset);
  if (offset == HADDR_UNDEF) throw Hdf5Error("dataset '" + name + "' has no single location in its file");
  return offset;
}

template <typename T>
void write_box(hid_t dataset, const StridedBox<const T>& values) {
  silence_hdf5_errors();
  const Hid file_space = file_selection(dataset, values.box);
  const Hid memory_space = memory_selection(values);
  const Hid transfer = collective_transfer();
  const T dummy{};  // HDF5 wants a buffer even when this rank selects nothing
  check_status(H5Dwrite(dataset, native_type<T>(), memory_space.get(), file_space.get(), transfer.get(),
                        values.box.empty() ? &dummy : values.data),
               "cannot write box " + box_text(values.box));
}

template <typename T>
void read_box(hid_t dataset, const StridedBox<T>& values) {
  silence_hdf5_errors();
  const Hid file_space = file_selection(dataset, values.box);
  const Hid memory_space = memory_selection(values);
  const Hid transfer = collective_transfer();
  T dummy{};
  check_status(H5Dread(dataset, native_type<T>(), memory_space.get(), file_space.get(), transfer.get(),
                       values.box.empty() ? &dummy : values.data),
               "cannot read box " + box_text(values.box));
}

template Hid create_grid_dataset<float>(hid_t, const std::string&, const Index3&);
template Hid create_grid_dataset<double>(hid_t, const std::string&, const Index3&);
template void write_box<float>(hid_t, const StridedBox<const float>&);
template void write_box<double>(hid_t, const StridedBox<const double>&);
template void read_box<float>(hid_t, const StridedBox<float>&);
template void read_box<double>(hid_t, const StridedBox<double>&);

}  // namespace wave3d::io
