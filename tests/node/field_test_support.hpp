#pragma once
// Helpers the node-level kernel tests share: random fields, bitwise comparison and periodic halos.
#include <cstdint>
#include <cstring>
#include <random>

#include "field/field.hpp"

namespace wave3d::test_support {

// Every point of f, halo included, uniform in [-1, 1) from `seed`.
template <typename T>
void fill_random(Field<T>& f, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  const Box b = f.with_halo();
  for (auto z = b.lo[2]; z < b.hi[2]; ++z)
    for (auto y = b.lo[1]; y < b.hi[1]; ++y)
      for (auto x = b.lo[0]; x < b.hi[0]; ++x) f.at(x, y, z) = static_cast<T>(dist(gen));
}

// Whether a and b (of one layout) hold the same bits at every point of box (by default, the whole
// field, halo included).
template <typename T>
bool bitwise_equal(const Field<T>& a, const Field<T>& b, const Box& box) {
  for (auto z = box.lo[2]; z < box.hi[2]; ++z)
    for (auto y = box.lo[1]; y < box.hi[1]; ++y)
      if (std::memcmp(&a.at(box.lo[0], y, z), &b.at(box.lo[0], y, z), sizeof(T) * box.extent(0)) != 0) return false;
  return true;
}

template <typename T>
bool bitwise_equal(const Field<T>& a, const Field<T>& b) {
  return bitwise_equal(a, b, a.with_halo());
}

// The halo of a subdomain that is the whole periodic grid of `n` points, filled `width` deep from the
// far side (faces, edges and corners): what the deep halo exchange does on one rank.
template <typename T>
void fill_periodic_halo(Field<T>& f, const Index3& n, int width) {
  const Box& owned = f.owned();
  const Box all = owned.grown(width);
  const auto wrap = [](std::int64_t i, std::int64_t m) { return ((i % m) + m) % m; };
  for (std::int64_t z = all.lo[2]; z < all.hi[2]; ++z)
    for (std::int64_t y = all.lo[1]; y < all.hi[1]; ++y)
      for (std::int64_t x = all.lo[0]; x < all.hi[0]; ++x)
        if (!owned.contains({x, y, z})) f.at(x, y, z) = f.at(wrap(x, n[0]), wrap(y, n[1]), wrap(z, n[2]));
}

}  // namespace wave3d::test_support
