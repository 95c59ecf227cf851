#pragma once
// MPI as an RAII object: initialised with the thread level the run needs, finalised once on scope exit.
#include <mpi.h>

#include <string>

namespace wave3d::mpi {

class Environment {
 public:
  // Initialises MPI asking for `required` (e.g. MPI_THREAD_FUNNELED); provided() tells what came back.
  Environment(int* argc, char*** argv, int required);
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  int provided() const { return provided_; }
  int world_rank() const;
  int world_size() const;

 private:
  int provided_ = MPI_THREAD_SINGLE;
};

// "MPI_THREAD_FUNNELED" and so on.
std::string thread_level_name(int level);
// The library's own version string (MPI_Get_library_version), first line only.
std::string library_version();

// This process's rank in comm, and the number of ranks of comm.
int rank_in(MPI_Comm comm);
int size_of(MPI_Comm comm);

// Throws std::runtime_error naming the call and MPI's error string unless rc is MPI_SUCCESS.
void check(int rc, const char* call);

}  // namespace wave3d::mpi
