#pragma once
// Commands that only need one process (stream, plan): rank 0 does the work and prints; the other
// ranks, if the command was started under mpiexec, wait without taking a core and exit with rank 0's code.
#include <mpi.h>

#include <functional>
#include <string_view>

namespace wave3d::app {

// Runs body() on rank 0 of comm. An exception becomes "wave3d <command>: error: <what>" on stderr
// and exit code 2. Every rank returns rank 0's exit code.
int run_on_root(MPI_Comm comm, std::string_view command, const std::function<int()>& body);

// run_on_root for a measurement of this node: started on several ranks, it first says that rank 0
// measures while the others wait idle (so they neither compete for the node nor print).
int measure_on_root(MPI_Comm comm, std::string_view command, const std::function<int()>& body);

}  // namespace wave3d::app
