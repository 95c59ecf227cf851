// A rank that fails inside mpi::collectively while another rank is still in a collective of the same
// block: the job must end with the failing rank's own error, not with the MPI error of the two ranks'
// calls of different sizes meeting (MPI_ERR_TRUNCATE), and never hang. Run on 2 ranks: rank 1 fails
// while rank 0 reduces a double, so rank 1's agreement on the error (an int) meets rank 0's double.
#include <mpi.h>

#include <stdexcept>

#include "mpi/collective.hpp"
#include "mpi/environment.hpp"

int main(int argc, char** argv) {
  wave3d::mpi::Environment env(&argc, &argv, MPI_THREAD_SINGLE);
  wave3d::mpi::collectively(MPI_COMM_WORLD, [&] {
    if (env.world_rank() == 1) throw std::runtime_error("the block failed here");
    (void)wave3d::mpi::allreduce_max(MPI_COMM_WORLD, 1.0);
  });
  return 0;
}
