#include "mpi/quiet_wait.hpp"

#include <chrono>
#include <thread>

#include "mpi/environment.hpp"

namespace wave3d::mpi {
namespace {

void wait_sleeping(MPI_Request& request) {
  int done = 0;
  check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
  while (!done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
  }
}

}  // namespace

int broadcast_int_quietly(MPI_Comm comm, int value, int root) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Request request;
  check(MPI_Ibcast(&value, 1, MPI_INT, root, comm, &request), "MPI_Ibcast");
  if (rank == root) {
    check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
  } else {
    wait_sleeping(request);
  }
  return value;
}

void barrier_quietly(MPI_Comm comm) {
  MPI_Request request;
  check(MPI_Ibarrier(comm, &request), "MPI_Ibarrier");
  wait_sleeping(request);
}

}  // namespace wave3d::mpi
