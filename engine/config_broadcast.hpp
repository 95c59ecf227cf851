#pragma once
// The configuration is parsed once, on rank 0, and sent to everyone: all ranks then hold the same
// resolved values, and a bad file is reported once instead of by every rank.
#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "config/run_config.hpp"

namespace wave3d::engine {

// Collective. Throws mpi::CollectiveError on every rank if rank 0 could not load the config.
RunConfig load_config_on_root(MPI_Comm comm, const std::optional<std::string>& path,
                              const std::vector<std::string>& overrides);

}  // namespace wave3d::engine
