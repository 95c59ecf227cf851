#pragma once
// Helpers for the parallel HDF5 tests: values that are a function of the global index and fields of
// one rank's box (and SharedTempDir, from mpi_test_support.hpp).
#include <cstdint>

#include "field/field.hpp"
#include "mpi_test_support.hpp"

namespace wave3d::io::testing {

using mpi::testing::SharedTempDir;

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
