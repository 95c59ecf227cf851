// Field layout: aligned rows, halo reach, first touch of everything the kernel and halo can reach.
#include <gtest/gtest.h>

#include <cstdint>

#include "field/field.hpp"
#include "field/first_touch.hpp"
#include "field/periodic_halo.hpp"

namespace wave3d {
namespace {

TEST(Field, FirstOwnedPointOfEveryRowIsCacheLineAligned) {
  for (int halo : {1, 2, 4, 8}) {
    const Box owned{{3, 5, 7}, {3 + 37, 5 + 11, 7 + 9}};
    Field<float> f(owned, halo);
    Field<double> d(owned, halo);
    for (auto z = owned.lo[2] - halo; z < owned.hi[2] + halo; ++z)
      for (auto y = owned.lo[1] - halo; y < owned.hi[1] + halo; ++y) {
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&f.at(owned.lo[0], y, z)) % kCacheLine, 0u);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&d.at(owned.lo[0], y, z)) % kCacheLine, 0u);
      }
  }
}

TEST(Field, PlaneStrideIsAnOddNumberOfCacheLines) {
  const Field<float> f(Box{{0, 0, 0}, {240, 240, 8}}, 8);  // unpadded, the plane would be 4 KiB-aligned
  const auto lines = f.plane_stride() * static_cast<std::int64_t>(sizeof(float)) / static_cast<std::int64_t>(kCacheLine);
  EXPECT_EQ(lines % 2, 1);
  EXPECT_EQ(Field<float>::layout_for(f.owned(), 8).plane, f.plane_stride());
}

template <typename T>
void expect_all_zero(const Field<T>& f) {
  const Box b = f.with_halo();
  for (auto z = b.lo[2]; z < b.hi[2]; ++z)
    for (auto y = b.lo[1]; y < b.hi[1]; ++y)
      for (auto x = b.lo[0]; x < b.hi[0]; ++x) ASSERT_EQ(f.at(x, y, z), T(0)) << x << "," << y << "," << z;
}

TEST(Field, BothInitPoliciesWriteEveryCellIncludingHalos) {
  const Box owned{{0, 0, 0}, {29, 17, 13}};
  for (InitPolicy policy : {InitPolicy::first_touch, InitPolicy::serial}) {
    Field<float> f(owned, 4);
    first_touch(f, policy, Blocking{{8, 5, 3}});
    expect_all_zero(f);
  }
}

TEST(Field, PeriodicHaloHoldsTheWrappedValues) {
  const Grid grid{{6, 5, 4}, 1.0, Boundary::periodic, 2};
  Field<double> f(grid.whole(), 2);
  first_touch(f, InitPolicy::serial, Blocking{});
  auto value = [](std::int64_t x, std::int64_t y, std::int64_t z) { return double(x + 10 * y + 100 * z); };
  for (auto z = 0; z < 4; ++z)
    for (auto y = 0; y < 5; ++y)
      for (auto x = 0; x < 6; ++x) f.at(x, y, z) = value(x, y, z);
  fill_periodic_halo(f, grid);
  auto wrap = [](std::int64_t i, std::int64_t n) { return ((i % n) + n) % n; };
  const Box b = f.with_halo();
  for (auto z = b.lo[2]; z < b.hi[2]; ++z)
    for (auto y = b.lo[1]; y < b.hi[1]; ++y)
      for (auto x = b.lo[0]; x < b.hi[0]; ++x)
        ASSERT_EQ(f.at(x, y, z), value(wrap(x, 6), wrap(y, 5), wrap(z, 4))) << x << "," << y << "," << z;
}

}  // namespace
}  // namespace wave3d
