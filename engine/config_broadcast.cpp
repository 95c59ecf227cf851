#include "engine/config_broadcast.hpp"

#include "config/config_json.hpp"
#include "config/config_loader.hpp"
#include "mpi/collective.hpp"

namespace wave3d::engine {

RunConfig load_config_on_root(MPI_Comm comm, const std::optional<std::string>& path,
                              const std::vector<std::string>& overrides) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string text;
  mpi::collectively(comm, [&] {
    if (rank == 0) text = config_to_json(load_run_config(path, overrides)).dump();
  });
  const std::string resolved = mpi::broadcast_string(comm, text, 0);
  RunConfig config;
  mpi::collectively(comm, [&] { config = config_from_json(nlohmann::json::parse(resolved)); });
  return config;
}

}  // namespace wave3d::engine
