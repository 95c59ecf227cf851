#pragma once
// Small order statistics shared by the run summary, the noise probes and the benchmark.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace wave3d {

// Median of the values (mean of the middle two for an even count); the values must not be empty.
double median_of(std::vector<double> values);

// The p-th percentile (0 < p <= 100) by nearest rank: the smallest value with at least p % of the
// values at or below it, so always a measured value. The one definition of a percentile in wave3d
// (run.json's jitter, the noise probes; the Python reports use the same). Throws
// std::invalid_argument for no values or p outside (0, 100].
template <typename T>
T percentile_nearest_rank(std::vector<T> values, double p) {
  if (values.empty()) throw std::invalid_argument("percentile of no values");
  if (!(p > 0.0 && p <= 100.0)) throw std::invalid_argument("percentile " + std::to_string(p) + " is outside (0, 100]");
  // Rank ceil(p/100 * n), 1-based; the product is rounded first so 99 % of 100 values is rank 99, not
  // 100 through a floating-point hair above 99.
  const double exact = p / 100.0 * static_cast<double>(values.size());
  const auto rank = static_cast<std::size_t>(std::ceil(std::round(exact * 1e9) / 1e9));
  const std::size_t index = std::clamp<std::size_t>(rank, 1, values.size()) - 1;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(index), values.end());
  return values[index];
}

}  // namespace wave3d
