#include "mpi/environment.hpp"

#include <cstdlib>
#include <stdexcept>

namespace wave3d::mpi {

namespace {

// wave3d never moves a shared file pointer, yet Open MPI's highest-priority component for them
// (sharedfp/sm) creates, at every MPI_File_open, a POSIX named semaphore named after the file's base
// name alone. A job killed inside an open leaves it locked in /dev/shm, and every later job on that
// node opening a file of the same base name (checkpoint_000004.h5.tmp in another run) waits on it
// forever. The remaining components leave at worst an unlocked file behind. Set before MPI_Init
// reads its parameters; a value the user exported wins.
void avoid_semaphore_shared_file_pointers() {
#if defined(OPEN_MPI)
  setenv("OMPI_MCA_sharedfp", "^sm", /*overwrite=*/0);
#endif
}

}  // namespace

Environment::Environment(int* argc, char*** argv, int required) {
  avoid_semaphore_shared_file_pointers();
  check(MPI_Init_thread(argc, argv, required, &provided_), "MPI_Init_thread");
  // Errors come back as codes so they can be turned into exceptions and handled collectively.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

Environment::~Environment() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

int Environment::world_rank() const {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int Environment::world_size() const {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

std::string thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "unknown(" + std::to_string(level) + ")";
  }
}

std::string library_version() {
  char buffer[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(buffer, &length);
  std::string v(buffer, static_cast<std::size_t>(length));
  const auto end = v.find_first_of("\r\n");
  if (end != std::string::npos) v.resize(end);
  while (!v.empty() && (v.back() == ',' || v.back() == ' ')) v.pop_back();
  return v;
}

void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw std::runtime_error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

int rank_in(MPI_Comm comm) {
  int rank = 0;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  return rank;
}

int size_of(MPI_Comm comm) {
  int size = 1;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  return size;
}

}  // namespace wave3d::mpi
