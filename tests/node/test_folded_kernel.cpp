// The folded layout and kernel: values survive the trip into the folded layout and back, and the
// folded kernel equals the reference kernel bit for bit on odd sizes, offset origins and regions that
// cover folds in part, at every radius in both precisions.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "stencil/coefficients.hpp"
#include "stencil/folded_field.hpp"
#include "stencil/folded_kernel.hpp"
#include "stencil/kernel.hpp"

#include "field_test_support.hpp"

namespace wave3d {
namespace {

using test_support::bitwise_equal;
using test_support::fill_random;

template <typename T>
void check_round_trip(int halo) {
  const Box owned{{5, 11, 3}, {42, 30, 16}};
  Field<T> source(owned, halo), back(owned, halo);
  fill_random(source, 7);
  FoldedField<T> folded(owned, halo);
  const Box held = folded.held();
  for (int axis = 0; axis < 3; ++axis) {
    EXPECT_LE(held.lo[axis], source.with_halo().lo[axis]);
    EXPECT_GE(held.hi[axis], source.with_halo().hi[axis]);
  }
  EXPECT_EQ((held.lo[1] - owned.lo[1]) % Fold<T>::y, 0);
  EXPECT_EQ((held.lo[2] - owned.lo[2]) % Fold<T>::z, 0);
  folded.copy_from(source, source.with_halo());
  folded.copy_to(back, source.with_halo());
  EXPECT_TRUE(bitwise_equal(source, back)) << "halo " << halo << ", " << sizeof(T) * 8 << " bit";
}

// The kernel reads the same x of many fold rows at once: no stride between fold rows or z folds is
// a multiple of 4 KiB (which would put all those lines in one L1 set), even where the held rows are
// (256 points and a 32-point halo: 320 lines).
template <typename T>
void check_strides_avoid_4k(const Box& owned, int halo) {
  const FoldedField<T> f(owned, halo);
  const std::int64_t line = 64 / static_cast<std::int64_t>(sizeof(T));  // elements per vector, one cache line
  const std::int64_t row_lines = f.fold_row_stride() / line, plane_lines = f.fold_plane_stride() / line;
  EXPECT_EQ(row_lines % 2, 1) << "row of " << row_lines << " lines";
  EXPECT_EQ(plane_lines % 64, 32) << "plane of " << plane_lines << " lines";
  EXPECT_GE(row_lines, f.held().extent(0));
  EXPECT_GE(plane_lines, row_lines * (f.held().extent(1) / Fold<T>::y));
}

TEST(FoldedField, NoStrideBetweenFoldRowsIsAMultipleOf4KiB) {
  for (int halo : {8, 32}) {
    check_strides_avoid_4k<float>({{0, 0, 0}, {256, 256, 128}}, halo);
    check_strides_avoid_4k<double>({{0, 0, 0}, {256, 256, 128}}, halo);
    check_strides_avoid_4k<float>({{5, 3, 1}, {42, 30, 16}}, halo);
  }
}

TEST(FoldedField, ValuesSurviveTheTripIntoTheFoldedLayoutAndBack) {
  for (int halo : {1, 2, 4, 8, 16}) {
    check_round_trip<float>(halo);
    check_round_trip<double>(halo);
  }
}

// Copies of part of the points (the slabs a halo exchange sends and fills, off the folds' edges)
// move those points alone, both ways.
template <typename T>
void check_partial_copies(int halo) {
  const Box owned{{5, 11, 3}, {42, 30, 16}};
  Field<T> source(owned, halo), before(owned, halo), out(owned, halo);
  fill_random(source, 3);
  fill_random(before, 4);
  FoldedField<T> folded(owned, halo);
  const std::vector<Box> slabs{{{5, 11, 3}, {5 + halo, 30, 16}},          // x face, owned side
                               {{5, 11 - halo, 3}, {42, 11, 16}},         // y face, ghost side
                               {{5, 13, 16}, {42, 29, 16 + halo}},        // z face, ghost side, rows off the folds
                               {{7, 12, 5}, {40, 27, 14}}};               // an inside box
  for (const Box& slab : slabs) {
    folded.copy_from(before, before.with_halo());
    folded.copy_from(source, slab);
    fill_random(out, 5);
    folded.copy_to(out, out.with_halo());
    const Box all = before.with_halo();
    bool right = true;
    for (std::int64_t z = all.lo[2]; z < all.hi[2]; ++z)
      for (std::int64_t y = all.lo[1]; y < all.hi[1]; ++y)
        for (std::int64_t x = all.lo[0]; x < all.hi[0]; ++x) {
          const T want = slab.contains({x, y, z}) ? source.at(x, y, z) : before.at(x, y, z);
          right = right && out.at(x, y, z) == want;
        }
    EXPECT_TRUE(right) << "copy_from, halo " << halo << ", slab " << slab.lo[0] << "," << slab.lo[1] << "," << slab.lo[2];
    // And back: only the slab's points of the plain field change.
    fill_random(out, 6);
    Field<T> expected(owned, halo);
    fill_random(expected, 6);
    folded.copy_to(out, slab);
    for (std::int64_t z = slab.lo[2]; z < slab.hi[2]; ++z)
      for (std::int64_t y = slab.lo[1]; y < slab.hi[1]; ++y)
        for (std::int64_t x = slab.lo[0]; x < slab.hi[0]; ++x) expected.at(x, y, z) = source.at(x, y, z);
    EXPECT_TRUE(bitwise_equal(out, expected)) << "copy_to, halo " << halo;
  }
}

TEST(FoldedField, CopiesOfPartOfThePointsMoveThoseAlone) {
  for (int halo : {1, 4, 8}) {
    check_partial_copies<float>(halo);
    check_partial_copies<double>(halo);
  }
}

TEST(FoldedField, FindsAValueThatIsNotFinite) {
  const Box owned{{0, 0, 0}, {21, 13, 10}};
  Field<float> plain(owned, 4);
  fill_random(plain, 8);
  FoldedField<float> folded(owned, 4);
  folded.copy_from(plain, plain.with_halo());
  EXPECT_TRUE(folded.all_finite(owned));
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    folded.at(20, 6, 9) = bad;
    EXPECT_FALSE(folded.all_finite(owned));
    EXPECT_FALSE(folded.all_finite(Box{{20, 4, 8}, {21, 8, 10}}));
    EXPECT_TRUE(folded.all_finite(Box{{0, 0, 0}, {20, 13, 10}}));  // another x
    EXPECT_TRUE(folded.all_finite(Box{{0, 0, 0}, {21, 13, 4}}));    // other z folds
    folded.at(20, 6, 9) = 1.0f;
  }
}

// One update of `region` (owned less `inset` at its low corner) by the folded kernel and by the
// reference kernel from the same values: equal bit for bit everywhere, also where neither writes.
template <typename T>
void check_folded_equals_reference(int radius, const Box& owned, const Index3& inset, FoldedBlocking blocking) {
  Field<T> prev(owned, radius), vel(owned, radius), next(owned, radius), expected(owned, radius);
  fill_random(prev, 1);
  fill_random(vel, 2);
  fill_random(next, 3);
  fill_random(expected, 3);
  const Kernel<T> kernel(second_derivative_weights(radius), Blocking{}, KernelVariant::reference);
  const Box region{{owned.lo[0] + inset[0], owned.lo[1] + inset[1], owned.lo[2] + inset[2]}, owned.hi};
  kernel.update_reference(prev, expected, vel, region);

  FoldedField<T> folded_prev(owned, radius), folded_next(owned, radius), folded_vel(owned, radius);
  folded_prev.copy_from(prev, prev.with_halo());
  folded_vel.copy_from(vel, vel.with_halo());
  folded_next.copy_from(next, next.with_halo());
  update_folded(folded_prev, folded_next, folded_vel, region, kernel.weights().data(), radius, blocking);
  folded_next.copy_to(next, next.with_halo());
  EXPECT_TRUE(bitwise_equal(next, expected))
      << "R = " << radius << ", " << sizeof(T) * 8 << " bit, owned from " << owned.lo[1] << ", inset " << inset[1]
      << "," << inset[2];
}

TEST(FoldedKernel, EqualsTheReferenceBitwiseOnOddSizesAndPartlyCoveredFolds) {
  if (!folded_kernel_built()) GTEST_SKIP() << "this build has no AVX-512";
  // 37 x 19 x 13 points from an origin off every fold: the first and last folds along y and z are
  // covered in part, and with an inset of 3 x 2 x 1 the region's own start is off them too.
  const Box owned{{5, 11, 3}, {42, 30, 16}};
  for (int r : kSupportedRadii)
    for (const Index3& inset : {Index3{0, 0, 0}, Index3{3, 2, 1}}) {
      check_folded_equals_reference<float>(r, owned, inset, FoldedBlocking{});
      check_folded_equals_reference<double>(r, owned, inset, FoldedBlocking{});
    }
}

TEST(FoldedKernel, EqualsTheReferenceWhateverItsBlocks) {
  if (!folded_kernel_built()) GTEST_SKIP() << "this build has no AVX-512";
  const Box owned{{0, 0, 0}, {33, 41, 29}};
  for (const FoldedBlocking blocking : {FoldedBlocking{1, 1}, FoldedBlocking{3, 2}, FoldedBlocking{100, 100}}) {
    check_folded_equals_reference<float>(8, owned, {0, 0, 0}, blocking);
    check_folded_equals_reference<double>(4, owned, {1, 1, 1}, blocking);
  }
}

}  // namespace
}  // namespace wave3d
