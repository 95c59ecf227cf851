// Temporal blocking on the folded layout: a sweep of several levels with the folded kernel equals as
// many single steps of the reference kernel bit for bit, on odd sizes whose tiles and fronts cover
// folds in part, at every radius in both precisions and for any tile height and thread count; the
// solver's sweeps (source term, deep periodic halos exchanged through the plain fields) equal its
// single steps; and the tiles are cut on the first rows of y folds, whose pages first touch gives to
// the thread that computes them.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "field/first_touch.hpp"
#include "solver/temporal_sweep.hpp"
#include "solver/wave_solver.hpp"
#include "stencil/coefficients.hpp"
#include "stencil/folded_kernel.hpp"

#include "field_test_support.hpp"

namespace wave3d {
namespace {

using test_support::bitwise_equal;
using test_support::fill_periodic_halo;
using test_support::fill_random;

// `levels` steps of the reference kernel on plain fields, and one folded sweep of `levels` from the
// same random fields over `boxes` (a fixed region, or one whose faces move into a deep halo).
template <typename T>
void check_folded_sweep(const Box& owned, int halo, const LevelBoxes& boxes, int radius, int levels,
                        std::int64_t tile_rows, int threads) {
  Field<T> cur(owned, halo), prev(owned, halo), vel(owned, halo), out_cur(owned, halo), out_prev(owned, halo);
  for (Field<T>* f : {&cur, &prev, &vel, &out_cur, &out_prev}) first_touch(*f, InitPolicy::serial, Blocking{});
  fill_random(cur, 1);
  fill_random(prev, 2);
  fill_random(vel, 3);
  // Small velocities keep the values bounded over the levels, so that every bit means something.
  for (std::int64_t i = 0; i < vel.allocated_elements(); ++i) vel.data()[i] *= T(0.05);
  FoldedField<T> fcur(owned, halo), fprev(owned, halo), fvel(owned, halo);
  for (FoldedField<T>* f : {&fcur, &fprev, &fvel}) f->first_touch(InitPolicy::serial, owned);
  fcur.copy_from(cur, cur.with_halo());
  fprev.copy_from(prev, prev.with_halo());
  fvel.copy_from(vel, vel.with_halo());

  const Kernel<T> reference(second_derivative_weights(radius), Blocking{}, KernelVariant::reference);
  for (int level = 1; level <= levels; ++level) {
    reference.update_reference(cur, prev, vel, boxes.at(level));
    swap(cur, prev);
  }
  const Kernel<T> folded(second_derivative_weights(radius), Blocking{}, KernelVariant::folded);
  omp_set_num_threads(threads);
  sweep_levels(folded, fcur, fprev, fvel, boxes, levels, tile_rows, {});
  fcur.copy_to(out_cur, owned);
  fprev.copy_to(out_prev, owned);
  EXPECT_TRUE(bitwise_equal(cur, out_cur, owned) && bitwise_equal(prev, out_prev, owned))
      << "R=" << radius << " levels=" << levels << " tile rows " << tile_rows << " threads " << threads << " precision "
      << sizeof(T) * 8;
}

// A fixed region a radius inside an odd owned box whose origin is off the folds.
template <typename T>
void check_fixed_region(int radius, int levels, std::int64_t tile_rows, int threads) {
  const Box owned{{3, 5, 7}, {40, 46, 30}};
  check_folded_sweep<T>(owned, radius, LevelBoxes::fixed(owned.grown(-radius)), radius, levels, tile_rows, threads);
}

#define SKIP_WITHOUT_FOLDED_KERNEL() \
  if (!folded_kernel_built()) GTEST_SKIP() << "this build has no AVX-512: no folded kernel"

TEST(FoldedTemporalSweep, EqualsReferenceStepsBitwiseForEveryRadiusAndPrecision) {
  SKIP_WITHOUT_FOLDED_KERNEL();
  for (int r : kSupportedRadii)
    for (int levels : {2, 3}) {
      check_fixed_region<float>(r, levels, 0, 2);
      check_fixed_region<double>(r, levels, 0, 2);
    }
}

TEST(FoldedTemporalSweep, EqualsReferenceStepsBitwiseForEveryTileHeightAndThreadCount) {
  SKIP_WITHOUT_FOLDED_KERNEL();
  // Tiles at the minimum, odd (rounded up to whole folds), one for the whole region; 1 to 5 threads,
  // more tiles than threads and fewer; 8 threads on thin tiles (more threads than cores).
  for (std::int64_t rows : {0, 5, 13, 1000})
    for (int threads : {1, 2, 3, 5})
      for (int levels : {2, 4}) check_fixed_region<float>(2, levels, rows, threads);
  for (int threads : {3, 8}) check_fixed_region<double>(1, 3, 2, threads);
  check_fixed_region<float>(8, 4, 48, 2);
}

// Faces that move: level 1 reaches (levels - 1) radii into a deep halo on the faces with neighbours
// (here the low y face and both z faces), each later level a radius less, as the solver's deep halos.
TEST(FoldedTemporalSweep, EqualsReferenceStepsWhereTheRegionReachesIntoADeepHalo) {
  SKIP_WITHOUT_FOLDED_KERNEL();
  const Box owned{{2, 1, 6}, {35, 40, 33}};
  for (int r : {1, 4, 8}) {
    const int levels = 3, halo = levels * r;
    FaceFlags faces{};
    faces[1][0] = faces[2][0] = faces[2][1] = true;
    const LevelBoxes boxes{grown_at(owned.grown(-r), faces, r + static_cast<std::int64_t>(levels - 1) * r), faces, r, {}};
    check_folded_sweep<float>(owned, halo, boxes, r, levels, 0, 2);
    check_folded_sweep<double>(owned, halo, boxes, r, levels, 9, 3);
  }
}

// The cuts between tiles fall on the first rows of y folds (but the region's own first row).
TEST(FoldedTemporalSweep, TilesAreCutOnTheFoldsFirstRows) {
  const RowGrid grid{-9, 4};
  const LevelBoxes boxes = LevelBoxes::fixed(Box{{0, 2, 0}, {8, 203, 8}});
  for (int threads : {1, 2, 3, 7})
    for (std::int64_t rows : {0, 5, 13, 64}) {
      const TemporalPlan plan = plan_sweep_tiles(boxes, 3, 4, rows, threads, grid);
      ASSERT_FALSE(plan.trapezoids.empty());
      EXPECT_EQ(plan.trapezoids.front().lo, 2);
      EXPECT_EQ(plan.trapezoids.back().hi, 203);
      for (std::size_t i = 1; i < plan.trapezoids.size(); ++i)
        EXPECT_EQ((plan.trapezoids[i].lo - grid.base) % grid.step, 0) << "tile " << i << " threads " << threads;
    }
}

// The pages of every y fold of a sweep's region go to the thread whose tiles compute its rows.
TEST(FoldedTemporalSweep, FirstTouchGivesEachFoldRowToTheThreadThatComputesIt) {
  const Box owned{{0, 3, 0}, {40, 171, 30}};
  const FoldedField<float> field(owned, 8);
  const LevelBoxes boxes = LevelBoxes::fixed(owned.grown(-8));
  const RowGrid grid = tile_row_grid(field);
  for (int threads : {2, 3, 16}) {
    const std::vector<std::int64_t> starts = temporal_thread_rows(boxes, 4, 8, 0, threads, grid);
    const TemporalPlan plan = plan_sweep_tiles(boxes, 4, 8, 0, threads, grid);
    const auto tiles = static_cast<std::int64_t>(plan.trapezoids.size());
    for (int t = 0; t < threads; ++t) {
      const auto [first, end] = static_schedule_share(t, tiles, threads);
      const auto [fold_first, fold_end] = field.row_folds_of_thread(t, starts);
      for (std::int64_t j = first; j < end; ++j) {
        const TemporalPiece& tile = plan.trapezoids[static_cast<std::size_t>(j)];
        EXPECT_GE(field.fold_y(tile.lo), fold_first) << "thread " << t << " of " << threads;
        EXPECT_LE(field.fold_y(tile.hi - 1), fold_end - 1) << "thread " << t << " of " << threads;
      }
    }
  }
}

RunConfig folded_ricker_config(KernelChoice kernel) {
  RunConfig c;
  c.grid = Grid{{33, 29, 27}, 10.0, Boundary::zero, 4};
  c.physics = Physics{1500.0, 0.001};
  c.initial.kind = InitialKind::ricker;
  c.initial.source = {15, 13, 12};
  c.initial.frequency = 25.0;
  c.initial.amplitude = 1.0;
  c.blocking = Blocking{{0, 8, 4}};
  c.kernel = kernel;
  return c;
}

// The solver's folded sweeps with the source term equal the plain kernel's single steps.
TEST(FoldedTemporalSweep, SolverSweepsWithTheSourceEqualSingleSteps) {
  SKIP_WITHOUT_FOLDED_KERNEL();
  omp_set_num_threads(2);
  const RunConfig plain = folded_ricker_config(KernelChoice::blocked);
  RunConfig folded = folded_ricker_config(KernelChoice::folded);
  folded.blocking.steps = 4;
  WaveSolver<float> stepped(plain, plain.grid.whole()), swept(folded, folded.grid.whole());
  const auto no_halo_update = [](Field<float>&) {};  // zero boundary, no neighbours
  for (int s = 0; s < 9; ++s) stepped.step(no_halo_update);
  swept.sweep(4);
  swept.sweep(2);
  swept.sweep(3);
  EXPECT_TRUE(bitwise_equal(stepped.current(), swept.current()));
  EXPECT_TRUE(bitwise_equal(stepped.previous(), swept.previous()));
  EXPECT_NE(stepped.current().at(15, 13, 12), 0.0f);
}

// A periodic grid with every face's halo filled by "a neighbour" through the plain fields, as the
// step driver exchanges them: the owned cells sent copied out of the folded levels first, the halo
// copied in after; whole sweeps and inside + rest. Equal to the plain kernel's single steps.
void check_folded_periodic_sweeps(int levels, bool in_two_parts) {
  omp_set_num_threads(2);
  RunConfig plain = folded_ricker_config(KernelChoice::blocked);
  plain.grid.boundary = Boundary::periodic;
  plain.initial.source = {1, 27, 25};  // near three faces: its images lie in the halo
  RunConfig folded = plain;
  folded.kernel = KernelChoice::folded;
  folded.blocking.steps = levels;
  const FaceFlags all_faces{{{true, true}, {true, true}, {true, true}}};
  WaveSolver<float> stepped(plain, plain.grid.whole(), {true, true, true}, all_faces);
  WaveSolver<float> swept(folded, folded.grid.whole(), {true, true, true}, all_faces);
  fill_periodic_halo(swept.velocity_halo_field(), folded.grid.n, swept.halo_width());
  swept.velocity_halo_received();
  const auto periodic_halo = [&](Field<float>& f) { fill_periodic_halo(f, plain.grid.n, plain.grid.radius); };
  const int r = folded.grid.radius;
  int done = 0;
  for (int sweep : {levels, 1, levels}) {
    for (int s = 0; s < sweep; ++s) stepped.step(periodic_halo);
    swept.sweep_halo_to_send(sweep);
    fill_periodic_halo(swept.halo_field(), folded.grid.n, sweep * r);
    fill_periodic_halo(swept.older_halo_field(), folded.grid.n, (sweep - 1) * r);
    swept.sweep_halo_received(sweep, false);
    if (in_two_parts) {
      swept.sweep_inside(sweep);
      swept.sweep_halo_received(sweep, true);
      swept.sweep_rest(sweep);
    } else {
      swept.sweep_halo_received(sweep, true);
      swept.sweep(sweep);
    }
    done += sweep;
    const Box owned = folded.grid.whole();
    EXPECT_TRUE(bitwise_equal(stepped.current(), swept.current(), owned) &&
                bitwise_equal(stepped.previous(), swept.previous(), owned))
        << "levels " << levels << (in_two_parts ? " inside + rest" : " whole") << " after " << done << " steps";
  }
  EXPECT_NE(stepped.current().at(1, 27, 25), 0.0f);
}

TEST(FoldedTemporalSweep, PeriodicDeepHaloSweepsEqualSingleSteps) {
  SKIP_WITHOUT_FOLDED_KERNEL();
  for (int levels : {2, 3}) check_folded_periodic_sweeps(levels, false);
}

TEST(FoldedTemporalSweep, InsideThenRestEqualsSingleSteps) {
  SKIP_WITHOUT_FOLDED_KERNEL();
  for (int levels : {2, 3}) check_folded_periodic_sweeps(levels, true);
}

}  // namespace
}  // namespace wave3d
