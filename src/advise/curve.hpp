#pragma once
// A scaling curve (threads -> throughput) and where it saturates: the smallest thread count whose value
// is within a tolerance of the best value on the curve. This is the number `wave3d advise` reads off
// the STREAM triad and stencil sweeps of one NUMA domain (the T2K-Tsukuba surplus-core argument: when
// 8 of 16 cores run as fast as 16, the other 8 are free for daemons and communication helpers).
#include <optional>
#include <string>
#include <vector>

namespace wave3d::advise {

struct CurvePoint {
  int threads = 0;
  double value = 0.0;  // the throughput the advice is taken from (a median, for measured curves)
  // The spread of the repetitions behind `value`, when known; drawn, never used for the advice.
  std::optional<double> low;
  std::optional<double> high;
};

struct Curve {
  std::string unit;  // "GB/s", "MPoints/s"
  std::vector<CurvePoint> points;  // threads strictly ascending
};

// The default tolerance: within 5 % of the best counts as saturated.
inline constexpr double default_tolerance = 0.05;

struct Saturation {
  int threads = 0;            // the saturation point
  double value = 0.0;         // the curve's value there
  int best_threads = 0;       // where the curve is highest (the fewest threads if it peaks twice)
  double best_value = 0.0;
  double fraction_of_best = 0.0;  // value / best_value, in (1 - tolerance, 1]
  double tolerance = 0.0;
};

// Throws std::invalid_argument, naming `what` (e.g. "stencil curve of NUMA node 0"), the offending point
// and what is allowed, when the curve is empty, a thread count is not positive, the thread counts do
// not strictly ascend, or a value is not a finite positive number.
void check_curve(const Curve& curve, const std::string& what);

// Throws std::invalid_argument unless 0 <= tolerance < 1.
void check_tolerance(double tolerance);

// The smallest thread count whose value is at least (1 - tolerance) x the best value of the curve.
// The curve need not be monotone: a dip after the best (noise, or a real loss from contention) does
// not matter, and neither does a point above the threshold before a lower one. A value exactly at the
// threshold counts as saturated (up to rounding of the threshold itself). Checks its inputs as
// check_curve and check_tolerance do.
Saturation find_saturation(const Curve& curve, double tolerance, const std::string& what = "curve");

// The value of the curve at exactly `threads`, if it was measured there.
std::optional<double> value_at(const Curve& curve, int threads);

}  // namespace wave3d::advise
