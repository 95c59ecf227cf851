#pragma once
// Whole-field checks on the owned points of a subdomain. Each returns a local result; combining
// subdomains (max, sum) is the caller's business, so these stay free of MPI.
#include <cstdint>
#include <functional>

#include "field/field.hpp"
#include "geometry/grid.hpp"

namespace wave3d {

// Order-independent checksum: the wrapping 64-bit sum over points of a mix of (global index, value
// bits). Any decomposition and thread count gives the same sum for the same field, bit for bit.
template <typename T>
std::uint64_t field_checksum(const Field<T>& field, const Box& region, const Grid& grid);

// Sum of squares over the region (for the human-readable norm; order-dependent in the last bits).
template <typename T>
double sum_of_squares(const Field<T>& field, const Box& region);

// True when every value in the region is finite.
template <typename T>
bool all_finite(const Field<T>& field, const Box& region);

// Largest |field - f(x, y, z)| over the region.
template <typename T>
double max_abs_difference(const Field<T>& field, const Box& region,
                          const std::function<double(std::int64_t, std::int64_t, std::int64_t)>& f);

// Largest |a - b| over the region (the two fields may have different layouts).
template <typename T>
double max_abs_difference(const Field<T>& a, const Field<T>& b, const Box& region);

}  // namespace wave3d
