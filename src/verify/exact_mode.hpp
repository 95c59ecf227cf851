#pragma once
// The single Fourier mode u = A cos(n w) cos(theta . x) is an exact eigenfunction of the fully
// discrete scheme on a periodic grid: with mu = sum_a symbol(theta_a) from the discrete Laplacian and
// c2 = (v dt / h)^2, leapfrog gives cos w = 1 - c2 mu / 2. The continuous solution has w = sqrt(c2) |theta|.
#include <cmath>

#include "geometry/grid.hpp"

namespace wave3d {

struct InitialCondition;
struct Physics;

class ExactMode {
 public:
  ExactMode(const InitialCondition& ic, const Grid& grid, const Physics& physics);

  // Value of the discrete solution at time level `step` (step -1 is the level before the start).
  double value(int step, std::int64_t x, std::int64_t y, std::int64_t z) const {
    return amplitude_ * std::cos(step * omega_discrete_) * spatial(x, y, z);
  }
  // Value of the continuous wave equation's solution at time step * dt.
  double continuous_value(int step, std::int64_t x, std::int64_t y, std::int64_t z) const {
    return amplitude_ * std::cos(step * omega_continuous_) * spatial(x, y, z);
  }
  double omega_discrete() const { return omega_discrete_; }

  // The largest difference honest round-off explains after `steps` steps in a precision with machine
  // epsilon `epsilon`: 10 ulps of the amplitude times (n + 1 + G). The n + 1 is the phase error of the
  // exact solution's own frequency, which grows linearly. G is the rounding of every step carried by
  // the leapfrog recurrence, which carries an error made k steps ago as sin(k w) / sin(w) times itself;
  // the roundings of separate steps are independent, so they add as a random walk:
  // G = sqrt(sum over k <= n of (sin(k w) / sin w)^2). That is large where w is small: a small Courant
  // number or a long wave.
  double round_off_tolerance(int steps, double epsilon) const;
  double omega_continuous() const { return omega_continuous_; }

 private:
  double spatial(std::int64_t x, std::int64_t y, std::int64_t z) const;

  double amplitude_ = 0.0;
  Index3 n_{1, 1, 1};
  Index3 wave_{0, 0, 0};
  double omega_discrete_ = 0.0;
  double omega_continuous_ = 0.0;
};

}  // namespace wave3d
