#include "stencil/coefficients.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace wave3d {

bool is_supported_radius(int radius) {
  return std::find(std::begin(kSupportedRadii), std::end(kSupportedRadii), radius) != std::end(kSupportedRadii);
}

std::vector<double> second_derivative_weights(int radius) {
  if (radius < 1) throw std::invalid_argument("stencil radius must be >= 1, got " + std::to_string(radius));
  // Work with log-factorials in long double so R up to 8 (and beyond) stays exact to double precision.
  auto lfact = [](int n) { return std::lgamma(static_cast<long double>(n) + 1.0L); };
  std::vector<double> c(radius + 1, 0.0);
  long double sum = 0.0L;
  for (int k = 1; k <= radius; ++k) {
    const long double magnitude =
        2.0L * std::exp(2.0L * lfact(radius) - lfact(radius - k) - lfact(radius + k)) / (static_cast<long double>(k) * k);
    const long double ck = (k % 2 == 1) ? magnitude : -magnitude;
    c[k] = static_cast<double>(ck);
    sum += ck;
  }
  c[0] = static_cast<double>(-2.0L * sum);
  return c;
}

double discrete_wavenumber_squared(const std::vector<double>& weights, double theta) {
  double s = weights[0];
  for (std::size_t k = 1; k < weights.size(); ++k) s += 2.0 * weights[k] * std::cos(static_cast<double>(k) * theta);
  return -s;
}

double max_discrete_wavenumber_squared(const std::vector<double>& weights) {
  // The symbol is a trigonometric polynomial of degree R; a fine sweep plus the end point pi finds its
  // maximum to far better than the precision a stability margin needs.
  double best = discrete_wavenumber_squared(weights, std::numbers::pi);
  const int samples = 4096;
  for (int i = 0; i <= samples; ++i)
    best = std::max(best, discrete_wavenumber_squared(weights, std::numbers::pi * i / samples));
  return best;
}

double courant_limit(const std::vector<double>& weights) {
  return 2.0 / std::sqrt(3.0 * max_discrete_wavenumber_squared(weights));
}

}  // namespace wave3d
