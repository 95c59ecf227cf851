#pragma once
// The NUMA-aware direct write of a field file: the same file as write_field_file (field_file_writer.hpp:
// header attributes, one contiguous dataset per field with its "time_level" and "checksum" attributes,
// written under a temporary name and published complete), but the values do not go through HDF5.
//
//   1. Collective, through MPI-IO: create the file, its header and its datasets. The datasets are
//      contiguous with their file space allocated at creation and never filled, so each one's raw
//      data is one block of the file whose offset H5Dget_offset gives. Close the file.
//   2. Every rank opens the file with open(2) and its I/O threads, each bound to the NUMA node its
//      part of the field's memory is on, pwrite the rank's owned rows (x-runs) at
//      offset + ((z * ny + y) * nx + x) * sizeof(T) of the [z][y][x] dataset; fsync; close.
//   3. Agree that every rank succeeded (one message, on every rank, when one failed), then rank 0
//      publishes the file under its final name.
//
// The datasets hold exactly what the collective write puts there (the tests compare them bitwise and
// read them with h5py). It needs a file system on which a file written through MPI-IO can then be
// written with POSIX calls by every rank: any local or POSIX-coherent parallel file system (Lustre,
// GPFS, BeeGFS); not object stores or MPI-IO drivers without a POSIX file behind them.
#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <vector>

#include "geometry/grid.hpp"
#include "io/hdf5/field_file_header.hpp"
#include "io/hdf5/field_file_writer.hpp"

namespace wave3d::io {

struct DirectWriteOptions {
  int io_threads = 0;  // per rank; 0 = one per NUMA node holding the rank's field
  bool bind = true;    // bind each I/O thread to the cores of its node within the rank's binding
};

struct DirectWriteReport {
  std::uint64_t bytes = 0;         // field values written, all ranks together
  double slowest_rank_seconds = 0;  // the longest time a rank's I/O threads took (step 2)
  int io_threads_max = 0;          // the most I/O threads a rank used
};

// Collective. Throws mpi::CollectiveError on every rank when any rank fails (creating, writing,
// publishing), naming the file and the reason.
template <typename T>
DirectWriteReport write_field_file_direct(MPI_Comm comm, const std::filesystem::path& path,
                                          const FieldFileHeader& header, const std::vector<FieldToWrite<T>>& fields,
                                          const Grid& grid, const DirectWriteOptions& options = {});

}  // namespace wave3d::io
