#pragma once
// The HDF5 field files of a run as plain values: where the run continued from, and which snapshots
// and checkpoints it wrote at what cost. Filled by the field I/O schedule, shown in the summary and
// run.json. No HDF5 or MPI here.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wave3d::engine {

// What the command hands the time loop for writing field files.
struct FieldIoContext {
  std::filesystem::path run_directory;  // this run's result directory (needed on rank 0 only); empty = none
  std::vector<std::string> command_line;
  std::chrono::system_clock::time_point started{};
};

struct FieldIoRecord {
  std::string restarted_from;  // the checkpoint the run continued from; empty = from the initial condition
  int first_step = 0;          // the time level the time loop started from
  double restart_seconds = 0.0;
  std::vector<std::string> snapshots;  // files, in the order written
  std::string sidecar;                 // the XDMF file listing them
  std::uint64_t snapshot_bytes = 0;
  double snapshot_seconds = 0.0;  // slowest rank, summed over the snapshots
  std::vector<std::string> checkpoints;  // files written (older ones may since be deleted, see checkpoint.keep)
  std::string checkpoint_sidecar;        // the XDMF file listing the checkpoints kept (their "current" level)
  std::uint64_t checkpoint_bytes = 0;
  double checkpoint_seconds = 0.0;

  bool empty() const { return restarted_from.empty() && snapshots.empty() && checkpoints.empty(); }
};

// {"restarted_from", "first_step", "restart_s", "snapshots": {files, sidecar, bytes, write_s},
//  "checkpoints": {files, sidecar, bytes, write_s}}.
nlohmann::json field_io_json(const FieldIoRecord& record);

// Summary lines ("restart:", "snapshots:", "checkpoints:"), each ending in a newline; "" for a run
// without field files.
std::string format_field_io(const FieldIoRecord& record);

}  // namespace wave3d::engine
