#include "app/root_only.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "mpi/quiet_wait.hpp"

namespace wave3d::app {

int run_on_root(MPI_Comm comm, std::string_view command, const std::function<int()>& body) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int code = 0;
  if (rank == 0) {
    try {
      code = body();
    } catch (const std::exception& e) {
      std::fflush(stdout);
      fmt::print(stderr, "wave3d {}: error: {}\n", command, e.what());
      code = 2;
    }
  }
  return size > 1 ? mpi::broadcast_int_quietly(comm, code, 0) : code;
}

int measure_on_root(MPI_Comm comm, std::string_view command, const std::function<int()>& body) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return run_on_root(comm, command, [&] {
    if (size > 1) fmt::print("wave3d {}: rank 0 measures; the other {} ranks wait idle\n", command, size - 1);
    return body();
  });
}

}  // namespace wave3d::app
