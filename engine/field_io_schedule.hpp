#pragma once
// The HDF5 field files of a run, wired into its time loop: before the first step, continue from
// restart.from when it is set; after each step, write the snapshot (output.snapshot_every) and the
// checkpoint (checkpoint.every) that are due. Everything here is collective: a failure on any rank
// becomes one mpi::CollectiveError naming the setting or the file, on every rank.
#include <mpi.h>

#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "engine/field_io_record.hpp"
#include "config/run_config.hpp"
#include "io/hdf5/field_file_header.hpp"
#include "io/hdf5/snapshot_writer.hpp"
#include "io/hdf5/xdmf.hpp"
#include "solver/wave_solver.hpp"

namespace wave3d::engine {

template <typename T>
class FieldIoSchedule {
 public:
  // Collective. With restart.from set, loads the checkpoint into the solver (which then stands at the
  // checkpoint's step), or throws mpi::CollectiveError: "restart.from = 'x.h5': grid 64x64x64 does
  // not match grid.n = 128,128,128". Prepares the directories and the writers the config asks for.
  FieldIoSchedule(const RunConfig& config, MPI_Comm comm, const FieldIoContext& context, WaveSolver<T>& solver);

  // Collective. After the solver reached a new time level: writes the snapshot and the checkpoint due
  // at that level, if any. Returns the seconds this rank spent, or nullopt when nothing was due.
  std::optional<double> after_step();

  // Collective (takes the slowest rank's times). What the run read and wrote.
  FieldIoRecord finish();

 private:
  void restart_from_checkpoint();
  void prepare_writers(const FieldIoContext& context);
  void write_checkpoint(int step);
  void drop_old_checkpoints();
  void write_checkpoint_sidecar();
  std::string snapshot_series_json() const;
  void continue_snapshot_series(const std::filesystem::path& run_directory);

  const RunConfig& config_;
  MPI_Comm comm_;
  int rank_ = 0;
  WaveSolver<T>& solver_;
  io::FieldFileHeader header_;  // what every file of this run says about it (step and time set per file)
  std::optional<io::SnapshotWriter<T>> snapshots_;
  std::filesystem::path checkpoint_directory_;
  std::deque<std::filesystem::path> kept_checkpoints_;
  std::deque<io::XdmfFrame> kept_checkpoint_frames_;  // the same checkpoints, for their XDMF sidecar
  std::string restarted_series_json_;  // the snapshots recorded in the checkpoint this run continues
  FieldIoRecord record_;
};

extern template class FieldIoSchedule<float>;
extern template class FieldIoSchedule<double>;

}  // namespace wave3d::engine
