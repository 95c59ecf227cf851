#pragma once
// Snapshots: the wavefield every so many steps, one HDF5 file per snapshot written by all ranks
// together, "<directory>/wavefield_<step>.h5" with the dataset "/wavefield" (the whole grid,
// [z][y][x]) and the header attributes (field_file_header.hpp), plus the sidecar
// "<directory>/wavefield.xmf" listing every snapshot written so far, for ParaView and VisIt.
#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "field/field.hpp"
#include "geometry/grid.hpp"
#include "io/hdf5/field_file_header.hpp"
#include "io/hdf5/field_file_writer.hpp"
#include "io/hdf5/xdmf.hpp"

namespace wave3d::io {

inline constexpr char kSnapshotDataset[] = "wavefield";
inline constexpr char kSnapshotSidecar[] = "wavefield.xmf";

// "wavefield_000120.h5" for step 120 (at least six digits, so the files sort by step).
std::string snapshot_file_name(std::int64_t step);

template <typename T>
class SnapshotWriter {
 public:
  // directory must exist on every rank's view of the file system. header: what every snapshot says
  // about the run (its step and time are set per snapshot).
  SnapshotWriter(MPI_Comm comm, std::filesystem::path directory, FieldFileHeader header, Grid grid);

  // Writes one field file (collective; returns the bytes of values written). write_field_file by
  // default; output.snapshot_writer = "io-threads" gives the NUMA-aware direct write instead.
  using FileWriter = std::function<std::uint64_t(MPI_Comm, const std::filesystem::path&, const FieldFileHeader&,
                                                 const std::vector<FieldToWrite<T>>&, const Grid&)>;
  void use_file_writer(FileWriter writer) { file_writer_ = std::move(writer); }

  // Collective. Writes the owned points of u, the wavefield at time level `step`, and rewrites the
  // sidecar (rank 0, atomically). Returns the bytes of values written.
  std::uint64_t write(const Field<T>& u, std::int64_t step);

  const std::vector<std::filesystem::path>& files() const { return files_; }
  // The series the sidecar lists: the frames of a run this one continues (see continue_series), then
  // its own; file names relative to the sidecar's directory.
  const std::vector<XdmfFrame>& frames() const { return frames_; }
  // Puts a continued run's earlier snapshots first in the series (their files relative to this
  // writer's directory, or absolute), so the sidecar shows one series across the restart.
  void continue_series(std::vector<XdmfFrame> earlier);
  std::filesystem::path sidecar() const { return directory_ / kSnapshotSidecar; }

 private:
  MPI_Comm comm_;
  std::filesystem::path directory_;
  FieldFileHeader header_;
  Grid grid_;
  std::vector<XdmfFrame> frames_;
  std::vector<std::filesystem::path> files_;
  FileWriter file_writer_;
};

extern template class SnapshotWriter<float>;
extern template class SnapshotWriter<double>;

}  // namespace wave3d::io
