#pragma once
// Where the points of a field file lie, as HDF5 dimension scales (the H5DS convention of HDF5's
// high-level library): 1-D datasets /x, /y and /z with each point's coordinate in metres (index x
// spacing, origin 0, attribute units = "m"), attached to the three dimensions of every grid dataset
// ([z][y][x]) and labelled z, y, x. h5py (dataset.dims), HDFView, netCDF readers and ParaView's
// netCDF/HDF5 readers then know the axes and their coordinates without reading wave3d's attributes.
//
// Collective in a file open on every rank through MPI-IO: every rank calls with the same values (the
// scales' values are written by the first rank of `comm` alone, in one collective transfer).
#include <hdf5.h>
#include <mpi.h>

#include "geometry/box.hpp"
#include "io/hdf5/hid.hpp"

namespace wave3d::io {

struct CoordinateScales {
  Hid x, y, z;
};

// Creates /x, /y, /z for a grid of n points (x, y, z) `spacing` metres apart and writes their values.
CoordinateScales write_coordinate_scales(MPI_Comm comm, hid_t file, const Index3& n, double spacing);

// Attaches the scales to the dimensions of a [z][y][x] grid dataset and labels the dimensions.
void attach_coordinate_scales(hid_t dataset, const CoordinateScales& scales);

}  // namespace wave3d::io
