// Field layout: aligned rows, halo reach, first touch of everything the kernel and halo can reach.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "field/field.hpp"
#include "field/plane_stride.hpp"
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

TEST(Field, TheLineStartXOfEveryRowIsCacheLineAlignedAndTheHaloStaysWhole) {
  const Box owned{{3, 5, 7}, {3 + 37, 5 + 11, 7 + 9}};
  for (int halo : {1, 2, 4, 8, 16, 24})
    for (std::int64_t start : {owned.lo[0], owned.lo[0] + 1, owned.lo[0] + 8, owned.lo[0] + 15, owned.lo[0] - 3}) {
      SCOPED_TRACE(::testing::Message() << "halo " << halo << ", line start x " << start);
      Field<float> f(owned, halo, false, start);
      Field<double> d(owned, halo, false, start);
      EXPECT_EQ(f.line_start_x(), start);
      for (auto z = owned.lo[2] - halo; z < owned.hi[2] + halo; ++z)
        for (auto y = owned.lo[1] - halo; y < owned.hi[1] + halo; ++y) {
          EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&f.at(start, y, z)) % kCacheLine, 0u);
          EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&d.at(start, y, z)) % kCacheLine, 0u);
          // The halo's first x lies in the row, the last within the row stride.
          EXPECT_GE(f.offset(owned.lo[0] - halo, y, z), f.row_begin_offset(y, z));
          EXPECT_LE(f.offset(owned.hi[0] + halo, y, z), f.row_begin_offset(y, z) + f.row_stride());
          EXPECT_GE(d.offset(owned.lo[0] - halo, y, z), d.row_begin_offset(y, z));
          EXPECT_LE(d.offset(owned.hi[0] + halo, y, z), d.row_begin_offset(y, z) + d.row_stride());
        }
      EXPECT_EQ(Field<float>::layout_for(owned, halo, start).plane, f.plane_stride());
      EXPECT_EQ(Field<double>::layout_for(owned, halo, start).size, d.allocated_elements());
    }
}

TEST(Field, PlaneStrideSpreadsTheColumnKernelsLinesOverTheL1Sets) {
  // Unpadded, this plane would be 4 KiB-aligned: every plane of a column in one L1 set.
  const Field<float> f(Box{{0, 0, 0}, {240, 240, 8}}, 8);
  const auto lines = [](const auto& field) {
    return field.plane_stride() * static_cast<std::int64_t>(sizeof(float)) / static_cast<std::int64_t>(kCacheLine);
  };
  EXPECT_EQ(Field<float>::layout_for(f.owned(), 8).plane, f.plane_stride());
  EXPECT_LE(fullest_l1_set(16, lines(f), 8), 11);  // 19 rows x 32 planes over 64 sets: 10 at best
  EXPECT_EQ(fullest_l1_set(64, 64 * 256, 8), 19 * 32);  // rows and planes 4 KiB apart: one set

  // Rows of 17 lines (256 points past a zero boundary's layer): a plane of 4625 lines, congruent to a
  // row modulo 64 sets, piles the window's lines onto the anti-diagonals (19 in a set); the stride
  // taken is the first that spreads them.
  const Field<float> g(Box{{0, 0, 0}, {256, 256, 8}}, 8, false, 8);
  ASSERT_EQ(g.row_stride(), 17 * 16);
  EXPECT_EQ(fullest_l1_set(17, 4625, 8), 19);
  EXPECT_EQ(lines(g), 4626);
  EXPECT_EQ(fullest_l1_set(17, 4626, 8), 10);

  // Every radius, some row lengths: never fuller than an even spread and one more where a stride
  // within 64 lines allows it, and never a stride below the plane's rows.
  for (int radius : {1, 2, 4, 8})
    for (std::int64_t row_lines : {1, 2, 5, 16, 17, 18, 33, 64, 66}) {
      const std::int64_t min_lines = row_lines * (40 + 2 * radius);
      const std::int64_t stride = plane_stride_lines(row_lines, min_lines, radius);
      EXPECT_GE(stride, min_lines);
      EXPECT_LT(stride, min_lines + 64);
      int best = fullest_l1_set(row_lines, min_lines, radius);
      for (std::int64_t l = min_lines; l < min_lines + 64; ++l) best = std::min(best, fullest_l1_set(row_lines, l, radius));
      const int even_spread = ((2 * radius + 3) * (2 * radius + 16) + 63) / 64;
      EXPECT_LE(fullest_l1_set(row_lines, stride, radius), std::max(best, even_spread + 1))
          << "R = " << radius << ", rows of " << row_lines << " lines";
    }
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
