// First touch follows the kernel: every page of a field is written first by the thread that will
// compute it, in every halo mode and boundary kind. The schedule is replayed without a team for the
// thread counts of the study machines (2, 16 and 44 threads per rank), and the replay is checked
// against the OpenMP runtime itself for teams this machine can make.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "field/field.hpp"
#include "field/first_touch.hpp"
#include "solver/update_regions.hpp"
#include "solver/wave_solver.hpp"
#include "stencil/block_loop.hpp"
#include "stencil/folded_field.hpp"

namespace wave3d {
namespace {

constexpr HaloMode kModes[] = {HaloMode::bulk, HaloMode::overlap};
const char* name(HaloMode m) { return m == HaloMode::bulk ? "bulk" : "overlap"; }

// The thread of a team of `threads` that runs the block of `sweeps` holding p (p must lie in one of
// them), and the x at which that block ends.
struct Runner {
  int thread = -1;
  std::int64_t x_end = 0;
};
// x_origin: where the field's x blocks are cut from (its line start x).
Runner runner_of(const std::vector<Box>& sweeps, const Blocking& blocking, int threads, const Index3& p,
                 std::int64_t x_origin) {
  for (const Box& s : sweeps) {
    if (!s.contains(p)) continue;
    const BlockGrid grid(s, blocking, x_origin);
    const std::int64_t block_x = (p[0] - s.lo[0] + grid.x_shift) / grid.size[0];
    return {static_schedule_thread(block_number(s, grid, p), grid.total(), threads), grid.block(s, block_x, 0, 0).hi[0]};
  }
  ADD_FAILURE() << "point " << p[0] << "," << p[1] << "," << p[2] << " lies in no sweep";
  return {-1, p[0] + 1};
}

Index3 clamped(const Index3& p, const Box& b) {
  return {std::clamp(p[0], b.lo[0], b.hi[0] - 1), std::clamp(p[1], b.lo[1], b.hi[1] - 1),
          std::clamp(p[2], b.lo[2], b.hi[2] - 1)};
}

// The share of the points of `update` that a first touch blocked like `touched` gives to the thread
// that computes them in the kernel's `computed` sweeps, both with `threads` threads. Row by row, one
// run of points per stretch where neither block changes.
double share_touched_by_their_thread(const Box& update, const std::vector<Box>& touched,
                                     const std::vector<Box>& computed, const Blocking& blocking, int threads,
                                     std::int64_t x_origin) {
  std::int64_t right = 0;
  for (std::int64_t z = update.lo[2]; z < update.hi[2]; ++z)
    for (std::int64_t y = update.lo[1]; y < update.hi[1]; ++y)
      for (std::int64_t x = update.lo[0]; x < update.hi[0];) {
        const Runner toucher = runner_of(touched, blocking, threads, {x, y, z}, x_origin);
        const Runner computer = runner_of(computed, blocking, threads, {x, y, z}, x_origin);
        const std::int64_t end = std::min(toucher.x_end, computer.x_end);
        if (toucher.thread == computer.thread) right += end - x;
        x = end;
      }
  return static_cast<double>(right) / static_cast<double>(update.volume());
}

// A subdomain as a run sets it up: the grid, the rank's owned box, the axes whose halo comes from
// other ranks (so in overlap mode its shells wait for messages) and the blocking.
struct Case {
  std::string name;
  Grid grid;
  Box owned;
  std::array<bool, 3> in_flight;
  Blocking blocking;
};

// Study-sized subdomains: a whole 448^3 grid on one rank, the first rank of a 2x2x1 decomposition
// of 896x448x448 (both boundary kinds), with 448x24x96 blocks; and odd sizes, uneven splits and blocks.
std::vector<Case> study_cases() {
  const Blocking iso{{448, 24, 96}};
  const Grid zero_1{{448, 448, 448}, 1.0, Boundary::zero, 8};
  const Grid zero_4{{896, 448, 448}, 1.0, Boundary::zero, 8};
  const Grid periodic_4{{896, 448, 448}, 1.0, Boundary::periodic, 8};
  const Grid odd_zero{{203, 117, 89}, 1.0, Boundary::zero, 4};
  const Grid odd_periodic{{131, 77, 45}, 1.0, Boundary::periodic, 2};
  return {
      {"zero 448^3, 1 rank", zero_1, zero_1.whole(), {false, false, false}, iso},
      {"zero 896x448x448, rank 0 of 2x2x1", zero_4, Box{{0, 0, 0}, {448, 224, 448}}, {true, true, false}, iso},
      {"periodic 896x448x448, rank 0 of 2x2x1", periodic_4, Box{{0, 0, 0}, {448, 224, 448}}, {true, true, false},
       iso},
      {"zero 203x117x89, rank 1 of 2x2x1", odd_zero, Box{{102, 0, 0}, {203, 59, 89}}, {true, true, false},
       Blocking{{37, 11, 5}}},
      {"periodic 131x77x45, 1 rank", odd_periodic, odd_periodic.whole(), {false, false, false}, Blocking{}},
      // The z-column kernel's blocks: narrow in x (cut from the field's first x), z blocks innermost.
      {"zero 448^3, rank 1 of 2x1x1, columns", zero_4, Box{{448, 0, 0}, {896, 448, 448}}, {true, false, false},
       Blocking{{16, 16, 16}, 1, true}},
  };
}

TEST(FirstTouchReplay, PagesGoToTheThreadThatComputesThemAt2_16And44Threads) {
  std::printf("share of update-region points first touched by the thread that computes them\n");
  std::printf("%-40s %-8s %7s %8s %8s\n", "subdomain", "halo", "threads", "old", "new");
  for (const Case& c : study_cases()) {
    const UpdateRegions regions = update_regions(c.grid, c.owned, c.in_flight);
    for (HaloMode mode : kModes) {
      const std::vector<Box> sweeps = kernel_sweeps(regions, mode);
      for (int threads : {2, 16, 44}) {
        // Before, first touch swept the owned box, whatever the kernel swept.
        const double old_share = share_touched_by_their_thread(regions.update, {c.owned}, sweeps, c.blocking, threads, c.owned.lo[0]);
        const double new_share = share_touched_by_their_thread(regions.update, sweeps, sweeps, c.blocking, threads, c.owned.lo[0]);
        std::printf("%-40s %-8s %7d %7.1f%% %7.1f%%\n", c.name.c_str(), name(mode), threads, 100 * old_share,
                    100 * new_share);
        EXPECT_GE(new_share, 0.95) << c.name << ", " << name(mode) << ", " << threads << " threads (owned-box first "
                                   << "touch gave " << 100 * old_share << " %)";
      }
    }
  }
}

// The folded kernel's fields: each z fold first written by the thread that computes it in the
// kernel's first sweep (the folded kernel shares each sweep's z folds out over the threads).
TEST(FirstTouchReplay, FoldedPagesGoToTheThreadThatComputesThemAt2_16And44Threads) {
  std::printf("folded fields: share of update-region points first touched by the thread that computes them\n");
  std::vector<Case> cases = study_cases();
  // Split along z, whose shells in overlap mode are slabs of a few folds with a schedule of their own.
  const Grid zero_z{{448, 448, 896}, 1.0, Boundary::zero, 8};
  cases.push_back({"zero 448x448x896, rank 1 of 1x1x2", zero_z, Box{{0, 0, 448}, {448, 448, 896}}, {false, false, true},
                   Blocking{{0, 16, 64}}});
  for (const Case& c : cases) {
    const UpdateRegions regions = update_regions(c.grid, c.owned, c.in_flight);
    const FoldedField<float> field(c.owned, c.grid.radius);
    const auto computer = [&](const Box& sweep, std::int64_t z, int threads) {
      const auto [k0, k1] = field.folds_z_of(sweep);
      return static_schedule_thread(field.fold_z(z) - k0, k1 - k0, threads);
    };
    for (HaloMode mode : kModes) {
      const std::vector<Box> sweeps = kernel_sweeps(regions, mode);
      for (int threads : {2, 16, 44}) {
        std::int64_t right = 0;
        for (const Box& sweep : sweeps)
          for (std::int64_t z = sweep.lo[2]; z < sweep.hi[2]; ++z)
            if (field.toucher_of_fold(field.fold_z(z), sweeps.front(), threads) == computer(sweep, z, threads))
              right += sweep.extent(0) * sweep.extent(1);
        const double share = static_cast<double>(right) / static_cast<double>(regions.update.volume());
        std::printf("%-40s %-8s %7d %7.1f%%\n", c.name.c_str(), name(mode), threads, 100 * share);
        EXPECT_GE(share, 0.95) << c.name << ", " << name(mode) << ", " << threads << " threads";
      }
    }
  }
}

TEST(StaticSchedule, ReplayNamesTheThreadThatRunsEachBlock) {
  const int max_threads = omp_get_max_threads();
  const Box region{{3, 1, 2}, {40, 29, 23}};
  // x_origin 3 cuts x blocks from the region's start; 0 from the field's first owned x, 3 points
  // before it (the first block 3 points short).
  for (const std::int64_t x_origin : {std::int64_t{3}, std::int64_t{0}})
  for (const Blocking& blocking : {Blocking{{8, 5, 3}}, Blocking{{0, 16, 16}}, Blocking{{0, 0, 0}},
                                   Blocking{{8, 5, 3}, 1, true}, Blocking{{0, 4, 2}, 1, true}}) {
    const BlockGrid grid(region, blocking, x_origin);
    const std::int64_t count = grid.total();
    for (int threads : {1, 2, 3, 16, 44}) {
      omp_set_num_threads(threads);
      std::vector<int> ran_on(static_cast<std::size_t>(count), -1);
      int team = 0;
      for_each_block(region, blocking, x_origin, [&](const Box& b) {
        if (blocking.size[0] > 0 && b.hi[0] < region.hi[0]) {
          EXPECT_EQ((b.hi[0] - x_origin) % blocking.size[0], 0);
        }
        ran_on[static_cast<std::size_t>(block_number(region, grid, b.lo))] = omp_get_thread_num();
        if (omp_get_thread_num() == 0) team = omp_get_num_threads();
      });
      ASSERT_EQ(team, threads) << "the runtime made a smaller team";
      for (std::int64_t i = 0; i < count; ++i)
        EXPECT_EQ(ran_on[static_cast<std::size_t>(i)], static_schedule_thread(i, count, threads))
            << "block " << i << " of " << count << ", " << threads << " threads";
    }
  }
  omp_set_num_threads(max_threads);
}

TEST(StaticSchedule, ShareIsTheInverseOfTheThreadOfAnIteration) {
  for (std::int64_t count : {0, 1, 5, 44, 45, 1000})
    for (int threads : {1, 2, 3, 16, 44}) {
      std::int64_t next = 0;  // the shares tile [0, count) in thread order
      for (int t = 0; t < threads; ++t) {
        const IterationShare share = static_schedule_share(t, count, threads);
        EXPECT_EQ(share.first, next) << count << " iterations, thread " << t << " of " << threads;
        for (std::int64_t i = share.first; i < share.end; ++i) EXPECT_EQ(static_schedule_thread(i, count, threads), t);
        next = share.end;
      }
      EXPECT_EQ(next, count) << count << " iterations, " << threads << " threads";
    }
}

TEST(StaticSchedule, ZInnermostVisitsTheSameBlocksSlabBySlab) {
  // Each thread runs the blocks schedule(static) gives it in z-outermost order (so one stretch of
  // planes each), visiting them y block by y block with z innermost.
  const Box region{{0, 0, 0}, {40, 30, 44}};
  const Blocking blocking{{16, 8, 4}, 1, true};
  const BlockGrid grid(region, blocking);
  const int max_threads = omp_get_max_threads();
  for (int threads : {1, 2, 3, 5}) {
    omp_set_num_threads(threads);
    std::vector<std::vector<Index3>> visited(static_cast<std::size_t>(threads));
    for_each_block(region, blocking, [&](const Box& b) {
      visited[static_cast<std::size_t>(omp_get_thread_num())].push_back(b.lo);
    });
    std::int64_t blocks = 0;
    for (int t = 0; t < threads; ++t) {
      const auto& mine = visited[static_cast<std::size_t>(t)];
      blocks += static_cast<std::int64_t>(mine.size());
      for (std::size_t v = 0; v < mine.size(); ++v) {
        EXPECT_EQ(static_schedule_thread(block_number(region, grid, mine[v]), grid.total(), threads), t);
        if (v > 0) {  // (y, x, z) increases from one block to the next
          const Index3& a = mine[v - 1];
          const Index3& b = mine[v];
          EXPECT_LT(std::make_tuple(a[1], a[0], a[2]), std::make_tuple(b[1], b[0], b[2])) << threads << " threads";
        }
      }
    }
    EXPECT_EQ(blocks, grid.total());
  }
  omp_set_num_threads(max_threads);
}

// Small subdomains with every kind of face: fixed boundary layer, halo from other ranks, periodic.
std::vector<Case> small_cases() {
  const Grid zero{{40, 30, 22}, 1.0, Boundary::zero, 4};
  const Grid periodic{{27, 19, 15}, 1.0, Boundary::periodic, 2};
  return {
      {"zero, rank 0 of 2x2x1", zero, Box{{0, 15, 0}, {20, 30, 22}}, {true, true, false}, Blocking{{8, 5, 3}}},
      {"zero, 1 rank", zero, zero.whole(), {false, false, false}, Blocking{}},
      {"periodic, rank of 1x1x2", periodic, Box{{0, 0, 7}, {27, 19, 15}}, {false, false, true}, Blocking{{0, 4, 4}}},
      {"zero, rank 1 of 2x1x1, columns", zero, Box{{20, 0, 0}, {40, 30, 22}}, {true, false, false},
       Blocking{{16, 8, 4}, 1, true}},
  };
}

TEST(FirstTouch, WritesEveryElementOnceOnTheThreadComputingTheNearestUpdatedPoint) {
  const int max_threads = omp_get_max_threads();
  for (const Case& c : small_cases()) {
    const UpdateRegions regions = update_regions(c.grid, c.owned, c.in_flight);
    for (HaloMode mode : kModes) {
      const std::vector<Box> sweeps = kernel_sweeps(regions, mode);
      for (int threads : {1, 2, 3, 16, 44}) {
        SCOPED_TRACE(c.name + ", " + name(mode) + ", " + std::to_string(threads) + " threads");
        omp_set_num_threads(threads);
        // Rows start a cache line where the updates start, as the solver lays them out.
        const Field<double> f(c.owned, c.grid.radius, false, first_updated_x(c.grid, c.owned));
        std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> spans(static_cast<std::size_t>(threads));
        for_each_touch_span(f, c.blocking, sweeps, [&](std::int64_t begin, std::int64_t end) {
          spans[static_cast<std::size_t>(omp_get_thread_num())].emplace_back(begin, end);
        });
        std::vector<int> writes(static_cast<std::size_t>(f.allocated_elements()), 0);
        std::vector<int> writer(writes.size(), -1);
        for (int t = 0; t < threads; ++t)
          for (auto [begin, end] : spans[static_cast<std::size_t>(t)])
            for (std::int64_t i = begin; i < end; ++i) {
              ++writes[static_cast<std::size_t>(i)];
              writer[static_cast<std::size_t>(i)] = t;
            }
        for (std::size_t i = 0; i < writes.size(); ++i) ASSERT_EQ(writes[i], 1) << "element " << i;
        const Box all = f.with_halo();
        for (std::int64_t z = all.lo[2]; z < all.hi[2]; ++z)
          for (std::int64_t y = all.lo[1]; y < all.hi[1]; ++y)
            for (std::int64_t x = all.lo[0]; x < all.hi[0]; ++x) {
              const Index3 nearest = clamped({x, y, z}, regions.update);
              ASSERT_EQ(writer[static_cast<std::size_t>(f.offset(x, y, z))],
                        runner_of(sweeps, c.blocking, threads, nearest, f.line_start_x()).thread)
                  << x << "," << y << "," << z;
            }
      }
    }
  }
  omp_set_num_threads(max_threads);
}

TEST(FirstTouch, TheSolversRowsStartACacheLineWhereTheirUpdatesStart) {
  // Past a zero boundary's fixed layer on the grid's low x face, else at the first owned x: the
  // kernel's vectors then cover an updated row with as few as its length needs.
  for (int radius : {1, 4, 8})
    for (Boundary boundary : {Boundary::zero, Boundary::periodic}) {
      RunConfig c;
      c.grid = Grid{{48, 20, 18}, 1.0, boundary, radius};
      c.initial.kind = InitialKind::seed_cube;
      c.blocking = Blocking{{0, 8, 8}};
      const bool zero = boundary == Boundary::zero;
      for (const Box& owned : {c.grid.whole(), Box{{24, 0, 0}, {48, 20, 18}}}) {
        SCOPED_TRACE(::testing::Message() << "R = " << radius << (zero ? ", zero" : ", periodic") << ", owned x from "
                                          << owned.lo[0]);
        const std::int64_t start = owned.lo[0] == 0 && zero ? radius : owned.lo[0];
        EXPECT_EQ(first_updated_x(c.grid, owned), start);
        EXPECT_EQ(update_regions(c.grid, owned, {false, false, false}).update.lo[0], start);
        WaveSolver<float> solver(c, owned);
        EXPECT_EQ(solver.current().line_start_x(), start);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&solver.current().at(start, 3, 4)) % kCacheLine, 0u);
      }
    }
}

