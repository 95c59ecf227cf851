// GoogleTest main for tests run under mpiexec: MPI initialised once for the whole run (asking for
// MPI_THREAD_MULTIPLE so progress-thread tests can run), and only rank 0 prints, so the log reads as
// one test run. Tests make failures collective (mpi_test_support.hpp) so rank 0 reports them; any
// failure that stays on another rank is still announced by rank 0 and fails the exit code.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

#include "mpi/environment.hpp"

int main(int argc, char** argv) {
  wave3d::mpi::Environment env(&argc, &argv, MPI_THREAD_MULTIPLE);
  ::testing::InitGoogleTest(&argc, argv);
  const int rank = env.world_rank();
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int local = RUN_ALL_TESTS();
  int failed_ranks = 0;
  const int mine = local != 0 ? 1 : 0;
  wave3d::mpi::check(MPI_Allreduce(&mine, &failed_ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  if (rank == 0 && failed_ranks > 0) std::printf("[  FAILED  ] on %d of %d ranks\n", failed_ranks, env.world_size());
  return failed_ranks > 0 ? 1 : 0;
}
