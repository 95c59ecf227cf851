#include "engine/field_io_schedule.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/restart_source.hpp"
#include "io/direct/direct_field_file.hpp"
#include "io/hdf5/checkpoint.hpp"
#include "mpi/collective.hpp"
#include "mpi/environment.hpp"
#include "output/provenance.hpp"
#include "output/result_files.hpp"

namespace wave3d::engine {
namespace {

// debug.stall_in_checkpoint: the writer stops here, its temporary file half written, until the test
// kills the job. Every rank says where it is and which process to kill.
[[noreturn]] void stall_until_killed(int rank, int step, const std::filesystem::path& temporary) {
  std::fprintf(stderr, "wave3d: debug.stall_in_checkpoint = %d: rank %d (pid %ld) stalls halfway through writing %s\n",
               step, rank, static_cast<long>(::getpid()), temporary.c_str());
  std::fflush(stderr);
  std::this_thread::sleep_for(std::chrono::minutes(10));
  std::fprintf(stderr, "wave3d: debug.stall_in_checkpoint: rank %d was not killed within 10 minutes; exiting\n", rank);
  std::_Exit(1);
}

}  // namespace

template <typename T>
FieldIoSchedule<T>::FieldIoSchedule(const RunConfig& config, MPI_Comm comm, const FieldIoContext& context,
                                    WaveSolver<T>& solver)
    : config_(config), comm_(comm), solver_(solver) {
  MPI_Comm_rank(comm_, &rank_);
  if (!config_.restart.from.empty()) restart_from_checkpoint();
  record_.first_step = solver_.steps_done();
  prepare_writers(context);
}

template <typename T>
void FieldIoSchedule<T>::restart_from_checkpoint() {
  const double start = omp_get_wtime();
  RestartSource source = open_restart_source(config_, comm_);
  mpi::collectively(comm_, [&] {
    try {
      solver_.restore(static_cast<int>(source.reader->header().step), [&](Field<T>& current, Field<T>& previous) {
        source.reader->read(current, previous, config_.grid);
      });
    } catch (const std::exception& e) {
      throw std::runtime_error(source.setting + ": " + e.what());
    }
  });
  record_.restarted_from = source.path.string();
  record_.restart_seconds = omp_get_wtime() - start;
  restarted_series_json_ = source.reader->header().snapshot_series_json;
}

template <typename T>
void FieldIoSchedule<T>::prepare_writers(const FieldIoContext& context) {
  const int stall = config_.debug.stall_in_checkpoint;
  if (stall > 0 && (config_.checkpoint.every == 0 || stall % config_.checkpoint.every != 0))
    throw mpi::CollectiveError(fmt::format("debug.stall_in_checkpoint = {} is not a step with a checkpoint "
                                           "(checkpoint.every = {}); allowed: a multiple of checkpoint.every, or 0",
                                           stall, config_.checkpoint.every),
                               0);
  const bool snapshots = config_.output.snapshot_every > 0;
  const bool checkpoints = config_.checkpoint.every > 0;
  if (!snapshots && !checkpoints) return;

  const std::string run_directory = mpi::broadcast_string(comm_, context.run_directory.string(), 0);
  if (run_directory.empty())
    throw mpi::CollectiveError("output.snapshot_every and checkpoint.every need a run directory, and this command "
                               "makes none; allowed here: 0",
                               0);
  checkpoint_directory_ = config_.checkpoint.directory.empty() ? run_directory : config_.checkpoint.directory;
  std::string provenance;
  mpi::collectively(comm_, [&] {
    if (rank_ != 0) return;
    if (checkpoints) {
      std::error_code error;
      std::filesystem::create_directories(checkpoint_directory_, error);
      if (error)
        throw std::runtime_error(fmt::format("checkpoint.directory = '{}': cannot create it: {}",
                                             checkpoint_directory_.string(), error.message()));
    }
    int provided = MPI_THREAD_SINGLE, size = 1;
    MPI_Query_thread(&provided);
    MPI_Comm_size(comm_, &size);
    const MpiFacts facts{mpi::library_version(), mpi::thread_level_name(provided), size};
    provenance = collect_provenance(facts, context.command_line, context.started).dump(2);
  });
  provenance = mpi::broadcast_string(comm_, provenance, 0);
  header_ = io::field_file_header(io::kSnapshotFormat, config_, 0, provenance);
  if (snapshots) snapshots_.emplace(comm_, run_directory, header_, config_.grid);
  if (snapshots) continue_snapshot_series(run_directory);
  if (snapshots && config_.output.snapshot_writer == SnapshotWriterKind::io_threads) {
    const io::DirectWriteOptions options{.io_threads = config_.output.io_threads, .bind = true};
    snapshots_->use_file_writer([options](MPI_Comm comm, const std::filesystem::path& path,
                                          const io::FieldFileHeader& header,
                                          const std::vector<io::FieldToWrite<T>>& fields, const Grid& grid) {
      return io::write_field_file_direct<T>(comm, path, header, fields, grid, options).bytes;
    });
  }
}

template <typename T>
std::optional<double> FieldIoSchedule<T>::after_step() {
  const int step = solver_.steps_done();
  const bool snapshot = config_.output.snapshot_every > 0 && step % config_.output.snapshot_every == 0;
  const bool checkpoint = config_.checkpoint.every > 0 && step % config_.checkpoint.every == 0;
  if (!snapshot && !checkpoint) return std::nullopt;
  const double start = omp_get_wtime();
  if (snapshot) {
    record_.snapshot_bytes += mpi::collectively(comm_, [&] {
      try {
        return snapshots_->write(solver_.current(), step);
      } catch (const std::exception& e) {
        throw std::runtime_error(fmt::format("cannot write the snapshot of step {}: {}", step, e.what()));
      }
    });
    record_.snapshot_seconds += omp_get_wtime() - start;
  }
  if (checkpoint) {
    const double checkpoint_start = omp_get_wtime();
    write_checkpoint(step);
    record_.checkpoint_seconds += omp_get_wtime() - checkpoint_start;
  }
  return omp_get_wtime() - start;
}

template <typename T>
void FieldIoSchedule<T>::write_checkpoint(int step) {
  const std::filesystem::path path = checkpoint_directory_ / io::checkpoint_file_name(step);
  io::FieldFileHeader header = header_;
  header.step = step;
  header.time = step * config_.physics.dt;
  header.snapshot_series_json = snapshot_series_json();
  io::AfterFirstField stall;
  if (config_.debug.stall_in_checkpoint == step)
    stall = [&](const std::filesystem::path& temporary) { stall_until_killed(rank_, step, temporary); };
  record_.checkpoint_bytes += mpi::collectively(comm_, [&] {
    try {
      return io::write_checkpoint<T>(comm_, path, header, solver_.current(), solver_.previous(), config_.grid, stall);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("cannot write the checkpoint of step {} ({}): {}", step, path.string(), e.what()));
    }
  });
  record_.checkpoints.push_back(path.string());
  kept_checkpoints_.push_back(path);
  kept_checkpoint_frames_.push_back({path.filename().string(), std::string("/") + io::kCurrentDataset, step, header.time});
  drop_old_checkpoints();
  write_checkpoint_sidecar();
}

