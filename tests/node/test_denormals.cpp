// stencil.denormals: the mode reaches every thread of the team, threads started later copy it, and
// every kernel variant equals the reference bit for bit under either mode on fields of subnormal
// values, whose results the two modes tell apart.
#include <gtest/gtest.h>
#include <omp.h>

#include <cfloat>
#include <limits>
#include <utility>
#include <vector>

#include "field/first_touch.hpp"
#include "runtime/denormals.hpp"
#include "stencil/coefficients.hpp"
#include "stencil/kernel.hpp"

#include "field_test_support.hpp"

namespace wave3d {
namespace {

using test_support::bitwise_equal;
using test_support::fill_random;

// Puts the process back to IEEE arithmetic when a test ends, pass or fail.
struct KeepDenormalsAfterwards {
  int threads = omp_get_max_threads();
  ~KeepDenormalsAfterwards() {
    omp_set_num_threads(threads);
    set_denormals(Denormals::keep);
  }
};

// Each thread of a team of `threads`: its mode, and whether halving the smallest normal float gave 0.
struct ThreadView {
  std::vector<Denormals> modes;
  std::vector<bool> underflowed_to_zero;
};

ThreadView look_from_every_thread(int threads) {
  ThreadView view{std::vector<Denormals>(static_cast<std::size_t>(threads), Denormals::keep),
                  std::vector<bool>(static_cast<std::size_t>(threads), false)};
  std::vector<char> zero(static_cast<std::size_t>(threads), 0);
#pragma omp parallel num_threads(threads)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    volatile float smallest = FLT_MIN;  // volatile: computed at run time, under this thread's mode
    const float half = smallest * 0.5f;
    view.modes[t] = denormals_on_this_thread();
    zero[t] = half == 0.0f ? 1 : 0;
  }
  for (std::size_t t = 0; t < zero.size(); ++t) view.underflowed_to_zero[t] = zero[t] != 0;
  return view;
}

TEST(Denormals, FlushReachesEveryThreadAndThreadsStartedLaterCopyIt) {
  if (!denormal_mode_supported()) GTEST_SKIP() << "this CPU offers no flush-to-zero control";
  const KeepDenormalsAfterwards restore;
  omp_set_num_threads(2);
  ASSERT_TRUE(set_denormals(Denormals::flush));
  EXPECT_EQ(denormals_on_this_thread(), Denormals::flush);
  // 5 threads: at least three the runtime starts only now, from this thread.
  const ThreadView view = look_from_every_thread(5);
  for (std::size_t t = 0; t < view.modes.size(); ++t) {
    EXPECT_EQ(view.modes[t], Denormals::flush) << "thread " << t;
    EXPECT_TRUE(view.underflowed_to_zero[t]) << "thread " << t;
  }
}

TEST(Denormals, KeepGivesGradualUnderflowOnEveryThreadOfTheTeam) {
  if (!denormal_mode_supported()) GTEST_SKIP() << "this CPU offers no flush-to-zero control";
  const KeepDenormalsAfterwards restore;
  omp_set_num_threads(5);
  ASSERT_TRUE(set_denormals(Denormals::flush));
  ASSERT_TRUE(set_denormals(Denormals::keep));
  const ThreadView view = look_from_every_thread(5);
  for (std::size_t t = 0; t < view.modes.size(); ++t) {
    EXPECT_EQ(view.modes[t], Denormals::keep) << "thread " << t;
    EXPECT_FALSE(view.underflowed_to_zero[t]) << "thread " << t;
  }
}

TEST(Denormals, SummaryNamesTheModeAndWhyItDiffersFromTheRequest) {
  EXPECT_EQ(describe_denormals(Denormals::flush, Denormals::flush),
            "subnormal values flushed to zero (FTZ and DAZ on every thread)");
  EXPECT_EQ(describe_denormals(Denormals::keep, Denormals::keep), "subnormal values kept (IEEE gradual underflow)");
  EXPECT_EQ(describe_denormals(Denormals::keep, Denormals::flush),
            "subnormal values kept (IEEE): this CPU offers no flush-to-zero control");
}

// One update by `variant` and by the reference on fields whose previous level holds values near the
// smallest normal float (many of them and their weighted sums subnormal): whether the two agree bit
// for bit, and the variant's result.
template <typename T>
std::pair<bool, Field<T>> update_near_underflow(KernelVariant variant, int radius) {
  const Box owned{{0, 0, 0}, {37, 19, 13}};
  const Blocking blocking{{16, 5, 4}};
  Field<T> prev(owned, radius), vel(owned, radius), next_a(owned, radius), next_b(owned, radius);
  for (Field<T>* f : {&prev, &vel, &next_a, &next_b}) first_touch(*f, InitPolicy::first_touch, blocking);
  fill_random(prev, 1);
  fill_random(vel, 2);
  const Box all = prev.with_halo();
  const T tiny = std::numeric_limits<T>::min() * T(4);
  for (auto z = all.lo[2]; z < all.hi[2]; ++z)
    for (auto y = all.lo[1]; y < all.hi[1]; ++y)
      for (auto x = all.lo[0]; x < all.hi[0]; ++x) {
        prev.at(x, y, z) *= tiny;
        next_a.at(x, y, z) = next_b.at(x, y, z) = T(0);
      }
  const Kernel<T> kernel(second_derivative_weights(radius), blocking, variant);
  kernel.update(prev, next_a, vel, owned);
  kernel.update_reference(prev, next_b, vel, owned);
  return {bitwise_equal(next_a, next_b), std::move(next_a)};
}

template <typename T>
void check_every_variant_under_both_modes() {
  constexpr KernelVariant kVariants[] = {KernelVariant::blocked, KernelVariant::jammed, KernelVariant::columns};
  for (KernelVariant variant : kVariants)
    for (int r : kSupportedRadii) {
      ASSERT_TRUE(set_denormals(Denormals::flush));
      auto [flushed_equal, flushed] = update_near_underflow<T>(variant, r);
      ASSERT_TRUE(set_denormals(Denormals::keep));
      auto [kept_equal, kept] = update_near_underflow<T>(variant, r);
      EXPECT_TRUE(flushed_equal) << to_string(variant) << " R = " << r << ", flushed, " << sizeof(T) * 8 << " bit";
      EXPECT_TRUE(kept_equal) << to_string(variant) << " R = " << r << ", kept, " << sizeof(T) * 8 << " bit";
      // The modes must reach the kernel's threads: their results differ somewhere.
      EXPECT_FALSE(bitwise_equal(flushed, kept)) << to_string(variant) << " R = " << r;
    }
}

TEST(Denormals, EveryVariantEqualsTheReferenceUnderEitherMode) {
  if (!denormal_mode_supported()) GTEST_SKIP() << "this CPU offers no flush-to-zero control";
  const KeepDenormalsAfterwards restore;
  omp_set_num_threads(2);
  check_every_variant_under_both_modes<float>();
  check_every_variant_under_both_modes<double>();
}

}  // namespace
}  // namespace wave3d
