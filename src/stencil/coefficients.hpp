#pragma once
// Central-difference weights for the second derivative, of order 2R, and the spectral facts the
// stability check and the exact-solution verification derive from them.
#include <vector>

namespace wave3d {

// The radii the kernel is compiled for.
inline constexpr int kSupportedRadii[] = {1, 2, 4, 8};
bool is_supported_radius(int radius);

// Weights c[0..R] of d2u/dx2 ~ (c0 u_i + sum_k c_k (u_{i-k} + u_{i+k})) / h^2, from the closed form
// c_k = 2 (-1)^(k+1) (R!)^2 / (k^2 (R-k)! (R+k)!),  c_0 = -2 sum_k c_k.
std::vector<double> second_derivative_weights(int radius);

// Symbol of the 1D operator for the Fourier mode exp(i theta j): -(c0 + 2 sum_k c_k cos(k theta)) >= 0,
// the discrete counterpart of theta^2.
double discrete_wavenumber_squared(const std::vector<double>& weights, double theta);

// Largest value of that symbol over theta in [0, pi].
double max_discrete_wavenumber_squared(const std::vector<double>& weights);

// Largest Courant number v dt / h for which leapfrog in time with this 3D operator is stable:
// (v dt / h)^2 * 3 * max_symbol <= 4.
double courant_limit(const std::vector<double>& weights);

}  // namespace wave3d
