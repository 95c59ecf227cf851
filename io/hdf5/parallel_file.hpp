#pragma once
// HDF5 files opened by every rank of a communicator together, through MPI-IO (HDF5's mpio driver).
// Every function here is collective: all ranks of comm call it with the same arguments. Metadata is
// read and written collectively (one rank touches the disk and shares it), so opening a file costs
// the same on 1 or 1000 ranks. Files are written in the HDF5 1.8 format, readable by every current
// tool (h5py, h5dump, ParaView, VisIt).
#include <mpi.h>

#include <filesystem>

#include "io/hdf5/hid.hpp"

namespace wave3d::io {

// Creates (or truncates) path. Throws Hdf5Error naming the path.
Hid create_parallel_file(MPI_Comm comm, const std::filesystem::path& path);

// Opens an existing file for reading. Throws Hdf5Error naming the path and HDF5's reason (not an
// HDF5 file, truncated, ...).
Hid open_parallel_file(MPI_Comm comm, const std::filesystem::path& path);

// The collective transfer property list for H5Dwrite/H5Dread (H5FD_MPIO_COLLECTIVE).
Hid collective_transfer();

}  // namespace wave3d::io