// checkpoints.xmf beside the checkpoints: each kept checkpoint's "current" time level as one frame of a
// series, so ParaView and VisIt open checkpoints as they open snapshots. Rank 0, atomically.
template <typename T>
void FieldIoSchedule<T>::write_checkpoint_sidecar() {
  const std::filesystem::path sidecar = checkpoint_directory_ / io::kCheckpointSidecar;
  mpi::collectively(comm_, [&] {
    if (rank_ != 0) return;
    const std::vector<io::XdmfFrame> frames(kept_checkpoint_frames_.begin(), kept_checkpoint_frames_.end());
    write_file_atomically(sidecar, io::format_xdmf(frames, config_.grid.n, config_.grid.spacing, sizeof(T),
                                                   io::kCurrentDataset));
  });
  record_.checkpoint_sidecar = sidecar.string();
}

// The snapshots so far (those of the run continued from, then this run's), with absolute file names,
// for the checkpoint to carry: a run continued from it then extends one series.
template <typename T>
std::string FieldIoSchedule<T>::snapshot_series_json() const {
  if (!snapshots_ || snapshots_->frames().empty()) return restarted_series_json_;
  nlohmann::json series = nlohmann::json::array();
  for (const io::XdmfFrame& f : snapshots_->frames()) {
    const std::filesystem::path file = std::filesystem::absolute(snapshots_->sidecar().parent_path() / f.file);
    series.push_back({{"file", file.lexically_normal().string()}, {"dataset", f.dataset}, {"step", f.step}, {"time", f.time}});
  }
  return series.dump();
}

// A continued run's sidecar starts with the snapshots the checkpoint recorded up to its step, named
// relative to this run's directory, so ParaView opens one series across the restart.
template <typename T>
void FieldIoSchedule<T>::continue_snapshot_series(const std::filesystem::path& run_directory) {
  if (restarted_series_json_.empty()) return;
  const nlohmann::json series = nlohmann::json::parse(restarted_series_json_, nullptr, /*allow_exceptions=*/false);
  if (!series.is_array()) return;  // a damaged record costs the earlier frames, never the run
  std::vector<io::XdmfFrame> earlier;
  const std::filesystem::path base = std::filesystem::absolute(run_directory);
  for (const nlohmann::json& f : series) {
    if (!f.is_object() || !f.contains("file") || !f.contains("step") || f.value("step", 0) > record_.first_step) continue;
    const std::filesystem::path file = f.value("file", "");
    earlier.push_back({file.lexically_relative(base).string(), f.value("dataset", std::string("/") + io::kSnapshotDataset),
                       f.value("step", std::int64_t{0}), f.value("time", 0.0)});
  }
  snapshots_->continue_series(std::move(earlier));
}

template <typename T>
void FieldIoSchedule<T>::drop_old_checkpoints() {
  // Only files this run wrote, and only once a newer one is complete: a crash at any moment leaves at
  // least one complete checkpoint.
  while (kept_checkpoints_.size() > static_cast<std::size_t>(config_.checkpoint.keep)) {
    if (rank_ == 0) {
      std::error_code error;
      std::filesystem::remove(kept_checkpoints_.front(), error);
      if (error)
        std::fprintf(stderr, "wave3d: warning: cannot delete the old checkpoint '%s': %s\n",
                     kept_checkpoints_.front().c_str(), error.message().c_str());
    }
    kept_checkpoints_.pop_front();
    kept_checkpoint_frames_.pop_front();
  }
}

template <typename T>
FieldIoRecord FieldIoSchedule<T>::finish() {
  FieldIoRecord r = record_;
  r.restart_seconds = mpi::allreduce_max(comm_, r.restart_seconds);
  r.snapshot_seconds = mpi::allreduce_max(comm_, r.snapshot_seconds);
  r.checkpoint_seconds = mpi::allreduce_max(comm_, r.checkpoint_seconds);
  if (snapshots_ && !snapshots_->files().empty()) {
    for (const std::filesystem::path& f : snapshots_->files()) r.snapshots.push_back(f.string());
    r.sidecar = snapshots_->sidecar().string();
  }
  return r;
}

template class FieldIoSchedule<float>;
template class FieldIoSchedule<double>;

}  // namespace wave3d::engine