TEST(FirstTouch, ZeroesEveryAllocatedElementPaddingIncluded) {
  for (const Case& c : small_cases()) {
    const std::vector<Box> sweeps = kernel_sweeps(update_regions(c.grid, c.owned, c.in_flight), HaloMode::overlap);
    for (InitPolicy policy : {InitPolicy::first_touch, InitPolicy::serial}) {
      Field<float> f(c.owned, c.grid.radius, false, first_updated_x(c.grid, c.owned));
      std::fill(f.data(), f.data() + f.allocated_elements(), 1.0f);
      first_touch(f, policy, c.blocking, sweeps);
      EXPECT_EQ(std::count(f.data(), f.data() + f.allocated_elements(), 0.0f), f.allocated_elements()) << c.name;
    }
  }
}

TEST(FirstTouch, RefusesSweepsThatDoNotTileABoxOfTheOwnedBox) {
  Field<float> f(Box{{0, 0, 0}, {16, 8, 8}}, 2);
  const Box a{{0, 0, 0}, {16, 8, 4}};
  EXPECT_THROW(first_touch(f, InitPolicy::first_touch, Blocking{}, {a, a}), std::logic_error);
  EXPECT_THROW(first_touch(f, InitPolicy::first_touch, Blocking{}, {Box{{0, 0, 0}, {16, 8, 9}}}), std::logic_error);
}

TEST(UpdateRegions, KernelSweepsTileTheUpdateRegion) {
  for (const Case& c : small_cases()) {
    const UpdateRegions r = update_regions(c.grid, c.owned, c.in_flight);
    EXPECT_EQ(kernel_sweeps(r, HaloMode::bulk), std::vector<Box>{r.update}) << c.name;
    const std::vector<Box> overlap = kernel_sweeps(r, HaloMode::overlap);
    ASSERT_FALSE(overlap.empty());
    EXPECT_EQ(overlap.front(), r.interior) << c.name;
    std::int64_t points = 0;
    for (const Box& s : overlap) {
      EXPECT_EQ(intersect(s, r.update), s) << c.name;
      points += s.volume();
    }
    EXPECT_EQ(points, r.update.volume()) << c.name;
  }
}

}  // namespace
}  // namespace wave3d
