#pragma once
// The checkpoint restart.from names, opened on every rank and matched with the configuration before
// anything is read from it. The run loads it; `wave3d run --check` opens and matches it the same way
// and stops there.
#include <mpi.h>

#include <filesystem>
#include <optional>
#include <string>

#include "config/run_config.hpp"
#include "io/hdf5/checkpoint.hpp"

namespace wave3d::engine {

struct RestartSource {
  std::filesystem::path path;  // the file: restart.from itself, or the newest checkpoint in that directory
  std::string setting;         // "restart.from = 'dir' (dir/checkpoint_000050.h5)", to start messages with
  std::optional<io::CheckpointReader> reader;  // open on every rank, header read
};

// Collective; config.restart.from must be set. Throws mpi::CollectiveError (one message, every rank)
// when the file is missing, unreadable, not a checkpoint or does not fit the configuration
// (engine/restart_match.hpp), e.g. "restart.from = 'c.h5': grid 64x64x64 does not match grid.n = ...".
RestartSource open_restart_source(const RunConfig& config, MPI_Comm comm);

}  // namespace wave3d::engine
