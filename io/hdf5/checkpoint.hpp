#pragma once
// Checkpoints: everything a run needs to continue, in one HDF5 file written by all ranks together.
// The leapfrog scheme needs two time levels, so a checkpoint holds the datasets "current" (u at time
// level `step`) and "previous" (u at step - 1), each with its checksum; the header attributes say
// which step, grid, stencil and run it belongs to (the velocity and the source follow from the
// configuration, which a restart must match). It is written like every field file: under
// "<name>.tmp", renamed when complete.
//
// Reading checks the file before trusting it: an HDF5 file at all (truncated or damaged files fail to
// open), of the checkpoint format and version, both datasets present with the same shape, and after
// reading, both checksums equal to those recorded (a damaged data block is caught here).
#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "field/field.hpp"
#include "geometry/grid.hpp"
#include "io/hdf5/field_file_header.hpp"
#include "io/hdf5/field_file_writer.hpp"
#include "io/hdf5/grid_dataset.hpp"
#include "io/hdf5/hid.hpp"

namespace wave3d::io {

inline constexpr char kCurrentDataset[] = "current";
inline constexpr char kPreviousDataset[] = "previous";
// Beside the checkpoints: an XDMF series of their "current" time levels, for ParaView and VisIt.
inline constexpr char kCheckpointSidecar[] = "checkpoints.xmf";

// A file that is not a usable checkpoint; what() says why, without naming the file (the caller does).
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "checkpoint_000120.h5" for step 120.
std::string checkpoint_file_name(std::int64_t step);

// Collective. Writes a checkpoint at time level header.step (header.format is set here). Returns the
// bytes of values written.
template <typename T>
std::uint64_t write_checkpoint(MPI_Comm comm, const std::filesystem::path& path, FieldFileHeader header,
                               const Field<T>& current, const Field<T>& previous, const Grid& grid,
                               const AfterFirstField& after_first_field = {});

class CheckpointReader {
 public:
  // Collective. Opens the file and reads its header and the shape of its datasets. Throws
  // CheckpointError when it cannot be opened or is not a checkpoint of this format.
  CheckpointReader(MPI_Comm comm, const std::filesystem::path& path);

  const FieldFileHeader& header() const { return header_; }
  // The shape of both datasets, as stored (grid extent and value type).
  const GridDatasetShape& shape() const { return shape_; }

  // Collective. Reads the owned boxes of both time levels into the fields and checks the checksums
  // against those recorded. T must match shape().value_bytes (check before calling). Throws
  // CheckpointError.
  template <typename T>
  void read(Field<T>& current, Field<T>& previous, const Grid& grid);

 private:
  MPI_Comm comm_;
  Hid file_;
  FieldFileHeader header_;
  GridDatasetShape shape_;
};

}  // namespace wave3d::io
