#include "verify/field_checks.hpp"

#include <cmath>
#include <algorithm>
#include <cstring>

namespace wave3d {
namespace {

std::uint64_t mix64(std::uint64_t v) {  // the splitmix64 finaliser: a cheap full-avalanche bijection
  v += 0x9e3779b97f4a7c15ULL;
  v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ULL;
  v = (v ^ (v >> 27)) * 0x94d049bb133111ebULL;
  return v ^ (v >> 31);
}

template <typename T>
std::uint64_t value_bits(T v) {
  if constexpr (sizeof(T) == 4) {
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  } else {
    std::uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
}

}  // namespace

template <typename T>
std::uint64_t field_checksum(const Field<T>& field, const Box& region, const Grid& grid) {
  std::uint64_t sum = 0;
#pragma omp parallel for collapse(2) reduction(+ : sum) schedule(static)
  for (std::int64_t z = region.lo[2]; z < region.hi[2]; ++z)
    for (std::int64_t y = region.lo[1]; y < region.hi[1]; ++y)
      for (std::int64_t x = region.lo[0]; x < region.hi[0]; ++x) {
        const auto global = static_cast<std::uint64_t>(x + grid.n[0] * (y + grid.n[1] * z));
        sum += mix64(mix64(global) ^ value_bits(field.at(x, y, z)));
      }
  return sum;
}

template <typename T>
double sum_of_squares(const Field<T>& field, const Box& region) {
  double sum = 0.0;
#pragma omp parallel for collapse(2) reduction(+ : sum) schedule(static)
  for (std::int64_t z = region.lo[2]; z < region.hi[2]; ++z)
    for (std::int64_t y = region.lo[1]; y < region.hi[1]; ++y)
      for (std::int64_t x = region.lo[0]; x < region.hi[0]; ++x) {
        const double v = field.at(x, y, z);
        sum += v * v;
      }
  return sum;
}

template <typename T>
bool all_finite(const Field<T>& field, const Box& region) {
  int bad = 0;
#pragma omp parallel for collapse(2) reduction(| : bad) schedule(static)
  for (std::int64_t z = region.lo[2]; z < region.hi[2]; ++z)
    for (std::int64_t y = region.lo[1]; y < region.hi[1]; ++y) {
      const T* row = &field.at(region.lo[0], y, z);
      for (std::int64_t i = 0; i < region.extent(0); ++i) bad |= !std::isfinite(row[i]);
    }
  return bad == 0;
}

template <typename T>
double max_abs_difference(const Field<T>& field, const Box& region,
                          const std::function<double(std::int64_t, std::int64_t, std::int64_t)>& f) {
  double worst = 0.0;
#pragma omp parallel for collapse(2) reduction(max : worst) schedule(static)
  for (std::int64_t z = region.lo[2]; z < region.hi[2]; ++z)
    for (std::int64_t y = region.lo[1]; y < region.hi[1]; ++y)
      for (std::int64_t x = region.lo[0]; x < region.hi[0]; ++x) {
        double d = std::abs(static_cast<double>(field.at(x, y, z)) - f(x, y, z));
        if (std::isnan(d)) d = INFINITY;  // a NaN anywhere must not hide inside the max
        worst = std::max(worst, d);
      }
  return worst;
}

template <typename T>
double max_abs_difference(const Field<T>& a, const Field<T>& b, const Box& region) {
  return max_abs_difference<T>(a, region, [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    return static_cast<double>(b.at(x, y, z));
  });
}

#define WAVE3D_INSTANTIATE(T)                                                                              \
  template std::uint64_t field_checksum<T>(const Field<T>&, const Box&, const Grid&);                      \
  template double sum_of_squares<T>(const Field<T>&, const Box&);                                          \
  template bool all_finite<T>(const Field<T>&, const Box&);                                                \
  template double max_abs_difference<T>(const Field<T>&, const Box&,                                       \
                                        const std::function<double(std::int64_t, std::int64_t, std::int64_t)>&); \
  template double max_abs_difference<T>(const Field<T>&, const Field<T>&, const Box&);
WAVE3D_INSTANTIATE(float)
WAVE3D_INSTANTIATE(double)
#undef WAVE3D_INSTANTIATE

}  // namespace wave3d
