#pragma once
// The provenance every JSON file of a subcommand carries in its header (output/json_document.hpp):
// output/provenance.hpp's record with the MPI facts of the communicator the command runs on.
#include <mpi.h>

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wave3d::app {

// Local: reads the library, the thread level and the size of comm; needs no other rank.
nlohmann::json command_provenance(MPI_Comm comm, const std::vector<std::string>& command_line,
                                  std::chrono::system_clock::time_point started);

}  // namespace wave3d::app
