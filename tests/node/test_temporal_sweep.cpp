// Temporal blocking against one step at a time, bit for bit: every radius, both precisions, odd
// sizes, several tile heights and thread counts, and the source term injected between levels.
#include <gtest/gtest.h>
#include <omp.h>

#include "field/first_touch.hpp"
#include "solver/temporal_sweep.hpp"
#include "solver/wave_solver.hpp"
#include "stencil/coefficients.hpp"

#include "field_test_support.hpp"

namespace wave3d {
namespace {

using test_support::bitwise_equal;
using test_support::fill_random;

// `levels` single steps and one sweep of `levels`, from the same random fields; the region keeps a
// fixed frame of R points inside the owned box, as zero boundaries do.
template <typename T>
void check_sweep_equals_steps(KernelVariant variant, int radius, int levels, std::int64_t tile_rows, int threads) {
  const Box owned{{0, 0, 0}, {37, 41, 23}};
  const Box region = owned.grown(-radius);
  Field<T> cur_a(owned, radius), prev_a(owned, radius), vel(owned, radius);
  Field<T> cur_b(owned, radius), prev_b(owned, radius);
  for (Field<T>* f : {&cur_a, &prev_a, &vel, &cur_b, &prev_b}) first_touch(*f, InitPolicy::serial, Blocking{});
  fill_random(cur_a, 1);
  fill_random(prev_a, 2);
  fill_random(cur_b, 1);
  fill_random(prev_b, 2);
  fill_random(vel, 3);
  // Small velocities keep the values bounded over the levels, so that every bit means something.
  for (std::int64_t i = 0; i < vel.allocated_elements(); ++i) vel.data()[i] *= T(0.05);
  const Kernel<T> kernel(second_derivative_weights(radius), Blocking{{0, 7, 5}}, variant);

  omp_set_num_threads(threads);
  for (int s = 0; s < levels; ++s) {
    kernel.update(cur_a, prev_a, vel, region);
    swap(cur_a, prev_a);
  }
  sweep_levels<T>(kernel, cur_b, prev_b, vel, region, levels, tile_rows, {});
  EXPECT_TRUE(bitwise_equal(cur_a, cur_b) && bitwise_equal(prev_a, prev_b))
      << to_string(variant) << " R=" << radius << " levels=" << levels << " tile rows " << tile_rows << " threads "
      << threads << " precision " << sizeof(T) * 8;
}

TEST(TemporalSweep, EqualsSingleStepsBitwiseForEveryRadiusAndPrecision) {
  for (int r : kSupportedRadii)
    for (int levels : {2, 3}) {
      check_sweep_equals_steps<float>(KernelVariant::jammed, r, levels, 0, 2);
      check_sweep_equals_steps<double>(KernelVariant::jammed, r, levels, 0, 2);
    }
}

TEST(TemporalSweep, EqualsSingleStepsBitwiseForEveryTileHeightAndThreadCount) {
  // Tile heights at the minimum, odd, and one tile for the whole region; 1 to 3 threads (more
  // pieces than threads, and fewer).
  for (std::int64_t rows : {0, 5, 13, 1000})
    for (int threads : {1, 2, 3})
      for (int levels : {2, 4}) check_sweep_equals_steps<float>(KernelVariant::jammed, 2, levels, rows, threads);
}

TEST(TemporalSweep, EqualsSingleStepsBitwiseForEveryVariant) {
  for (KernelVariant variant : {KernelVariant::reference, KernelVariant::blocked, KernelVariant::jammed}) {
    check_sweep_equals_steps<float>(variant, 4, 3, 9, 2);
    check_sweep_equals_steps<double>(variant, 1, 5, 0, 2);
  }
}

TEST(TemporalSweep, OneLevelIsOneStep) { check_sweep_equals_steps<float>(KernelVariant::jammed, 8, 1, 0, 2); }

TEST(TemporalPlan, EveryRowOfEveryLevelIsComputedExactlyOnce) {
  for (int radius : kSupportedRadii)
    for (int levels : {1, 2, 3, 5})
      for (std::int64_t rows : {1, 16, 17, 40})
        for (std::int64_t extent : {1, 30, 97, 200}) {
          const std::int64_t lo = 3, hi = lo + extent;
          const TemporalPlan plan = plan_temporal_tiles(lo, hi, rows, levels, radius);
          for (int level = 1; level <= levels; ++level) {
            std::vector<int> covered(static_cast<std::size_t>(extent), 0);
            for (const auto* pieces : {&plan.trapezoids, &plan.borders})
              for (const TemporalPiece& p : *pieces) {
                const auto [a, b] = p.rows_at(level, radius);
                for (std::int64_t y = std::max(a, lo); y < std::min(b, hi); ++y) ++covered[y - lo];
              }
            for (std::int64_t y = 0; y < extent; ++y)
              ASSERT_EQ(covered[y], 1) << "row " << lo + y << " level " << level << " R=" << radius << " levels "
                                       << levels << " tile rows " << rows << " extent " << extent;
          }
          for (const TemporalPiece& t : plan.trapezoids)
            EXPECT_GE(t.hi - t.lo, std::min(extent, min_temporal_tile_rows(levels, radius)));
        }
}

RunConfig ricker_config() {
  RunConfig c;
  c.grid = Grid{{33, 29, 27}, 10.0, Boundary::zero, 4};
  c.physics = Physics{1500.0, 0.001};
  c.initial.kind = InitialKind::ricker;
  c.initial.source = {15, 13, 12};
  c.initial.frequency = 25.0;
  c.initial.amplitude = 1.0;
  c.blocking = Blocking{{0, 8, 4}};
  return c;
}

TEST(TemporalSweep, SolverSweepsWithTheSourceEqualSingleSteps) {
  omp_set_num_threads(2);
  const RunConfig c = ricker_config();
  WaveSolver<float> stepped(c, c.grid.whole()), swept(c, c.grid.whole());
  const auto no_halo_update = [](Field<float>&) {};  // zero boundary, no neighbours
  for (int s = 0; s < 9; ++s) stepped.step(no_halo_update);
  swept.sweep(4);
  swept.sweep(2);
  swept.sweep(3);
  EXPECT_EQ(swept.steps_done(), 9);
  EXPECT_TRUE(bitwise_equal(stepped.current(), swept.current()));
  EXPECT_TRUE(bitwise_equal(stepped.previous(), swept.previous()));
  // The source really fired: the field is no longer zero.
  EXPECT_NE(stepped.current().at(15, 13, 12), 0.0f);
}

}  // namespace
}  // namespace wave3d
