#include "io/hdf5/coordinate_scales.hpp"

#include <hdf5_hl.h>

#include <string>
#include <vector>

#include "io/hdf5/attributes.hpp"
#include "io/hdf5/parallel_file.hpp"

namespace wave3d::io {
namespace {

Hid write_scale(MPI_Comm comm, hid_t file, const std::string& axis, std::int64_t points, double spacing) {
  const hsize_t size = static_cast<hsize_t>(points);
  const Hid space(H5Screate_simple(1, &size, nullptr), H5Sclose, "cannot create the dataspace of '" + axis + "'");
  Hid scale(H5Dcreate2(file, axis.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
            H5Dclose, "cannot create the coordinate dataset '" + axis + "'");
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // One writer: the values are the same on every rank, and MPI-IO leaves overlapping writes undefined.
  std::vector<double> coordinates(rank == 0 ? points : 0);
  for (std::size_t i = 0; i < coordinates.size(); ++i) coordinates[i] = static_cast<double>(i) * spacing;
  const Hid selection(H5Dget_space(scale.get()), H5Sclose, "cannot get the dataspace of '" + axis + "'");
  const Hid memory(H5Screate_simple(1, &size, nullptr), H5Sclose, "cannot create a memory dataspace");
  if (rank != 0) {
    check_status(H5Sselect_none(selection.get()), "cannot select nothing of '" + axis + "'");
    check_status(H5Sselect_none(memory.get()), "cannot select nothing in memory");
  }
  const double dummy = 0.0;  // HDF5 wants a buffer even when this rank selects nothing
  const Hid transfer = collective_transfer();
  check_status(H5Dwrite(scale.get(), H5T_NATIVE_DOUBLE, memory.get(), selection.get(), transfer.get(),
                        coordinates.empty() ? &dummy : coordinates.data()),
               "cannot write the coordinates '" + axis + "'");
  write_text_attribute(scale.get(), "units", "m");
  const std::string name = axis + " (m)";
  check_status(H5DSset_scale(scale.get(), name.c_str()), "cannot make '" + axis + "' a dimension scale");
  return scale;
}

}  // namespace

CoordinateScales write_coordinate_scales(MPI_Comm comm, hid_t file, const Index3& n, double spacing) {
  return {write_scale(comm, file, "x", n[0], spacing), write_scale(comm, file, "y", n[1], spacing),
          write_scale(comm, file, "z", n[2], spacing)};
}

void attach_coordinate_scales(hid_t dataset, const CoordinateScales& scales) {
  const hid_t by_dimension[3] = {scales.z.get(), scales.y.get(), scales.x.get()};  // datasets are [z][y][x]
  static constexpr const char* kLabels[3] = {"z", "y", "x"};
  for (unsigned dimension = 0; dimension < 3; ++dimension) {
    check_status(H5DSattach_scale(dataset, by_dimension[dimension], dimension),
                 std::string("cannot attach the coordinates '") + kLabels[dimension] + "'");
    check_status(H5DSset_label(dataset, dimension, kLabels[dimension]),
                 std::string("cannot label dimension ") + kLabels[dimension]);
  }
}

}  // namespace wave3d::io
