#pragma once
// Small order statistics shared by the run summary and the benchmark.
#include <vector>

namespace wave3d {

// Median of the values (mean of the middle two for an even count); the values must not be empty.
double median_of(std::vector<double> values);

}  // namespace wave3d
