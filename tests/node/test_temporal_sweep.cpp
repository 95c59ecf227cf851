// Temporal blocking against one step at a time, bit for bit: every radius, both precisions, odd
// sizes, several tile heights and thread counts, and the source term injected between levels.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "field/first_touch.hpp"
#include "solver/temporal_sweep.hpp"
#include "solver/wave_solver.hpp"
#include "stencil/block_loop.hpp"
#include "stencil/coefficients.hpp"

#include "field_test_support.hpp"

namespace wave3d {
namespace {

using test_support::bitwise_equal;
using test_support::fill_periodic_halo;
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
  sweep_levels(kernel, cur_b, prev_b, vel, LevelBoxes::fixed(region), levels, tile_rows, {});
  EXPECT_TRUE(bitwise_equal(cur_a, cur_b) && bitwise_equal(prev_a, prev_b))
      << to_string(variant) << " R=" << radius << " levels=" << levels << " tile rows " << tile_rows << " threads "
      << threads << " precision " << sizeof(T) * 8;
}

TEST(TemporalSweep, EqualsSingleStepsBitwiseForEveryRadiusAndPrecision) {
  for (int r : kSupportedRadii)
    for (int levels : {2, 3}) {
      check_sweep_equals_steps<float>(KernelVariant::jammed, r, levels, 0, 2);
      check_sweep_equals_steps<double>(KernelVariant::jammed, r, levels, 0, 2);
      // The column kernel's wave front advances 5 planes (its z block) at a time.
      check_sweep_equals_steps<float>(KernelVariant::columns, r, levels, 0, 2);
      check_sweep_equals_steps<double>(KernelVariant::columns, r, levels, 0, 2);
    }
}

TEST(TemporalSweep, EqualsSingleStepsBitwiseForEveryTileHeightAndThreadCount) {
  // Tile heights at the minimum, odd, and one tile for the whole region; 1 to 5 threads (more
  // tiles than threads, and fewer).
  for (std::int64_t rows : {0, 5, 13, 1000})
    for (int threads : {1, 2, 3, 5})
      for (int levels : {2, 4}) check_sweep_equals_steps<float>(KernelVariant::jammed, 2, levels, rows, threads);
  // Many thin tiles, several for each thread: a thread's later tiles lean on the one below, the
  // border above its last tile waits for the next thread (8 threads: more than cores, so the awaited
  // thread may need the waiting one's core).
  for (int threads : {2, 3, 8})
    for (int levels : {2, 3}) check_sweep_equals_steps<float>(KernelVariant::columns, 1, levels, 2, threads);
}

TEST(TemporalSweep, EqualsSingleStepsBitwiseForEveryVariant) {
  for (KernelVariant variant :
       {KernelVariant::reference, KernelVariant::blocked, KernelVariant::jammed, KernelVariant::columns}) {
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

// A sweep's plan on a team: the first tile of each thread's share is a trapezoid on its lower side
// (or stays at the region's face), every later one leans on the tile below with no border between
// them, and every row of every level's box is computed by exactly one piece.
// A sweep's plan for each face kind (fixed, and moving at both y faces, as deep halos do), radius,
// level count, thread count and tile height given, over `rows` rows: check(plan case).
struct SweepPlanCase {
  LevelBoxes boxes;
  int radius = 0, levels = 0, threads = 0;
  std::int64_t tile_rows = 0;
  TemporalPlan plan;
  std::string what;
};
template <typename Check>
void for_each_sweep_plan(std::int64_t rows, std::initializer_list<int> level_counts,
                         std::initializer_list<int> thread_counts, std::initializer_list<std::int64_t> tile_heights,
                         Check&& check) {
  const FaceFlags fixed{}, moving_y{{{false, false}, {true, true}, {false, false}}};
  for (const FaceFlags& faces : {fixed, moving_y})
    for (int radius : kSupportedRadii)
      for (int levels : level_counts)
        for (int threads : thread_counts)
          for (std::int64_t tile_rows : tile_heights) {
            SweepPlanCase c;
            const Box update{{0, 0, 0}, {16, rows, 16}};
            c.boxes = {grown_at(update, faces, static_cast<std::int64_t>(levels - 1) * radius), faces, radius, {}};
            c.radius = radius;
            c.levels = levels;
            c.threads = threads;
            c.tile_rows = tile_rows;
            c.plan = plan_sweep_tiles(c.boxes, levels, radius, tile_rows, threads);
            c.what = "R=" + std::to_string(radius) + " levels " + std::to_string(levels) + " threads " +
                     std::to_string(threads) + " tile rows " + std::to_string(tile_rows) +
                     (faces == fixed ? " fixed" : " moving");
            check(c);
          }
}

TEST(TemporalPlan, LaterTilesOfAShareLeanOnTheOneBelowAndEveryRowIsComputedOnce) {
  for_each_sweep_plan(203, {1, 2, 3, 4}, {1, 2, 3}, {0, 17, 50}, [](const SweepPlanCase& c) {
    const TemporalPlan& plan = c.plan;
    const auto tiles = static_cast<std::int64_t>(plan.trapezoids.size());
    ASSERT_EQ(plan.borders.size() + 1, plan.trapezoids.size()) << c.what;
    std::int64_t leaning = 0;
    for (int t = 0; t < c.threads; ++t) {
      const auto [first, end] = static_schedule_share(t, tiles, c.threads);
      for (std::int64_t j = first; j < end; ++j) {
        const TemporalPiece& tile = plan.trapezoids[static_cast<std::size_t>(j)];
        EXPECT_EQ(tile.leans_on_tile_below(), j > first) << c.what << " tile " << j;
        if (j > first) {
          ++leaning;
          const TemporalPiece& below = plan.trapezoids[static_cast<std::size_t>(j - 1)];
          EXPECT_EQ(tile.lo_step, below.hi_step) << c.what << " tile " << j;
          const auto [a, b] = plan.borders[static_cast<std::size_t>(j - 1)].rows_at(c.levels, c.radius);
          EXPECT_EQ(a, b) << c.what << ": a border under leaning tile " << j;
        }
      }
    }
    if (tiles > c.threads) {
      EXPECT_GT(leaning, 0) << c.what;
    }
    for (int level = 1; level <= c.levels; ++level) {
      const Box box = c.boxes.at(level);
      std::vector<int> covered(static_cast<std::size_t>(box.extent(1)), 0);
      for (const auto* pieces : {&plan.trapezoids, &plan.borders})
        for (const TemporalPiece& piece : *pieces) {
          const auto [a, b] = piece.rows_at(level, c.radius);
          for (std::int64_t y = std::max(a, box.lo[1]); y < std::min(b, box.hi[1]); ++y)
            ++covered[static_cast<std::size_t>(y - box.lo[1])];
        }
      for (std::int64_t y = 0; y < box.extent(1); ++y)
        ASSERT_EQ(covered[static_cast<std::size_t>(y)], 1) << c.what << ": row " << box.lo[1] + y << " of level " << level;
    }
  });
}

// The rows summed over the levels that each of `threads` threads computes in a sweep of `plan`:
// its share of the tiles (static_schedule_share), the borders between them, and the border above
// its last tile (sweep_tiles).
std::vector<std::int64_t> rows_of_each_thread(const TemporalPlan& plan, const LevelBoxes& boxes, int levels,
                                              int radius, int threads) {
  const auto tiles = static_cast<std::int64_t>(plan.trapezoids.size());
  std::vector<std::int64_t> rows(static_cast<std::size_t>(threads), 0);
  const auto add = [&](std::size_t thread, const TemporalPiece& piece) {
    for (int level = 1; level <= levels; ++level) {
      const Box box = boxes.at(level);
      const auto [a, b] = piece.rows_at(level, radius);
      rows[thread] += std::max<std::int64_t>(0, std::min(b, box.hi[1]) - std::max(a, box.lo[1]));
    }
  };
  for (int t = 0; t < threads; ++t) {
    const auto [first, end] = static_schedule_share(t, tiles, threads);
    for (std::int64_t j = first; j < end; ++j) {
      add(static_cast<std::size_t>(t), plan.trapezoids[static_cast<std::size_t>(j)]);
      if (j + 1 < tiles) add(static_cast<std::size_t>(t), plan.borders[static_cast<std::size_t>(j)]);
    }
  }
  return rows;
}

TEST(TemporalPlan, EveryThreadComputesAsManyRowsAsAnother) {
  for_each_sweep_plan(240, {2, 3, 4}, {2, 3, 4}, {0, 50, 100}, [](const SweepPlanCase& c) {
    const auto tiles = static_cast<std::int64_t>(c.plan.trapezoids.size());
    ASSERT_TRUE(tiles < c.threads || tiles % c.threads == 0) << c.what << ": " << tiles << " tiles";
    if (tiles < c.threads) return;
    const std::vector<std::int64_t> rows = rows_of_each_thread(c.plan, c.boxes, c.levels, c.radius, c.threads);
    const auto [least, most] = std::minmax_element(rows.begin(), rows.end());
    // Cuts fall on whole rows: one row more at every level is as close as they get.
    EXPECT_LE(*most - *least, c.levels) << c.what;
    // The rows first touch gives each thread are its tiles' rows.
    const std::vector<std::int64_t> starts = temporal_thread_rows(c.boxes, c.levels, c.radius, c.tile_rows, c.threads);
    for (int t = 0; t < c.threads; ++t) {
      const auto [first, end] = static_schedule_share(t, tiles, c.threads);
      EXPECT_EQ(starts[static_cast<std::size_t>(t)], c.plan.trapezoids[static_cast<std::size_t>(first)].lo) << c.what;
      EXPECT_EQ(starts[static_cast<std::size_t>(t) + 1], c.plan.trapezoids[static_cast<std::size_t>(end - 1)].hi)
          << c.what;
    }
  });
}

// The thread that computes each row of level 1 in a real sweep is the one temporal_thread_rows
// names, so that first touch (first_touch_rows) puts the row's pages next to it.
TEST(TemporalSweep, ThreadsComputeTheRowsFirstTouchGivesThem) {
  const int radius = 2, levels = 3, threads = 3;
  const Box owned{{0, 0, 0}, {37, 61, 23}};
  const Box region = owned.grown(-radius);
  Field<float> cur(owned, radius), prev(owned, radius), vel(owned, radius);
  for (Field<float>* f : {&cur, &prev, &vel}) first_touch(*f, InitPolicy::serial, Blocking{});
  const Kernel<float> kernel(second_derivative_weights(radius), Blocking{{0, 7, 5}}, KernelVariant::columns);
  std::vector<int> computed_by(static_cast<std::size_t>(owned.hi[1]), -1);
  std::mutex record;
  const AfterLevel<Field<float>> after_level = [&](Field<float>&, const Box& box, int level) {
    if (level != 1) return;
    const std::lock_guard<std::mutex> lock(record);
    for (std::int64_t y = box.lo[1]; y < box.hi[1]; ++y) computed_by[static_cast<std::size_t>(y)] = omp_get_thread_num();
  };
  omp_set_num_threads(threads);
  for (std::int64_t tile_rows : {0, 13}) {
    sweep_levels(kernel, cur, prev, vel, LevelBoxes::fixed(region), levels, tile_rows, after_level);
    const std::vector<std::int64_t> starts =
        temporal_thread_rows(LevelBoxes::fixed(region), levels, radius, tile_rows, threads);
    for (std::int64_t y = region.lo[1]; y < region.hi[1]; ++y) {
      const auto owner = std::upper_bound(starts.begin(), starts.end(), y) - starts.begin() - 1;
      EXPECT_EQ(computed_by[static_cast<std::size_t>(y)], owner) << "row " << y << " tile rows " << tile_rows;
    }
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
  // Each level's kernel time counts every point of the update region once per sweep that had that
  // level: sweeps of 4, 2 and 3 levels.
  const SweepLevelTimes& times = swept.level_times();
  const std::int64_t region = swept.update_region().volume();
  ASSERT_EQ(times.levels(), 4);
  const std::array<std::int64_t, 4> sweeps_with_level{3, 3, 2, 1};
  for (int level = 1; level <= 4; ++level) {
    EXPECT_EQ(times.points(level), sweeps_with_level[level - 1] * region) << "level " << level;
    EXPECT_GT(times.thread_seconds(level), 0.0) << "level " << level;
  }
}

// The bits of every owned cell of f within `depth` of a face on the axes marked.
std::vector<std::uint32_t> near_faces(const Field<float>& f, int depth, const std::array<bool, 3>& axes) {
  std::vector<std::uint32_t> bits;
  const Box& owned = f.owned();
  const FaceFlags all{{{true, true}, {true, true}, {true, true}}};
  const Box far = grown_at(owned, faces_on(all, axes), -depth);
  for (std::int64_t z = owned.lo[2]; z < owned.hi[2]; ++z)
    for (std::int64_t y = owned.lo[1]; y < owned.hi[1]; ++y)
      for (std::int64_t x = owned.lo[0]; x < owned.hi[0]; ++x)
        if (!far.contains({x, y, z})) bits.push_back(std::bit_cast<std::uint32_t>(f.at(x, y, z)));
  return bits;
}

// Periodic grid, every face's halo filled by "a neighbour": sweeps reach into the halo and add the
// source at its periodic images there. Whole sweeps, and inside + rest as overlap mode runs them; the
// inside leaves each time level alone as deep from the faces as the solver says (the depth whose
// cells the halo exchange in flight sends straight from the field): as deep as the exchange sends
// each level, T R of the current level (everything with one level) and (T - 1) R of the previous one
// (at least R). in_flight: the axes whose halo overlapped
// compute must wait for (the others are filled before the sweep, as one rank's periodic copies).
void check_periodic_sweeps(int levels, bool in_two_parts, std::array<bool, 3> in_flight = {true, true, true}) {
  omp_set_num_threads(2);
  RunConfig c = ricker_config();
  c.grid.boundary = Boundary::periodic;
  c.initial.source = {1, 27, 25};  // near three faces: its images lie in the halo
  c.blocking.steps = levels;
  const FaceFlags all_faces{{{true, true}, {true, true}, {true, true}}};
  WaveSolver<float> stepped(c, c.grid.whole(), {true, true, true}, all_faces);
  WaveSolver<float> swept(c, c.grid.whole(), in_flight, all_faces);
  ASSERT_EQ(swept.halo_width(), levels * c.grid.radius);
  fill_periodic_halo(swept.velocity_halo_field(), c.grid.n, swept.halo_width());
  const auto periodic_halo = [&](Field<float>& f) { fill_periodic_halo(f, c.grid.n, c.grid.radius); };
  int done = 0;
  for (int sweep : {levels, 1, levels}) {
    for (int s = 0; s < sweep; ++s) stepped.step(periodic_halo);
    fill_periodic_halo(swept.halo_field(), c.grid.n, sweep * c.grid.radius);
    fill_periodic_halo(swept.older_halo_field(), c.grid.n, (sweep - 1) * c.grid.radius);
    if (in_two_parts) {
      const int current_depth = swept.depth_unchanged_inside(sweep, swept.halo_field());
      const int older_depth = swept.depth_unchanged_inside(sweep, swept.older_halo_field());
      const bool waits = in_flight[0] || in_flight[1] || in_flight[2];
      // As deep as the exchange sends each level: nothing it sends is written while it travels.
      EXPECT_EQ(current_depth, sweep == 1 || !waits ? swept.halo_width() : sweep * c.grid.radius);
      EXPECT_EQ(older_depth, waits ? std::max(1, sweep - 1) * c.grid.radius : swept.halo_width());
      const auto current = near_faces(swept.halo_field(), current_depth, in_flight);
      const auto older = near_faces(swept.older_halo_field(), older_depth, in_flight);
      swept.sweep_inside(sweep);
      EXPECT_TRUE(near_faces(swept.halo_field(), current_depth, in_flight) == current &&
                  near_faces(swept.older_halo_field(), older_depth, in_flight) == older)
          << "levels " << levels << ": sweep_inside wrote within the depth it leaves unchanged";
      swept.sweep_rest(sweep);
    } else {
      swept.sweep(sweep);
    }
    done += sweep;
    ASSERT_EQ(swept.steps_done(), done);
    const Box owned = c.grid.whole();
    EXPECT_TRUE(bitwise_equal(stepped.current(), swept.current(), owned) &&
                bitwise_equal(stepped.previous(), swept.previous(), owned))
        << "levels " << levels << (in_two_parts ? " inside + rest" : " whole") << " after " << done << " steps";
  }
  EXPECT_NE(stepped.current().at(1, 27, 25), 0.0f);
}

// Inside then rest computes the same points at every level as one whole sweep: the level times of the
// two count them alike (the rest's shells over all threads included), and the whole sweep's level L
// reaches (levels - L) radii into the periodic halo on every face.
TEST(TemporalSweep, LevelTimesCountThePointsOfEachLevelWholeOrInTwoParts) {
  omp_set_num_threads(2);
  RunConfig c = ricker_config();
  c.grid.boundary = Boundary::periodic;
  const int levels = 3;
  c.blocking.steps = levels;
  const FaceFlags all_faces{{{true, true}, {true, true}, {true, true}}};
  WaveSolver<float> whole(c, c.grid.whole(), {true, true, true}, all_faces);
  WaveSolver<float> parts(c, c.grid.whole(), {true, true, true}, all_faces);
  for (WaveSolver<float>* solver : {&whole, &parts}) {
    for (Field<float>* f : {&solver->velocity_halo_field(), &solver->halo_field(), &solver->older_halo_field()})
      fill_periodic_halo(*f, c.grid.n, solver->halo_width());
  }
  whole.sweep(levels);
  parts.sweep_inside(levels);
  parts.sweep_rest(levels);
  ASSERT_EQ(whole.level_times().levels(), levels);
  ASSERT_EQ(parts.level_times().levels(), levels);
  for (int level = 1; level <= levels; ++level) {
    const Box reach = c.grid.whole().grown(static_cast<std::int64_t>(levels - level) * c.grid.radius);
    EXPECT_EQ(whole.level_times().points(level), reach.volume()) << "level " << level;
    EXPECT_EQ(parts.level_times().points(level), reach.volume()) << "level " << level;
  }
}

TEST(TemporalSweep, PeriodicDeepHaloSweepsEqualSingleSteps) {
  for (int levels : {2, 3, 4}) check_periodic_sweeps(levels, false);
}

TEST(TemporalSweep, InsideThenRestEqualsSingleSteps) {
  for (int levels : {2, 3, 4}) check_periodic_sweeps(levels, true);
}

// The bits of every owned cell of f.
std::vector<std::uint32_t> owned_bits(const Field<float>& f) { return near_faces(f, 1 << 20, {true, true, true}); }

// Every halo cell of f within `width` of the owned box set to NaN.
void poison_halo(Field<float>& f, int width) {
  const Box& owned = f.owned();
  const Box all = owned.grown(width);
  for (std::int64_t z = all.lo[2]; z < all.hi[2]; ++z)
    for (std::int64_t y = all.lo[1]; y < all.hi[1]; ++y)
      for (std::int64_t x = all.lo[0]; x < all.hi[0]; ++x)
        if (!owned.contains({x, y, z})) f.at(x, y, z) = std::numeric_limits<float>::quiet_NaN();
}

// Split tiling with each level's exchange in flight while the rest computes what needs none of it.
// The "exchange" here fills the halo with NaN when it starts and with the periodic images when it
// finishes, so a point computed from a halo cell still travelling would not match single steps; it
// also checks that nothing wrote the owned cells it sends, and that the kernel polled it meanwhile
// wherever there is something to compute.
// Bulk (the halo of the current level in before the inside) and overlap (in flight during it).
TEST(TemporalSweep, SplitTilingComputesWhileEachLevelTravels) {
  omp_set_num_threads(2);
  RunConfig c = ricker_config();
  c.grid.n = {48, 44, 40};
  c.grid.boundary = Boundary::periodic;
  c.initial.source = {1, 27, 25};
  c.kernel = KernelChoice::columns;
  c.parallel.temporal_halo = TemporalHalo::split;
  const int levels = 3, r = c.grid.radius;
  c.blocking.steps = levels;
  const FaceFlags all_faces{{{true, true}, {true, true}, {true, true}}};
  for (bool halo_current : {true, false}) {
    WaveSolver<float> stepped(c, c.grid.whole(), {true, true, true}, all_faces);
    WaveSolver<float> swept(c, c.grid.whole(), {true, true, true}, all_faces);
    ASSERT_EQ(swept.halo_width(), r);
    fill_periodic_halo(swept.velocity_halo_field(), c.grid.n, r);
    Field<float>* travelling = nullptr;
    std::vector<std::uint32_t> sent;
    int polls = 0, exchanges = 0, polls_at_start = 0;
    const std::function<void()> poll = [&] { ++polls; };
    WaveSolver<float>::LevelExchange exchange;
    exchange.start = [&](Field<float>& level) {
      travelling = &level;
      sent = owned_bits(level);
      poison_halo(level, r);
      polls_at_start = polls;
    };
    exchange.finish = [&] {
      EXPECT_TRUE(owned_bits(*travelling) == sent) << "an owned cell of the level in flight was written";
      // What reads no halo cell at level L lies (L - 1) R from the halo faces with the inside's halo in
      // flight, (L - 2) R with it in before: level 2 of bulk mode has nothing to compute meanwhile.
      const int level = exchanges % (levels - 1) + 2;
      if (!halo_current || level > 2) {
        EXPECT_GT(polls, polls_at_start) << "nothing computed while level " << level - 1 << " travelled";
      }
      fill_periodic_halo(*travelling, c.grid.n, r);
      ++exchanges;
    };
    exchange.between_blocks = &poll;
    for (int sweep = 1; sweep <= 2; ++sweep) {
      for (int s = 0; s < levels; ++s) stepped.step([&](Field<float>& f) { fill_periodic_halo(f, c.grid.n, r); });
      fill_periodic_halo(swept.halo_field(), c.grid.n, r);
      swept.split_sweep_inside(levels, halo_current);
      swept.split_sweep_rest(levels, halo_current, exchange);
      EXPECT_EQ(exchanges, sweep * (levels - 1));
      EXPECT_TRUE(bitwise_equal(stepped.current(), swept.current(), c.grid.whole()) &&
                  bitwise_equal(stepped.previous(), swept.previous(), c.grid.whole()))
          << (halo_current ? "bulk" : "overlap") << ", after sweep " << sweep;
    }
    EXPECT_NE(stepped.current().at(1, 27, 25), 0.0f);
  }
}

// Halos along x and y copied before the sweep, z in flight (a periodic grid cut along z only): the
// rest is a z slab at each face; nothing in flight (one rank): the inside is the whole sweep.
TEST(TemporalSweep, InsideReachesAsFarAsTheSweepBeyondHalosNotInFlight) {
  for (int levels : {2, 3}) {
    check_periodic_sweeps(levels, true, {false, false, true});
    check_periodic_sweeps(levels, true, {false, false, false});
  }
}

// Every point of every level's shell (swept box minus inside box) lies in exactly one z slab, and no
// slab point lies inside: the slabs are the shells, cut along z.
TEST(TemporalSweep, ZSlabShellsAreExactlyTheShellsOfEachLevel) {
  const Box update{{0, 0, 0}, {21, 19, 60}};
  const int r = 4;
  for (const FaceFlags& faces : {FaceFlags{{{false, false}, {false, false}, {true, true}}},
                                 FaceFlags{{{false, false}, {false, false}, {false, true}}},
                                 FaceFlags{{{false, false}, {false, false}, {true, false}}}}) {
    for (int levels : {2, 3, 4}) {
      const LevelBoxes outer{grown_at(update, faces, static_cast<std::int64_t>(levels - 1) * r), faces, r, {}};
      const LevelBoxes inner{grown_at(update, faces, -r), faces, r, {}};
      const std::vector<LevelBoxes> slabs = z_slab_shells(outer, inner, levels);
      ASSERT_EQ(slabs.size(), static_cast<std::size_t>(faces[2][0]) + static_cast<std::size_t>(faces[2][1]));
      for (int level = 1; level <= levels; ++level) {
        const Box all = outer.at(level), inside = inner.at(level);
        for (std::int64_t z = all.lo[2] - r; z < all.hi[2] + r; ++z) {
          const Index3 p{3, 5, z};
          int in_slabs = 0;
          for (const LevelBoxes& s : slabs) in_slabs += s.at(level).contains(p) ? 1 : 0;
          const bool shell = all.contains(p) && !inside.contains(p);
          EXPECT_EQ(in_slabs, shell ? 1 : 0) << "levels " << levels << " level " << level << " z " << z;
        }
      }
    }
  }
  // Halos along x and y copied before the sweep: inside and outside move alike there, the shells are
  // still z slabs; a z face not in flight has none.
  const FaceFlags all{{{true, true}, {true, true}, {true, true}}};
  const FaceFlags xy_copied{{{true, true}, {true, true}, {false, false}}};
  for (const FaceFlags& z_in_flight : {FaceFlags{{{false, false}, {false, false}, {true, true}}},
                                       FaceFlags{{{false, false}, {false, false}, {false, true}}}}) {
    const int levels = 3;
    const Box swept_first = grown_at(update, all, static_cast<std::int64_t>(levels - 1) * r);
    const LevelBoxes outer{swept_first, all, r, {}};
    const Box inside_first = grown_at(grown_at(update, xy_copied, static_cast<std::int64_t>(levels - 1) * r),
                                      z_in_flight, -r);
    FaceFlags z_copied = all;
    for (std::size_t side : {0, 1}) z_copied[2][side] = !z_in_flight[2][side];
    const LevelBoxes inner{grown_at(inside_first, FaceFlags{{{false, false}, {false, false}, z_copied[2]}},
                                    static_cast<std::int64_t>(levels - 1) * r),
                           all, r, {}};
    const std::vector<LevelBoxes> slabs = z_slab_shells(outer, inner, levels);
    ASSERT_EQ(slabs.size(), static_cast<std::size_t>(z_in_flight[2][0]) + static_cast<std::size_t>(z_in_flight[2][1]));
    for (int level = 1; level <= levels; ++level) {
      const Box whole = outer.at(level), inside = inner.at(level);
      for (std::int64_t z = whole.lo[2] - r; z < whole.hi[2] + r; ++z)
        for (const Index3& p : {Index3{whole.lo[0], whole.lo[1], z}, Index3{whole.hi[0] - 1, 5, z}}) {
          int in_slabs = 0;
          for (const LevelBoxes& s : slabs) in_slabs += s.at(level).contains(p) ? 1 : 0;
          const bool shell = whole.contains(p) && !inside.contains(p);
          EXPECT_EQ(in_slabs, shell ? 1 : 0) << "copied x, y: level " << level << " z " << z;
        }
    }
  }
  // Shells cut along x or y, or an inside that vanishes: not slabs.
  const FaceFlags x_too{{{true, false}, {false, false}, {true, true}}};
  EXPECT_TRUE(z_slab_shells({grown_at(update, x_too, 4), x_too, r, {}}, {grown_at(update, x_too, -r), x_too, r, {}}, 2).empty());
  const FaceFlags z{{{false, false}, {false, false}, {true, true}}};
  const Box thin{{0, 0, 0}, {21, 19, 20}};
  EXPECT_TRUE(z_slab_shells({grown_at(thin, z, 8), z, r, {}}, {grown_at(thin, z, -r), z, r, {}}, 3).empty());
}

}  // namespace
}  // namespace wave3d
