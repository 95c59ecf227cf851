#pragma once
// HDF5's lifetime in a process that runs MPI. Left to itself, parallel HDF5 shuts down inside
// MPI_Finalize (an attribute on MPI_COMM_SELF), and there HDF5 1.10 crashes (SIGSEGV) when a file failed
// to close (a write refused by a full disk or a quota): the file's ID stays in HDF5's table with state
// HDF5 has already freed. So wave3d starts HDF5 before MPI_Init, where it ties its shutdown to nothing,
// and ends it itself before MPI_Finalize, or, after a failed close, leaves it to the process's exit.
namespace wave3d::io {

class Hdf5Library {
 public:
  // Starts HDF5 (without an atexit handler). Construct before MPI_Init.
  Hdf5Library();
  // Does not end HDF5: after MPI_Finalize that is no longer safe. Call end() before it.
  ~Hdf5Library() = default;
  Hdf5Library(const Hdf5Library&) = delete;
  Hdf5Library& operator=(const Hdf5Library&) = delete;

  // Ends HDF5, unless a file is still open (only a failed close leaves one: every file wave3d opens
  // is closed by its owner). Call before MPI_Finalize. Returns whether HDF5 was ended.
  bool end() noexcept;
};

}  // namespace wave3d::io
