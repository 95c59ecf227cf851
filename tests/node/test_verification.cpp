// Verification that means something: the single Fourier mode against the exact discrete solution
// (round-off), and against the continuous solution as the grid is refined (order 2R in space).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "field/periodic_halo.hpp"
#include "solver/wave_solver.hpp"
#include "stencil/coefficients.hpp"
#include "verify/exact_mode.hpp"
#include "verify/field_checks.hpp"

namespace wave3d {
namespace {

RunConfig mode_config(Index3 n, int radius, double courant_fraction) {
  RunConfig c;
  c.grid = Grid{n, 1.0, Boundary::periodic, radius};
  c.initial.kind = InitialKind::mode;
  c.initial.wave = {1, 2, 1};
  c.physics.velocity = 1.0;
  c.physics.dt = courant_fraction * courant_limit(second_derivative_weights(radius)) * c.grid.spacing;
  c.blocking = Blocking{{0, 4, 8}};
  return c;
}

template <typename T>
double max_error_after(const RunConfig& c, int steps, bool against_continuous) {
  WaveSolver<T> solver(c, c.grid.whole());
  const auto halo = [&](Field<T>& f) { fill_periodic_halo(f, c.grid); };
  for (int s = 0; s < steps; ++s) solver.step(halo);
  const ExactMode exact(c.initial, c.grid, c.physics);
  return max_abs_difference<T>(solver.current(), c.grid.whole(), [&](auto x, auto y, auto z) {
    return against_continuous ? exact.continuous_value(steps, x, y, z) : exact.value(steps, x, y, z);
  });
}

TEST(ExactMode, FieldMatchesExactDiscreteSolutionToRoundOff) {
  for (int r : kSupportedRadii) {
    const RunConfig c = mode_config({24, 20, 18}, r, 0.8);
    const int steps = 60;
    const double err_double = max_error_after<double>(c, steps, false);
    const double err_float = max_error_after<float>(c, steps, false);
    // Round-off of a leapfrog oscillation grows about linearly with the step count.
    EXPECT_LT(err_double, 50.0 * steps * std::numeric_limits<double>::epsilon()) << "R=" << r;
    EXPECT_LT(err_float, 50.0 * steps * std::numeric_limits<float>::epsilon()) << "R=" << r;
    // And the solution really moved: the exact amplitude changed by far more than the error.
    const ExactMode exact(c.initial, c.grid, c.physics);
    EXPECT_GT(std::abs(std::cos(steps * exact.omega_discrete()) - 1.0), 1e3 * err_float) << "R=" << r;
  }
}

// Long runs at a small Courant number, where the recurrence carries round-off by up to 1 / sin(w)
// per step: in double precision (where the exact solution's frequency must itself be computed without
// cancellation) and in single precision (where the carried round-off dominates), within the tolerance,
// and the tolerance still tight enough to catch a wrong update.
TEST(ExactMode, LongRunsAtASmallCourantNumberStayWithinTheRoundOffTolerance) {
  RunConfig c = mode_config({16, 16, 16}, 2, 0.8);
  c.initial.wave = {1, 1, 1};
  c.physics.dt *= 1e-3;
  const ExactMode exact(c.initial, c.grid, c.physics);
  const int long_run = 6000, short_run = 1500;
  const double double_tolerance = exact.round_off_tolerance(long_run, std::numeric_limits<double>::epsilon());
  EXPECT_LT(max_error_after<double>(c, long_run, false), double_tolerance);
  EXPECT_LT(double_tolerance, 1e-8);
  const double float_tolerance = exact.round_off_tolerance(short_run, std::numeric_limits<float>::epsilon());
  EXPECT_LT(max_error_after<float>(c, short_run, false), float_tolerance);
  EXPECT_LT(float_tolerance, 0.05);
  // Where w is small the carried round-off outgrows the linear term.
  EXPECT_GT(float_tolerance, 10.0 * (short_run + 1.0) * std::numeric_limits<float>::epsilon() * 4);
}

TEST(ExactMode, DiscreteFrequencyApproachesContinuousOne) {
  const RunConfig c = mode_config({64, 64, 64}, 8, 0.5);
  const ExactMode exact(c.initial, c.grid, c.physics);
  EXPECT_NEAR(exact.omega_discrete() / exact.omega_continuous(), 1.0, 1e-3);
}

// Observed order of accuracy in space: a 1D mode along x on grids of n points per period, with a
// time step so small that the O(dt^2) error of leapfrog is negligible against the spatial error, run
// for a quarter period. The error against the continuous solution must fall as h^(2R).
double observed_order(int radius, std::int64_t n_coarse, std::int64_t n_fine) {
  auto config_for = [&](std::int64_t n) {
    RunConfig c = mode_config({n, 4, 4}, radius, 1.0);
    c.grid.spacing = 1.0 / static_cast<double>(n);
    c.initial.wave = {1, 0, 0};
    return c;
  };
  // Relative frequency error of the spatial operator on the fine grid sets the time-step budget.
  const auto weights = second_derivative_weights(radius);
  const double theta = 2.0 * M_PI / static_cast<double>(n_fine);
  const double spatial_rel = std::abs(std::sqrt(discrete_wavenumber_squared(weights, theta)) / theta - 1.0);
  const double omega = 2.0 * M_PI;  // v = 1, wavelength 1
  const double dt = std::sqrt(24.0 * 1e-2 * spatial_rel) / omega;  // time error <= 1% of spatial error
  const int steps = static_cast<int>(std::ceil(0.25 / dt));  // a quarter period
  double errors[2];
  int i = 0;
  for (std::int64_t n : {n_coarse, n_fine}) {
    RunConfig c = config_for(n);
    c.physics.dt = 0.25 / steps;
    errors[i++] = max_error_after<double>(c, steps, true);
  }
  return std::log(errors[0] / errors[1]) / std::log(static_cast<double>(n_fine) / static_cast<double>(n_coarse));
}

TEST(ExactMode, ObservedOrderOfAccuracyIsTwoR) {
  struct Case {
    int radius;
    std::int64_t coarse, fine;
  };
  for (const Case& k : {Case{1, 16, 32}, Case{2, 16, 32}, Case{4, 8, 16}}) {
    const double order = observed_order(k.radius, k.coarse, k.fine);
    EXPECT_NEAR(order, 2.0 * k.radius, 0.25) << "R=" << k.radius << " grids " << k.coarse << " -> " << k.fine;
    std::printf("R=%d: observed order %.3f (expected %d) on n=%lld -> %lld\n", k.radius, order, 2 * k.radius,
                static_cast<long long>(k.coarse), static_cast<long long>(k.fine));
  }
}

TEST(Coefficients, KnownLowOrderWeights) {
  const auto w1 = second_derivative_weights(1);
  EXPECT_DOUBLE_EQ(w1[0], -2.0);
  EXPECT_DOUBLE_EQ(w1[1], 1.0);
  const auto w2 = second_derivative_weights(2);
  EXPECT_NEAR(w2[0], -5.0 / 2.0, 1e-15);
  EXPECT_NEAR(w2[1], 4.0 / 3.0, 1e-15);
  EXPECT_NEAR(w2[2], -1.0 / 12.0, 1e-15);
}

TEST(Coefficients, WeightsAnnihilateConstantsAndDifferentiateQuadraticsExactly) {
  for (int r : kSupportedRadii) {
    const auto w = second_derivative_weights(r);
    double sum = w[0], second = 0.0;
    for (int k = 1; k <= r; ++k) {
      sum += 2.0 * w[k];
      second += 2.0 * w[k] * k * k;  // applied to x^2 at 0, divided by 2: must give 1
    }
    EXPECT_NEAR(sum, 0.0, 1e-13) << r;
    EXPECT_NEAR(second / 2.0, 1.0, 1e-13) << r;
  }
}

TEST(Coefficients, CourantLimitMatchesClassicalSecondOrderValue) {
  // Second order in space, leapfrog in time, 3D: v dt / h <= 1 / sqrt(3).
  EXPECT_NEAR(courant_limit(second_derivative_weights(1)), 1.0 / std::sqrt(3.0), 1e-12);
  // Higher orders are more restrictive.
  EXPECT_LT(courant_limit(second_derivative_weights(8)), courant_limit(second_derivative_weights(1)));
}

TEST(Stability, RunAboveTheCourantLimitBlowsUpAndBelowDoesNot) {
  RunConfig unstable = mode_config({16, 16, 16}, 2, 1.05);
  unstable.initial.wave = {8, 8, 8};  // the highest frequency, the first to go unstable
  RunConfig stable = unstable;
  stable.physics.dt = 0.99 * courant_limit(second_derivative_weights(2));
  WaveSolver<double> a(unstable, unstable.grid.whole()), b(stable, stable.grid.whole());
  for (int s = 0; s < 400; ++s) {
    a.step([&](Field<double>& f) { fill_periodic_halo(f, unstable.grid); });
    b.step([&](Field<double>& f) { fill_periodic_halo(f, stable.grid); });
  }
  const double blown = std::sqrt(sum_of_squares(a.current(), unstable.grid.whole()));
  EXPECT_FALSE(blown < 1e6) << blown;  // huge, infinite or NaN
  EXPECT_LT(std::sqrt(sum_of_squares(b.current(), stable.grid.whole())), 1e3);
}

}  // namespace
}  // namespace wave3d
