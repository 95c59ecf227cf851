// Every kernel variant against the plain reference, bit for bit.
#include <gtest/gtest.h>

#include "field/first_touch.hpp"
#include "field/periodic_halo.hpp"
#include "stencil/coefficients.hpp"
#include "stencil/kernel.hpp"

#include "field_test_support.hpp"

namespace wave3d {
namespace {

using test_support::bitwise_equal;
using test_support::fill_random;

// inset: how far the updated region starts inside the owned box on each axis (as zero boundaries and
// overlap shells start it), so that rows start off a cache line.
template <typename T>
void check_variant_equals_reference(KernelVariant variant, int radius, Index3 n, Blocking blocking,
                                    Box owned_offset = {}, Index3 inset = {0, 0, 0}) {
  Box owned{owned_offset.lo, {owned_offset.lo[0] + n[0], owned_offset.lo[1] + n[1], owned_offset.lo[2] + n[2]}};
  Field<T> prev(owned, radius), vel(owned, radius), next_a(owned, radius), next_b(owned, radius);
  for (Field<T>* f : {&prev, &vel, &next_a, &next_b}) first_touch(*f, InitPolicy::first_touch, blocking);
  fill_random(prev, 1);
  fill_random(vel, 2);
  fill_random(next_a, 3);
  fill_random(next_b, 3);
  const Kernel<T> kernel(second_derivative_weights(radius), blocking, variant);
  const Box region{{owned.lo[0] + inset[0], owned.lo[1] + inset[1], owned.lo[2] + inset[2]}, owned.hi};
  kernel.update(prev, next_a, vel, region);
  kernel.update_reference(prev, next_b, vel, region);
  EXPECT_TRUE(bitwise_equal(next_a, next_b))
      << to_string(variant) << " radius " << radius << " precision " << sizeof(T) * 8 << " size " << n[0] << "x"
      << n[1] << "x" << n[2];
}

constexpr KernelVariant kFastVariants[] = {KernelVariant::blocked, KernelVariant::jammed, KernelVariant::columns};

TEST(Kernel, EveryVariantEqualsReferenceBitwiseOnOddSizes) {
  // Blocks of 7 x 5 x 3: rows shorter than a vector, and row groups of every length up to kJamRows.
  const Blocking blocking{{7, 5, 3}};
  for (KernelVariant variant : kFastVariants)
    for (int r : kSupportedRadii) {
      check_variant_equals_reference<float>(variant, r, {37, 19, 13}, blocking);
      check_variant_equals_reference<double>(variant, r, {37, 19, 13}, blocking);
    }
}

TEST(Kernel, EveryVariantEqualsReferenceWithWholeRowBlocksAndOffsetOrigin) {
  // Whole rows of 45 points: whole vectors and a tail of single points in every row.
  const Blocking blocking{{0, 4, 9}};
  const Box offset{{5, 11, 3}, {5, 11, 3}};
  for (KernelVariant variant : kFastVariants)
    for (int r : kSupportedRadii) {
      check_variant_equals_reference<float>(variant, r, {45, 23, 17}, blocking, offset);
      check_variant_equals_reference<double>(variant, r, {45, 23, 17}, blocking, offset);
    }
}

TEST(Kernel, JammedVariantIsBuiltWithExplicitVectorsWhereTheMachineHasThem) {
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
  EXPECT_TRUE(jammed_kernel_built());
#else
  EXPECT_FALSE(jammed_kernel_built());
#endif
  EXPECT_FALSE(jammed_vector_isa().empty());
}

TEST(Kernel, ColumnsEqualReferenceOnBlocksOfEveryColumnShape) {
  // Columns of one plane (rows take over), shorter than the z window, and longer; row tails of 1 to
  // a vector less one lane under the mask; several x vectors per block, where R <= 2 marches whole
  // vectors two at a time (columns_at_once): pairs alone, and pairs and one left over (47 doubles
  // hold five whole vectors).
  for (const Index3& size : {Index3{16, 8, 1}, Index3{16, 8, 5}, Index3{33, 3, 40}, Index3{0, 7, 0}, Index3{17, 1, 2}})
    for (int r : kSupportedRadii) {
      check_variant_equals_reference<float>(KernelVariant::columns, r, {47, 21, 19}, Blocking{size});
      check_variant_equals_reference<double>(KernelVariant::columns, r, {47, 21, 19}, Blocking{size});
      // Rows that start 3 points past a cache line: a masked head vector first.
      check_variant_equals_reference<float>(KernelVariant::columns, r, {47, 21, 19}, Blocking{size}, {}, {3, 2, 1});
      check_variant_equals_reference<double>(KernelVariant::columns, r, {47, 21, 19}, Blocking{size}, {}, {3, 2, 1});
    }
}

TEST(Kernel, ColumnsEqualReferenceAtEveryPrefetchDistance) {
  // The prefetches reach 1 to kMaxPrefetchRows rows ahead, past the block's and the field's last
  // rows too; they move no data the kernel computes with.
  for (int rows = 1; rows <= kMaxPrefetchRows; ++rows)
    for (int r : kSupportedRadii) {
      Blocking blocking{{0, 7, 0}};
      blocking.prefetch_rows = rows;
      check_variant_equals_reference<float>(KernelVariant::columns, r, {47, 21, 19}, blocking);
      check_variant_equals_reference<double>(KernelVariant::columns, r, {47, 21, 19}, blocking, {}, {3, 2, 1});
    }
}

TEST(Kernel, PrefetchDistanceIsTheRadiusRuleUnlessGiven) {
  for (int r : kSupportedRadii) {
    const std::vector<double> weights = second_derivative_weights(r);
    EXPECT_EQ(Kernel<float>(weights, Blocking{}, KernelVariant::columns).blocking().prefetch_rows,
              default_prefetch_rows(r));
    Blocking given;
    given.prefetch_rows = 3;
    EXPECT_EQ(Kernel<float>(weights, given, KernelVariant::columns).blocking().prefetch_rows, 3);
  }
  EXPECT_EQ(default_prefetch_rows(8), 2);
  EXPECT_EQ(default_prefetch_rows(4), 2);
  EXPECT_EQ(default_prefetch_rows(2), 1);
  EXPECT_EQ(default_prefetch_rows(1), 1);
}

TEST(Kernel, ColumnWindowFitsAvx512AtEveryRadiusAndAvx2AtSmallOnes) {
  const std::string_view isa = jammed_vector_isa();
  for (int r : kSupportedRadii) {
    const bool fits = column_window_fits_registers(r);
    if (isa == "avx512") EXPECT_TRUE(fits) << "R = " << r;
    else if (isa == "avx2") EXPECT_EQ(fits, r <= 2) << "R = " << r;
    else EXPECT_FALSE(fits) << "R = " << r;
  }
}

TEST(Kernel, UpdatesOnlyTheRegion) {
  const int r = 4;
  const Box owned{{0, 0, 0}, {20, 20, 20}};
  Field<float> prev(owned, r), vel(owned, r), next(owned, r);
  for (Field<float>* f : {&prev, &vel, &next}) first_touch(*f, InitPolicy::first_touch, Blocking{});
  fill_random(prev, 4);
  fill_random(vel, 5);
  fill_random(next, 6);
  Field<float> before(owned, r);
  first_touch(before, InitPolicy::serial, Blocking{});
  fill_random(before, 6);
  const Box region{{4, 5, 6}, {15, 14, 13}};
  for (KernelVariant variant : kFastVariants) {
    Kernel<float>(second_derivative_weights(r), Blocking{{8, 8, 8}}, variant).update(prev, next, vel, region);
    for (auto z = 0; z < 20; ++z)
      for (auto y = 0; y < 20; ++y)
        for (auto x = 0; x < 20; ++x)
          if (!region.contains({x, y, z})) {
            ASSERT_EQ(next.at(x, y, z), before.at(x, y, z)) << to_string(variant);
          }
  }
}

TEST(Kernel, RejectsUnsupportedRadius) {
  EXPECT_THROW(Kernel<float>(second_derivative_weights(3), Blocking{}), std::invalid_argument);
}

}  // namespace
}  // namespace wave3d

namespace wave3d {
namespace {

TEST(Box, BoxesOutsideTileTheDifferenceExactly) {
  const Box outer{{2, 3, 4}, {20, 17, 15}};
  for (const Box& inner : {Box{{5, 6, 7}, {15, 12, 11}}, Box{{2, 3, 4}, {20, 17, 15}}, Box{{2, 6, 4}, {20, 12, 15}},
                           Box{{2, 3, 4}, {2, 3, 4}}}) {
    const auto pieces = boxes_outside(outer, inner);
    EXPECT_LE(pieces.size(), 6u);
    for (auto z = outer.lo[2]; z < outer.hi[2]; ++z)
      for (auto y = outer.lo[1]; y < outer.hi[1]; ++y)
        for (auto x = outer.lo[0]; x < outer.hi[0]; ++x) {
          int covered = inner.contains({x, y, z}) ? 1 : 0;
          for (const Box& p : pieces) covered += p.contains({x, y, z}) ? 1 : 0;
          ASSERT_EQ(covered, 1) << x << "," << y << "," << z;
        }
  }
}

}  // namespace
}  // namespace wave3d
