#pragma once
// Helpers for the parallel HDF5 tests: a directory every rank sees (made by rank 0, removed at the
// end), values that are a function of the global index, and fields of one rank's box.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "field/field.hpp"
#include "mpi/collective.hpp"

namespace wave3d::io::testing {

inline int rank_of(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

inline int size_of(MPI_Comm comm) {
  int s = 1;
  MPI_Comm_size(comm, &s);
  return s;
}

// A fresh directory shared by the ranks of comm, named after the current test and rank 0's pid.
class SharedTempDir {
 public:
  explicit SharedTempDir(MPI_Comm comm) : comm_(comm) {
    std::string path;
    if (rank_of(comm) == 0) {
      const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
      path = (std::filesystem::temp_directory_path() /
              ("wave3d-io-" + std::string(info->test_suite_name()) + "-" + info->name() + "-" + std::to_string(::getpid())))
                 .string();
      std::filesystem::remove_all(path);
      std::filesystem::create_directories(path);
    }
    path_ = mpi::broadcast_string(comm, path, 0);
  }
  ~SharedTempDir() {
    MPI_Barrier(comm_);
    if (rank_of(comm_) == 0) {
      std::error_code ec;
      std::filesystem::remove_all(path_, ec);
    }
  }
  SharedTempDir(const SharedTempDir&) = delete;
  SharedTempDir& operator=(const SharedTempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  MPI_Comm comm_;
  std::filesystem::path path_;
};

// A distinct value per global point, exact in float for grids below 64 points per axis.
template <typename T>
T value_at(std::int64_t x, std::int64_t y, std::int64_t z, int salt = 0) {
  return static_cast<T>(x + 64 * (y + 64 * (z + 64 * static_cast<std::int64_t>(salt))));
}

inline constexpr double kSentinel = -7.0;

// Owned points hold value_at(salt), halo and padding the sentinel.
template <typename T>
Field<T> filled_field(const Box& owned, int halo, int salt) {
  Field<T> f(owned, halo);
  for (std::int64_t i = 0; i < f.allocated_elements(); ++i) f.data()[i] = static_cast<T>(kSentinel);
  for (std::int64_t z = owned.lo[2]; z < owned.hi[2]; ++z)
    for (std::int64_t y = owned.lo[1]; y < owned.hi[1]; ++y)
      for (std::int64_t x = owned.lo[0]; x < owned.hi[0]; ++x) f.at(x, y, z) = value_at<T>(x, y, z, salt);
  return f;
}

// Owned points and halo all the sentinel.
template <typename T>
Field<T> blank_field(const Box& owned, int halo) {
  Field<T> f(owned, halo);
  for (std::int64_t i = 0; i < f.allocated_elements(); ++i) f.data()[i] = static_cast<T>(kSentinel);
  return f;
}

}  // namespace wave3d::io::testing
