#include "verify/exact_mode.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "init/initial_condition.hpp"
#include "stencil/coefficients.hpp"

namespace wave3d {

ExactMode::ExactMode(const InitialCondition& ic, const Grid& grid, const Physics& physics)
    : amplitude_(ic.amplitude), n_(grid.n), wave_(ic.wave) {
  const auto weights = second_derivative_weights(grid.radius);
  double mu = 0.0, theta_squared = 0.0;
  for (int a = 0; a < 3; ++a) {
    const double theta = 2.0 * std::numbers::pi * static_cast<double>(wave_[a]) / static_cast<double>(n_[a]);
    mu += discrete_wavenumber_squared(weights, theta);
    theta_squared += theta * theta;
  }
  const double c2 = squared_courant(physics, grid);
  // cos w = 1 - c2 mu / 2, i.e. sin(w / 2) = sqrt(c2 mu) / 2: the arcsine keeps full precision where
  // the arccosine of a value near 1 would lose it (a small Courant number, a long wave).
  omega_discrete_ = 2.0 * std::asin(0.5 * std::sqrt(c2 * mu));
  omega_continuous_ = std::sqrt(c2 * theta_squared);
}

double ExactMode::round_off_tolerance(int steps, double epsilon) const {
  const double sine = std::sin(omega_discrete_);
  double carried = 0.0;  // sum of (sin(k w) / sin w)^2, which tends to k^2 as w goes to 0
  for (int k = 1; k <= steps; ++k) {
    const double gain = std::abs(sine) > 1e-300 ? std::sin(k * omega_discrete_) / sine : static_cast<double>(k);
    carried += gain * gain;
  }
  return 10.0 * epsilon * std::abs(amplitude_) * (std::max(steps, 0) + 1.0 + std::sqrt(carried));
}

double ExactMode::spatial(std::int64_t x, std::int64_t y, std::int64_t z) const {
  // Reduce m * x modulo n in integers first so the phase keeps full precision on large grids.
  const Index3 p{x, y, z};
  double turns = 0.0;
  for (int a = 0; a < 3; ++a) {
    std::int64_t r = (wave_[a] * p[a]) % n_[a];
    if (r < 0) r += n_[a];
    turns += static_cast<double>(r) / static_cast<double>(n_[a]);
  }
  return std::cos(2.0 * std::numbers::pi * turns);
}

}  // namespace wave3d
