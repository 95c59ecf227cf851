#include "advise/curve.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace wave3d::advise {

void check_curve(const Curve& curve, const std::string& what) {
  if (curve.points.empty()) throw std::invalid_argument(fmt::format("{} has no points; give at least one", what));
  int previous = 0;
  for (const CurvePoint& p : curve.points) {
    if (p.threads < 1)
      throw std::invalid_argument(
          fmt::format("{}: threads = {} is not a thread count; allowed: 1 or more", what, p.threads));
    if (p.threads <= previous)
      throw std::invalid_argument(fmt::format("{}: threads = {} follows threads = {}; the thread counts must "
                                              "strictly ascend",
                                              what, p.threads, previous));
    if (!std::isfinite(p.value) || p.value <= 0.0)
      throw std::invalid_argument(fmt::format("{}: value = {} at {} threads; allowed: a finite number above 0",
                                              what, p.value, p.threads));
    previous = p.threads;
  }
}

void check_tolerance(double tolerance) {
  if (!(tolerance >= 0.0 && tolerance < 1.0))
    throw std::invalid_argument(
        fmt::format("tolerance = {} is not allowed; allowed: 0 <= tolerance < 1 (0.05 = within 5 % of the best)",
                    tolerance));
}

Saturation find_saturation(const Curve& curve, double tolerance, const std::string& what) {
  check_curve(curve, what);
  check_tolerance(tolerance);
  Saturation s;
  s.tolerance = tolerance;
  for (const CurvePoint& p : curve.points)
    if (p.value > s.best_value) {
      s.best_value = p.value;
      s.best_threads = p.threads;
    }
  // A tolerance written in decimal (0.05) is not exact in binary; without the slack a point lying
  // exactly on the threshold could fall a rounding error short of it.
  const double threshold = (1.0 - tolerance) * s.best_value * (1.0 - 1e-12);
  for (const CurvePoint& p : curve.points)
    if (p.value >= threshold) {
      s.threads = p.threads;
      s.value = p.value;
      break;
    }
  s.fraction_of_best = s.value / s.best_value;
  return s;
}

std::optional<double> value_at(const Curve& curve, int threads) {
  for (const CurvePoint& p : curve.points)
    if (p.threads == threads) return p.value;
  return std::nullopt;
}

}  // namespace wave3d::advise
