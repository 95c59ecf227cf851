#include "app/command_provenance.hpp"

#include "mpi/environment.hpp"
#include "output/provenance.hpp"

namespace wave3d::app {

nlohmann::json command_provenance(MPI_Comm comm, const std::vector<std::string>& command_line,
                                  std::chrono::system_clock::time_point started) {
  int size = 1, provided = MPI_THREAD_SINGLE;
  MPI_Comm_size(comm, &size);
  MPI_Query_thread(&provided);
  return collect_provenance({mpi::library_version(), mpi::thread_level_name(provided), size}, command_line, started);
}

}  // namespace wave3d::app
