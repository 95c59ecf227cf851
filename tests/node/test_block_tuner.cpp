// The block tuner: its candidates, its budget, its choice, and the cache file it keeps.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "solver/block_tuner.hpp"
#include "solver/temporal_sweep.hpp"
#include "solver/tuning_cache.hpp"
#include "runtime/statistics.hpp"
#include "solver/wave_solver.hpp"
#include "stencil/block_loop.hpp"
#include "stencil/coefficients.hpp"
#include "stencil/folded_kernel.hpp"

namespace wave3d {
namespace {

RunConfig small_config() {
  RunConfig c;
  c.grid = Grid{{40, 36, 30}, 10.0, Boundary::zero, 2};
  c.blocking = Blocking{{0, 64, 16}};
  c.parallel.temporal_halo = TemporalHalo::deep;  // the redundant points the search counts are deep halos
  return c;
}

double same_time(double seconds) { return seconds; }

const NeighbourFaces kNoNeighbours{0, 0, 0};  // one rank, zero boundaries: no deep halos

TEST(BlockTuner, CandidatesStartWithTheConfiguredBlockAndCutTheSubdomainDifferently) {
  const Index3 extent{40, 36, 30};
  const auto candidates = block_size_candidates(extent, {0, 64, 16});
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(candidates.front(), (Index3{0, 64, 16}));
  std::vector<Index3> cuts;
  for (const Index3& c : candidates) {
    const Blocking b{c};
    const Index3 cut{b.effective(0, extent[0]), b.effective(1, extent[1]), b.effective(2, extent[2])};
    EXPECT_EQ(std::count(cuts.begin(), cuts.end(), cut), 0) << c[0] << "," << c[1] << "," << c[2];
    cuts.push_back(cut);
  }
}

TEST(BlockTuner, CandidatesGiveEveryThreadABlockWhereSomeCan) {
  const Index3 extent{32, 32, 16};  // the configured (0,64,16) cuts it into one block
  const auto two = block_size_candidates(extent, {0, 64, 16}, 2);
  ASSERT_FALSE(two.empty());
  for (const Index3& c : two) EXPECT_GE(block_count(Box{{0, 0, 0}, extent}, Blocking{c}), 2) << c[0] << "," << c[1] << "," << c[2];
  EXPECT_LT(two.size(), block_size_candidates(extent, {0, 64, 16}, 1).size());
  // No candidate cuts a 1x1x1 subdomain in two: every candidate stays rather than none.
  EXPECT_EQ(block_size_candidates({1, 1, 1}, {0, 64, 16}, 2).size(), 1u);
}

TEST(BlockTuner, SweepStepCandidatesFitTheRows) {
  EXPECT_EQ(sweep_step_candidates(8, 10), std::vector<int>{1});
  EXPECT_EQ(sweep_step_candidates(2, 1000), (std::vector<int>{1, 2, 3, 4, 6, 8}));
  for (int t : sweep_step_candidates(4, 40)) EXPECT_LE(min_temporal_tile_rows(t, 4), 40);
  EXPECT_EQ(sweep_step_candidates(2, 1000, 3), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(sweep_step_candidates(2, 1000, 1), std::vector<int>{1});
}

TEST(BlockTuner, SweepTilesStartFromTheChosenHeightAndGrowPastTheTrapezoidsMinimum) {
  // R = 8, 2 steps: a trapezoid needs 16 rows; 240 rows.
  const std::vector<std::int64_t> tiles = sweep_tile_candidates(2, 8, 16, 240, 2);
  ASSERT_FALSE(tiles.empty());
  EXPECT_EQ(tiles.front(), 16);
  EXPECT_NE(std::find(tiles.begin(), tiles.end(), 64), tiles.end());
  std::set<std::size_t> counts;
  for (std::int64_t h : tiles) {
    EXPECT_GE(h, min_temporal_tile_rows(2, 8));
    const std::size_t n = plan_temporal_tiles(0, 240, h, 2, 8).trapezoids.size();
    EXPECT_GE(n, 2u) << "a thread without a tile at height " << h;
    EXPECT_TRUE(counts.insert(n).second) << "two heights cut the rows alike: " << h;
  }
  // A height below the minimum is raised to it; so few rows that no height feeds both threads: one tile.
  EXPECT_EQ(sweep_tile_candidates(4, 8, 16, 240, 1).front(), min_temporal_tile_rows(4, 8));
  EXPECT_EQ(sweep_tile_candidates(4, 8, 16, 60, 2), (std::vector<std::int64_t>{48}));
}

TEST(KernelChoice, AutoRunsColumnsWhereTheirWindowFitsTheRegistersAtRadius4And8OrTwoAtOnce) {
  for (int r : kSupportedRadii) {
    const KernelVariant expected = (r >= 4 || columns_at_once(r) == 2) && column_window_fits_registers(r)
                                       ? KernelVariant::columns
                                       : KernelVariant::blocked;
    EXPECT_EQ(kernel_variant(KernelChoice::automatic, r), expected) << "R = " << r;
    EXPECT_EQ(kernel_variant(KernelChoice::columns, r), KernelVariant::columns);
    EXPECT_EQ(kernel_variant(KernelChoice::blocked, r), KernelVariant::blocked);
  }
  if (jammed_vector_isa() == "avx512") {
    EXPECT_EQ(kernel_variant(KernelChoice::automatic, 8), KernelVariant::columns);
    // Two columns at once where both windows take at most a third of the 32 registers: R = 1 and 2.
    for (int r : kSupportedRadii) EXPECT_EQ(columns_at_once(r), r <= 2 ? 2 : 1) << "R = " << r;
  }
}

TEST(BlockTuner, ChoosesTheFastestMeasuredCandidate) {
  omp_set_num_threads(2);
  const RunConfig c = small_config();
  TuningBudget budget;
  budget.floor_seconds = budget.cap_seconds = 5.0;
  const int max_steps = 3;  // enough to search T and tile heights, few enough to stay well inside the budget
  const TuningOutcome out = tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, true, true, max_steps, budget, same_time);
  ASSERT_GT(out.measured.size(), 1u);
  EXPECT_FALSE(out.budget_spent);
  // Each candidate's rates; the chosen one has the best median. A leader is measured twice more after
  // the sizes and again after the steps: at most 5 times.
  std::map<CandidateKey, std::vector<double>> rates;
  for (const TuningMeasurement& m : out.measured) rates[candidate_key(m.variant, m.blocking)].push_back(m.mpoints_per_second);
  const auto chosen = rates.find(candidate_key(out.variant, out.blocking));
  ASSERT_NE(chosen, rates.end());
  std::size_t one_step = 0, measured_again = 0;
  std::set<int> steps_tried;
  std::set<KernelVariant> kernels_of_sweeps;
  for (const auto& [key, r] : rates) {
    const auto& [variant, size, steps, prefetch_rows] = key;
    EXPECT_LE(median_of(r), median_of(chosen->second));
    EXPECT_LE(r.size(), 5u);
    measured_again += r.size() > 1 ? 1 : 0;
    if (steps == 1) ++one_step;
    else {
      EXPECT_GE(size[1], min_temporal_tile_rows(steps, 2));
      kernels_of_sweeps.insert(variant);
    }
    steps_tried.insert(steps);
  }
  // The steps are searched with the best kernel of the plain layout the sizes measured and, where
  // built, the folded kernel (the final choice is among them, unless a one-step candidate of another
  // kernel ends up with the best median after the leaders' repeats).
  EXPECT_EQ(kernels_of_sweeps.size(), folded_kernel_built() ? 2u : 1u);
  if (folded_kernel_built()) {
    EXPECT_EQ(kernels_of_sweeps.count(KernelVariant::folded), 1u);
  }
  if (out.blocking.steps > 1) {
    EXPECT_EQ(kernels_of_sweeps.count(out.variant), 1u);
  }
  // Every size candidate of every kernel at one step per sweep, every step count, and the leaders
  // measured again.
  std::size_t sizes = 0;
  for (KernelVariant v : kernel_candidates(c.kernel, c.grid.radius))
    sizes += block_size_candidates(c.grid.n, c.blocking.size, 2, v).size();
  EXPECT_EQ(one_step, sizes);
  const std::vector<int> steps = sweep_step_candidates(2, c.grid.n[1], max_steps);
  EXPECT_EQ(steps_tried, std::set<int>(steps.begin(), steps.end()));
  EXPECT_GE(measured_again, 2u);
}

// A candidate that looked far faster once, by chance, is measured again and judged by its median.
TEST(BlockTuner, ALuckyMeasurementIsMeasuredAgain) {
  omp_set_num_threads(1);
  const RunConfig c = small_config();
  TuningBudget budget;
  budget.floor_seconds = budget.cap_seconds = 5.0;
  int calls = 0;
  // Calls come in pairs per measurement (warm-up, timed), three for the first candidate (warm-up,
  // untimed sweeps, timed): the 5th call is the 2nd candidate's timed sweeps, reported 10000 times
  // quicker than they ran (far beyond what a loaded machine's noise between two measurements of one
  // candidate can undo).
  const TuningOutcome out = tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, true, false, 1, budget, [&](double s) {
    return ++calls == 5 ? s / 10000 : s;
  });
  ASSERT_GT(out.measured.size(), 2u);
  const TuningMeasurement lucky = out.measured[1];
  std::vector<double> lucky_rates;
  for (const TuningMeasurement& m : out.measured)
    if (candidate_key(m.variant, m.blocking) == candidate_key(lucky.variant, lucky.blocking))
      lucky_rates.push_back(m.mpoints_per_second);
  ASSERT_EQ(lucky_rates.size(), 3u);  // once by chance, then twice more as a leader
  EXPECT_GT(lucky_rates[0], 20 * std::max(lucky_rates[1], lucky_rates[2]));
}

TEST(SearchPace, TheFirstCandidatesLaterRatesAgainstItsFirst) {
  const Blocking configured{{0, 64, 16}}, other{{0, 32, 8}};
  EXPECT_FALSE(search_pace_change({}).has_value());
  EXPECT_FALSE(search_pace_change({{configured, 1000}, {other, 2000}, {other, 1000}}).has_value());  // measured once
  const auto pace = search_pace_change({{configured, 1000}, {other, 2000}, {configured, 1600}, {configured, 1700}, {other, 1900}});
  ASSERT_TRUE(pace.has_value());
  EXPECT_DOUBLE_EQ(*pace, 1.65);  // the median of the later rates against the first
  // The same block with another kernel is another candidate.
  EXPECT_FALSE(search_pace_change({{configured, 1000, KernelVariant::columns}, {configured, 1600, KernelVariant::blocked}})
                   .has_value());
}

// The machine speeds up right after the configured block's first measurement (the memory switching to
// its faster state): every other block looks faster in the first pass. The configured block is measured
// again beside the leaders, and in the same state as they it ties them and stays the choice; the
// search says the pace moved, so that the choice is not cached.
TEST(BlockTuner, TheConfiguredBlockCompetesAgainWhereTheMachineSpedUpAfterIt) {
  omp_set_num_threads(1);
  const RunConfig c = small_config();
  const TuningBudget budget = TuningBudget::fixed(5.0);
  int calls = 0;
  // Calls 1-3: the first candidate's warm-up, untimed and timed sweeps.
  const auto faster_after_the_first = [&](double) { return ++calls <= 3 ? 0.02 : 0.005; };
  const TuningOutcome out =
      tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, true, false, 1, budget, faster_after_the_first);
  ASSERT_FALSE(out.budget_spent);
  const TuningMeasurement& first = out.measured.front();
  EXPECT_EQ(first.blocking.size, c.blocking.size);
  std::size_t configured_measurements = 0;
  for (const TuningMeasurement& m : out.measured)
    configured_measurements += candidate_key(m.variant, m.blocking) == candidate_key(first.variant, first.blocking) ? 1 : 0;
  EXPECT_EQ(configured_measurements, 3u);  // once first, then in each round of the leaders' repeats
  EXPECT_EQ(out.blocking.size, c.blocking.size);
  EXPECT_EQ(out.variant, first.variant);
  const auto pace = search_pace_change(out.measured);
  ASSERT_TRUE(pace.has_value());
  EXPECT_GT(*pace, 1.0 + kPaceTolerance);
  EXPECT_EQ(out.pace_note.rfind("the machine's pace moved during the search: its first candidate ran ", 0), 0u)
      << out.pace_note;
}

// A budget too short for the warm-up the check needs does not judge the pace: a cold start would read
// as a move.
TEST(BlockTuner, AShortBudgetDoesNotJudgeThePace) {
  omp_set_num_threads(1);
  const RunConfig c = small_config();
  const TuningBudget budget = TuningBudget::fixed(0.9 * kPaceCheckBudgetSeconds);
  int calls = 0;
  const TuningOutcome out = tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, true, false, 1, budget,
                                                 [&](double) { return ++calls <= 3 ? 0.004 : 0.001; });
  ASSERT_TRUE(search_pace_change(out.measured).has_value());
  EXPECT_GT(*search_pace_change(out.measured), 1.0 + kPaceTolerance);
  EXPECT_EQ(out.pace_note, "");
}

// At a steady pace nothing is said.
TEST(BlockTuner, ASteadyPaceLeavesNoNote) {
  omp_set_num_threads(1);
  const RunConfig c = small_config();
  const TuningBudget budget = TuningBudget::fixed(5.0);
  const TuningOutcome out = tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, true, false, 1, budget,
                                                 [](double) { return 0.01; });
  ASSERT_TRUE(search_pace_change(out.measured).has_value());
  EXPECT_DOUBLE_EQ(*search_pace_change(out.measured), 1.0);
  EXPECT_EQ(out.pace_note, "");
}

// A cached choice timed again is scored as the search scores it: points per second over the time
// the slowest rank took (here a fake 10 ms per sweep), deep halos counted as cost.
TEST(BlockTuner, TimesACachedChoiceAsTheSearchScoresIt) {
  omp_set_num_threads(1);
  const RunConfig c = small_config();  // deep halos
  const Blocking b{{0, 16, 16}, 2};
  const auto ten_ms = [](double) { return 0.01; };
  // 0.05 s wanted, 10 ms a sweep: 5 timed sweeps, reported as 0.01 s in all.
  const double volume = static_cast<double>(c.grid.n[0] * c.grid.n[1] * c.grid.n[2]);
  const double alone = measure_blocking_rate<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, b, KernelVariant::blocked,
                                                    0.05, 0, ten_ms);
  EXPECT_DOUBLE_EQ(alone, volume * 2 * 5 / 0.01 / 1e6);
  const NeighbourFaces cut{0, 0, 1};
  const double with_deep_halos = measure_blocking_rate<float>(c, c.grid.whole(), c.grid.n, cut, b,
                                                              KernelVariant::blocked, 0.05, 0, ten_ms);
  EXPECT_DOUBLE_EQ(with_deep_halos, alone / deep_halo_overhead(c.grid.n, cut, 2, c.grid.radius));
  // On the machine's own clock: a positive rate.
  EXPECT_GT(measure_blocking_rate<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, b, KernelVariant::blocked, 0.01, 0,
                                         same_time),
            0.0);
}

TEST(BlockTuner, StopsWhenTheBudgetIsSpent) {
  omp_set_num_threads(2);
  const RunConfig c = small_config();
  TuningBudget budget;
  budget.floor_seconds = budget.cap_seconds = 1e-9;  // spent by the first candidate
  const TuningOutcome out = tune_blocking<double>(c, c.grid.whole(), c.grid.n, kNoNeighbours, true, false, 1, budget, same_time);
  EXPECT_EQ(out.measured.size(), 1u);
  EXPECT_TRUE(out.budget_spent);
  EXPECT_EQ(out.blocking.size, c.blocking.size);  // the configured block, the one measured
}

TEST(BlockTuner, RanksAgreeThroughTheSlowestTime) {
  // A "slowest rank" twice as slow as this one halves every rate: the choice follows the agreed times.
  omp_set_num_threads(1);
  const RunConfig c = small_config();
  TuningBudget budget;
  budget.floor_seconds = budget.cap_seconds = 1e-9;  // one candidate
  int calls = 0;
  const TuningOutcome out = tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, true, false, 1, budget, [&](double s) {
    ++calls;
    return 2 * s;
  });
  ASSERT_EQ(out.measured.size(), 1u);
  EXPECT_EQ(calls, 3);  // the warm-up, the untimed sweeps of the search's first candidate, the timed sweeps
  EXPECT_GT(out.seconds, 0.0);
}

// blocking.steps given (> 1) with blocking.size = "auto": every candidate runs that many steps per
// sweep, and besides one step's shapes the tile heights a sweep wants (sweep_tile_candidates) are
// measured, with the kernel and the x and z sizes the size search chose.
TEST(BlockTuner, GivenStepsPerSweepSearchesTheTileHeights) {
  omp_set_num_threads(1);
  RunConfig c = small_config();
  c.grid.n = {40, 96, 30};
  // 2 rows: fewer than the 4 a trapezoid of 2 levels needs at R = 2; 24 planes: a z size no other
  // candidate has, so that only the tile search measures other heights with it.
  c.blocking = Blocking{{0, 2, 24}, 2};
  TuningBudget budget;
  budget.floor_seconds = budget.cap_seconds = 5.0;
  // Times that do not depend on the machine's noise: the first candidate (the configured block with
  // the first kernel) once far faster than it ran, every other measurement alike. It leads after the
  // sizes (the first measured among equal medians), and the tile heights are searched around it.
  int calls = 0;
  const auto first_candidate_leads = [&](double) { return ++calls == 3 ? 0.0001 : 0.01; };
  const TuningOutcome out =
      tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, true, false, 4, budget, first_candidate_leads);
  ASSERT_FALSE(out.budget_spent);
  EXPECT_EQ(out.blocking.steps, 2);
  EXPECT_EQ(out.blocking.size[2], 24);
  EXPECT_EQ(out.variant, kernel_candidates(c.kernel, c.grid.radius).front());
  const auto tiles = [&](std::int64_t height) {
    return plan_temporal_tiles(0, c.grid.n[1], height, 2, c.grid.radius).trapezoids.size();
  };
  const std::int64_t least = min_temporal_tile_rows(2, c.grid.radius);
  std::set<std::size_t> tilings;  // the tile counts measured with the chosen kernel, x and z sizes
  for (const TuningMeasurement& m : out.measured) {
    EXPECT_EQ(m.blocking.steps, 2);
    // Recorded as the tiles that ran: none lower than a trapezoid's minimum (0 = all rows).
    EXPECT_TRUE(m.blocking.size[1] == 0 || m.blocking.size[1] >= least) << m.blocking.size[1];
    if (m.variant == out.variant && m.blocking.size[0] == out.blocking.size[0] && m.blocking.size[2] == out.blocking.size[2])
      tilings.insert(tiles(m.blocking.size[1]));
  }
  for (std::int64_t h : {4 * least, 2 * least, std::int64_t{64}, 8 * least})
    EXPECT_EQ(tilings.count(tiles(h)), 1u) << "tiles of " << h << " rows not measured";
}

TEST(BlockTuner, NothingToTuneMeasuresNothing) {
  const RunConfig c = small_config();
  const TuningOutcome out = tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, false, true, 1, TuningBudget{}, same_time);
  EXPECT_TRUE(out.measured.empty());
  EXPECT_EQ(out.blocking.size, c.blocking.size);
}

TEST(BlockTuner, AutoKernelMeasuresEveryKernelThatRunsHere) {
  for (int r : kSupportedRadii) {
    const std::vector<KernelVariant> candidates = kernel_candidates(KernelChoice::automatic, r);
    ASSERT_FALSE(candidates.empty());
    EXPECT_EQ(candidates.front(), kernel_variant(KernelChoice::automatic, r)) << "R = " << r;  // the rule's first
    std::set<KernelVariant> expected{KernelVariant::blocked};
    if (column_window_fits_registers(r)) expected.insert(KernelVariant::columns);
    if (folded_kernel_built()) expected.insert(KernelVariant::folded);  // measured last, where built
    EXPECT_EQ(std::set<KernelVariant>(candidates.begin(), candidates.end()), expected) << "R = " << r;
    if (folded_kernel_built()) {
      EXPECT_EQ(candidates.back(), KernelVariant::folded);
    }
    // A kernel asked for by name is the only one measured.
    EXPECT_EQ(kernel_candidates(KernelChoice::jammed, r), std::vector<KernelVariant>{KernelVariant::jammed});
  }
}

// With stencil.kernel = "auto" both kernels are measured, their first candidates first, and the
// chosen kernel and block are the candidate with the best median over both.
TEST(BlockTuner, ChoosesTheKernelOfTheFastestCandidate) {
  if (!column_window_fits_registers(2)) GTEST_SKIP() << "the z columns do not run at R = 2 in this build";
  omp_set_num_threads(1);
  const RunConfig c = small_config();
  TuningBudget budget;
  budget.floor_seconds = budget.cap_seconds = 5.0;
  const TuningOutcome out = tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, true, false, 1, budget, same_time);
  const std::vector<KernelVariant> kernels = kernel_candidates(c.kernel, c.grid.radius);
  ASSERT_EQ(kernels.size(), folded_kernel_built() ? 3u : 2u);
  ASSERT_GT(out.measured.size(), kernels.size());
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    EXPECT_EQ(out.measured[k].variant, kernels[k]);
    EXPECT_EQ(out.measured[k].blocking.size, c.blocking.size);  // each kernel starts with the configured block
  }
  std::map<CandidateKey, std::vector<double>> rates;
  for (const TuningMeasurement& m : out.measured) rates[candidate_key(m.variant, m.blocking)].push_back(m.mpoints_per_second);
  const double chosen = median_of(rates.at(candidate_key(out.variant, out.blocking)));
  for (const auto& [key, r] : rates) EXPECT_LE(median_of(r), chosen);
}

// The folded kernel sweeps several steps too: a search of T measures it at T = 1 and grows taller
// tiles of several steps from its best candidate (as from the plain layout's best), a search of the
// sizes for given steps above 1 measures it at those steps, and where its levels would not fit
// beside the plain fields "auto" leaves it out.
TEST(BlockTuner, MeasuresTheFoldedKernelAtEveryStepsPerSweep) {
  if (!folded_kernel_built()) GTEST_SKIP() << "this build has no AVX-512";
  omp_set_num_threads(1);
  RunConfig c = small_config();
  TuningBudget budget;
  budget.floor_seconds = budget.cap_seconds = 100.0;  // never spent
  const auto fixed_time = [](double) { return 0.01; };
  const TuningOutcome searched = tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, true, true, 4, budget, fixed_time);
  bool folded_one = false, folded_several = false, plain_several = false;
  for (const TuningMeasurement& m : searched.measured) {
    const bool folded = m.variant == KernelVariant::folded;
    folded_one = folded_one || (folded && m.blocking.steps == 1);
    folded_several = folded_several || (folded && m.blocking.steps > 1);
    plain_several = plain_several || (!folded && m.blocking.steps > 1);
  }
  EXPECT_TRUE(folded_one);
  EXPECT_TRUE(folded_several);
  EXPECT_TRUE(plain_several);

  RunConfig tight = c;
  tight.tune.folded_fits = false;
  const TuningOutcome without = tune_blocking<float>(tight, c.grid.whole(), c.grid.n, kNoNeighbours, true, false, 1, budget, fixed_time);
  for (const TuningMeasurement& m : without.measured) EXPECT_NE(m.variant, KernelVariant::folded);

  c.blocking.steps = 3;
  const TuningOutcome given_steps = tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, true, false, 4, budget, fixed_time);
  bool folded_given = false;
  for (const TuningMeasurement& m : given_steps.measured) {
    folded_given = folded_given || m.variant == KernelVariant::folded;
    EXPECT_EQ(m.blocking.steps, 3);
  }
  EXPECT_TRUE(folded_given);

  c.kernel = KernelChoice::folded;
  const TuningOutcome named = tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, true, false, 4, budget, fixed_time);
  ASSERT_FALSE(named.measured.empty());
  for (const TuningMeasurement& m : named.measured) {
    EXPECT_EQ(m.variant, KernelVariant::folded);
    EXPECT_EQ(m.blocking.steps, 3);
  }
}

// Deep halos are cost, not progress: with the same times, a sweep of T steps on a subdomain whose
// neighbours fill its halos scores its rate without them divided by deep_halo_overhead; one step
// per sweep computes no deep halo and scores the same.
TEST(BlockTuner, CountsOnlyOwnedPointsOfSweepsThatComputeDeepHalos) {
  omp_set_num_threads(1);
  const RunConfig c = small_config();
  TuningBudget budget;
  budget.floor_seconds = budget.cap_seconds = 100.0;  // never spent: the same candidates both times
  const auto fixed_time = [](double) { return 0.01; };
  const NeighbourFaces both_z_faces{0, 0, 2};
  const TuningOutcome alone = tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, false, true, 3, budget, fixed_time);
  const TuningOutcome cut = tune_blocking<float>(c, c.grid.whole(), c.grid.n, both_z_faces, false, true, 3, budget, fixed_time);
  ASSERT_EQ(alone.measured.size(), cut.measured.size());
  std::set<int> steps_seen;
  for (std::size_t i = 0; i < alone.measured.size(); ++i) {
    const TuningMeasurement& a = alone.measured[i];
    const TuningMeasurement& b = cut.measured[i];
    ASSERT_EQ(candidate_key(a.variant, a.blocking), candidate_key(b.variant, b.blocking));
    const double overhead = deep_halo_overhead(c.grid.n, both_z_faces, a.blocking.steps, c.grid.radius);
    EXPECT_DOUBLE_EQ(b.mpoints_per_second, a.mpoints_per_second / overhead) << "steps " << a.blocking.steps;
    if (a.blocking.steps == 1) EXPECT_EQ(overhead, 1.0);
    else EXPECT_GT(overhead, 1.0);
    steps_seen.insert(a.blocking.steps);
  }
  EXPECT_GT(steps_seen.size(), 1u);
}

// A tuning outcome with two candidates of one step per sweep and two of several, as a search leaves
// it: the best of each kind is what the trial on real steps runs.
TuningOutcome outcome_with_both_kinds() {
  TuningOutcome out;
  out.measured = {{Blocking{{0, 16, 16}, 1}, 100.0, KernelVariant::columns},
                  {Blocking{{0, 8, 16}, 1}, 120.0, KernelVariant::blocked},
                  {Blocking{{0, 32, 16}, 3}, 150.0, KernelVariant::columns},
                  {Blocking{{0, 64, 16}, 4}, 140.0, KernelVariant::columns}};
  out.blocking = out.measured[2].blocking;
  out.variant = out.measured[2].variant;
  out.budget_seconds = 10.0;
  out.seconds = 5.0;
  return out;
}

// Records the contenders it is asked to time and answers per step what `per_step` gives for their T,
// plus `drift` for every call before (a machine whose pace moves during the trial).
struct FakeRealSteps {
  std::map<int, double> per_step;  // seconds per step by steps per sweep
  std::vector<std::tuple<Blocking, KernelVariant, int, int>> calls{};
  double drift = 0;
  double deep_extra = 0;  // added for sweeps with deep halos
  std::vector<TemporalHalo> halos{};  // of every call, in order
  RealStepTimer timer() {
    return [this](const Blocking& b, KernelVariant v, TemporalHalo halo, int steps, int repetitions) {
      calls.emplace_back(b, v, steps, repetitions);
      halos.push_back(halo);
      const double extra = b.steps > 1 && halo == TemporalHalo::deep ? deep_extra : 0.0;
      return per_step.at(b.steps) + extra + drift * static_cast<double>(calls.size() - 1);
    };
  }
};

const auto kQuickBuild = [](int) { return 0.01; };

// A blocking's sizes and steps, to compare.
std::pair<Index3, int> shape(const Blocking& b) { return {b.size, b.steps}; }

TEST(RealStepTrial, TheFasterPerStepOfTheBestOfEachKindIsChosen) {
  for (const bool several_faster : {true, false}) {
    TuningOutcome out = outcome_with_both_kinds();
    FakeRealSteps fake{{{1, several_faster ? 0.006 : 0.005}, {3, several_faster ? 0.005 : 0.006}}, {}};
    run_real_step_trial(out, fake.timer(), 1e6, kQuickBuild, same_time);
    ASSERT_EQ(fake.calls.size(), 2u * kTrialRounds);
    // Each kind's best median, one step per sweep first, in the order A B B A, as many steps each:
    // whole sweeps of the deeper one.
    for (std::size_t i : {0, 3}) {
      EXPECT_EQ(shape(std::get<0>(fake.calls[i])), shape(Blocking{{0, 8, 16}, 1}));
      EXPECT_EQ(std::get<1>(fake.calls[i]), KernelVariant::blocked);
    }
    for (std::size_t i : {1, 2}) EXPECT_EQ(shape(std::get<0>(fake.calls[i])), shape(Blocking{{0, 32, 16}, 3}));
    for (const auto& call : fake.calls) {
      EXPECT_EQ(std::get<2>(call), kTrialSweeps * 3);
      EXPECT_EQ(std::get<3>(call), kTrialRepetitions);
    }
    ASSERT_EQ(out.trial.size(), 2u);
    EXPECT_EQ(out.trial[0].blocking.steps, 1);
    EXPECT_EQ(out.trial[1].blocking.steps, 3);
    EXPECT_DOUBLE_EQ(out.trial[0].seconds_per_step, several_faster ? 0.006 : 0.005);
    EXPECT_EQ(out.trial[1].rounds.size(), static_cast<std::size_t>(kTrialRounds));
    EXPECT_EQ(shape(out.blocking), several_faster ? shape(Blocking{{0, 32, 16}, 3}) : shape(Blocking{{0, 8, 16}, 1}));
    EXPECT_EQ(out.variant, several_faster ? KernelVariant::columns : KernelVariant::blocked);
    EXPECT_TRUE(out.trial_skipped.empty());
    EXPECT_GT(out.seconds, 5.0);  // the trial's time is spent from the budget
  }
}

// A machine slowing down during the trial (0.1 ms per step more at every call) would make whichever
// runs first look faster; in the order A B B A, the mean of each contender's rounds carries the same
// drift, and the truly faster (by 0.1 ms) still wins.
TEST(RealStepTrial, ADriftingMachineWeighsOnBothContendersAlike) {
  TuningOutcome out = outcome_with_both_kinds();
  FakeRealSteps fake{{{1, 0.0050}, {3, 0.0049}}, {}, 0.001};
  run_real_step_trial(out, fake.timer(), 1e6, kQuickBuild, same_time);
  ASSERT_EQ(out.trial.size(), 2u);
  EXPECT_DOUBLE_EQ(out.trial[0].seconds_per_step, 0.0050 + 0.0015);
  EXPECT_DOUBLE_EQ(out.trial[1].seconds_per_step, 0.0049 + 0.0015);
  EXPECT_EQ(out.blocking.steps, 3);
}

// Where the best of several steps per sweep is deeper than two, the best of two runs as well, between
// them, in the order A B C C B A; it wins where it is the fastest on real steps, and ties go to the
// fewer steps.
TEST(RealStepTrial, TheBestOfTwoStepsJoinsADeeperBest) {
  for (const double two : {0.0045, 0.0050, 0.0060}) {
    TuningOutcome out = outcome_with_both_kinds();
    out.measured.push_back({Blocking{{0, 48, 16}, 2}, 130.0, KernelVariant::columns});
    out.measured.push_back({Blocking{{0, 16, 16}, 2}, 110.0, KernelVariant::columns});
    FakeRealSteps fake{{{1, 0.0050}, {2, two}, {3, 0.0055}}, {}};
    run_real_step_trial(out, fake.timer(), 1e6, kQuickBuild, same_time);
    ASSERT_EQ(out.trial.size(), 3u);
    ASSERT_EQ(fake.calls.size(), 3u * kTrialRounds);
    const std::vector<int> order{1, 2, 3, 3, 2, 1};
    for (std::size_t i = 0; i < order.size(); ++i) {
      EXPECT_EQ(std::get<0>(fake.calls[i]).steps, order[i]) << "call " << i;
      EXPECT_EQ(std::get<2>(fake.calls[i]), kTrialSweeps * 3);  // whole sweeps of the deepest
    }
    EXPECT_EQ(shape(out.trial[1].blocking), shape(Blocking{{0, 48, 16}, 2}));  // the best median of two
    EXPECT_EQ(out.blocking.steps, two < 0.0050 ? 2 : 1) << "two steps per sweep at " << two;
  }
  TuningOutcome tight = outcome_with_both_kinds();
  tight.measured.push_back({Blocking{{0, 48, 16}, 2}, 130.0, KernelVariant::columns});
  tight.seconds = 9.99;
  FakeRealSteps fake{{{1, 0.005}, {2, 0.004}, {3, 0.004}}, {}};
  run_real_step_trial(tight, fake.timer(), 1e9, kQuickBuild, same_time);
  EXPECT_TRUE(fake.calls.empty());
  EXPECT_NE(tight.trial_skipped.find("no trial of T = 1 against T = 2 and 3 on real steps"), std::string::npos)
      << tight.trial_skipped;
}

// parallel.temporal_halo = "auto": each deeper contender runs with split tiling and with deep halos,
// in the order A B C C B A, and the faster halo comes with the choice; a tie keeps split tiling.
TEST(RealStepTrial, AutoComparesSplitTilingWithDeepHalos) {
  for (const double deep_extra : {-0.0002, 0.0, 0.0002}) {
    TuningOutcome out = outcome_with_both_kinds();
    FakeRealSteps fake{{{1, 0.0050}, {3, 0.0040}}, {}, 0.0, deep_extra};
    run_real_step_trial(out, fake.timer(), 1e6, kQuickBuild, same_time, trial_halos(TemporalHalo::automatic));
    ASSERT_EQ(out.trial.size(), 3u);
    ASSERT_EQ(fake.halos.size(), 3u * kTrialRounds);
    const std::vector<TemporalHalo> order{TemporalHalo::split, TemporalHalo::split, TemporalHalo::deep,
                                          TemporalHalo::deep, TemporalHalo::split, TemporalHalo::split};
    EXPECT_EQ(fake.halos, order);
    EXPECT_EQ(out.trial[1].halo, TemporalHalo::split);
    EXPECT_EQ(out.trial[2].halo, TemporalHalo::deep);
    EXPECT_EQ(out.blocking.steps, 3);
    EXPECT_EQ(out.temporal_halo, deep_extra < 0 ? TemporalHalo::deep : TemporalHalo::split) << deep_extra;
  }
  // Where one step per sweep wins, the halo stays as it was.
  TuningOutcome out = outcome_with_both_kinds();
  FakeRealSteps fake{{{1, 0.0030}, {3, 0.0040}}, {}, 0.0, -0.0005};
  run_real_step_trial(out, fake.timer(), 1e6, kQuickBuild, same_time, trial_halos(TemporalHalo::automatic));
  EXPECT_EQ(out.blocking.steps, 1);
  EXPECT_EQ(out.temporal_halo, TemporalHalo::split);
  // Where the budget left holds the trial with split tiling alone, that one runs, and says so.
  TuningOutcome tight = outcome_with_both_kinds();
  FakeRealSteps tight_fake{{{1, 0.0050}, {3, 0.0040}}, {}, 0.0, -0.0005};
  // 6e6 points per step at 120 and 150 MPoints/s, 6 steps 4 times in 2 rounds: 2.4 s for T = 1 and
  // 1.92 s for T = 3 with each halo, 6.24 s for all three, 4.32 s for the two of split tiling; 5.1 s
  // are left.
  tight.seconds = 4.9;
  tight.budget_seconds = 10.0;
  const auto no_build = [](int) { return 0.0; };
  run_real_step_trial(tight, tight_fake.timer(), 6e6, no_build, same_time, trial_halos(TemporalHalo::automatic));
  ASSERT_EQ(tight.trial.size(), 2u);
  EXPECT_EQ(std::count(tight_fake.halos.begin(), tight_fake.halos.end(), TemporalHalo::deep), 0);
  EXPECT_EQ(tight.temporal_halo, TemporalHalo::split);
  EXPECT_TRUE(tight.trial_skipped.empty());
  EXPECT_EQ(tight.trial_note.rfind("deep halos not tried as well: the trial with them needs about", 0), 0u)
      << tight.trial_note;
  // A halo given by name is the only one tried.
  EXPECT_EQ(trial_halos(TemporalHalo::deep), std::vector<TemporalHalo>{TemporalHalo::deep});
}

// blocking.steps given (no candidate of one step per sweep) with the temporal halo "auto": the best
// candidate of those steps runs with split tiling and with deep halos, A B B A, and the faster halo is
// kept (a tie keeps split tiling); with one halo there is nothing to weigh.
TEST(RealStepTrial, GivenStepsWeighSplitTilingAgainstDeepHalos) {
  const auto given_steps = [] {
    TuningOutcome out = outcome_with_both_kinds();
    out.measured = {{Blocking{{0, 32, 16}, 3}, 150.0, KernelVariant::columns},
                    {Blocking{{0, 64, 16}, 3}, 140.0, KernelVariant::columns}};
    return out;
  };
  for (const double deep_extra : {-0.0002, 0.0, 0.0002}) {
    TuningOutcome out = given_steps();
    FakeRealSteps fake{{{3, 0.0040}}, {}, 0.0, deep_extra};
    run_real_step_trial(out, fake.timer(), 1e6, kQuickBuild, same_time, trial_halos(TemporalHalo::automatic));
    ASSERT_EQ(out.trial.size(), 2u);
    EXPECT_EQ(fake.halos, (std::vector<TemporalHalo>{TemporalHalo::split, TemporalHalo::deep, TemporalHalo::deep,
                                                     TemporalHalo::split}));
    for (const auto& call : fake.calls) EXPECT_EQ(shape(std::get<0>(call)), shape(Blocking{{0, 32, 16}, 3}));
    EXPECT_EQ(shape(out.blocking), shape(Blocking{{0, 32, 16}, 3}));
    EXPECT_EQ(out.temporal_halo, deep_extra < 0 ? TemporalHalo::deep : TemporalHalo::split) << deep_extra;
  }
  TuningOutcome one_halo = given_steps();
  FakeRealSteps fake{{{3, 0.0040}}, {}};
  run_real_step_trial(one_halo, fake.timer(), 1e6, kQuickBuild, same_time, trial_halos(TemporalHalo::split));
  EXPECT_TRUE(fake.calls.empty());
  EXPECT_TRUE(one_halo.trial.empty());
  EXPECT_TRUE(one_halo.trial_skipped.empty());

  TuningOutcome tight = given_steps();
  tight.seconds = 9.99;
  run_real_step_trial(tight, fake.timer(), 1e9, kQuickBuild, same_time, trial_halos(TemporalHalo::automatic));
  EXPECT_TRUE(fake.calls.empty());
  EXPECT_EQ(tight.trial_skipped.rfind("no trial of split tiling against deep halos at T = 3 on real steps: it needs about", 0),
            0u)
      << tight.trial_skipped;
  EXPECT_EQ(tight.temporal_halo, TemporalHalo::split);
}

TEST(RealStepTrial, ATieKeepsOneStepPerSweep) {
  TuningOutcome out = outcome_with_both_kinds();
  FakeRealSteps fake{{{1, 0.005}, {3, 0.005}}, {}};
  run_real_step_trial(out, fake.timer(), 1e6, kQuickBuild, same_time);
  EXPECT_EQ(out.blocking.steps, 1);
}

TEST(RealStepTrial, SkippedAndSaidSoWhenTheBudgetLeftCannotHoldIt) {
  TuningOutcome out = outcome_with_both_kinds();
  out.seconds = 9.99;
  FakeRealSteps fake{{{1, 0.005}, {3, 0.004}}, {}};
  // 1e9 points per step at 120 and 150 MPoints/s: seconds per step, far more than the 0.01 s left.
  run_real_step_trial(out, fake.timer(), 1e9, kQuickBuild, same_time);
  EXPECT_TRUE(fake.calls.empty());
  EXPECT_TRUE(out.trial.empty());
  EXPECT_NE(out.trial_skipped.find("no trial of T = 1 against T = 3 on real steps: it needs about"), std::string::npos)
      << out.trial_skipped;
  EXPECT_NE(out.trial_skipped.find("0.010 s of the budget was left"), std::string::npos) << out.trial_skipped;
  EXPECT_EQ(shape(out.blocking), shape(Blocking{{0, 32, 16}, 3}));  // the search's choice stands
  EXPECT_TRUE(out.budget_spent);  // a search with a larger budget is not answered by this one
}

TEST(RealStepTrial, NeedsACandidateOfEachKind) {
  TuningOutcome out = outcome_with_both_kinds();
  out.measured.resize(2);  // one step per sweep only
  FakeRealSteps fake{{{1, 0.005}}, {}};
  run_real_step_trial(out, fake.timer(), 1e6, kQuickBuild, same_time);
  EXPECT_TRUE(fake.calls.empty());
  EXPECT_TRUE(out.trial.empty());
  EXPECT_TRUE(out.trial_skipped.empty());
}

// The search runs the trial only where the exchange it cannot see exists (a neighbour's face) and the
// caller can time real steps; a search of T keeps a share of its budget for it.
TEST(BlockTuner, RunsTheTrialOnRealStepsOnlyWhereNeighboursFillHalos) {
  omp_set_num_threads(1);
  const RunConfig c = small_config();
  TuningBudget budget;
  budget.floor_seconds = budget.cap_seconds = 100.0;
  const auto fixed_time = [](double) { return 0.01; };
  FakeRealSteps alone_fake{{{1, 0.002}, {2, 0.001}, {3, 0.001}}, {}};
  const TuningOutcome alone = tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, false, true, 3, budget,
                                                   fixed_time, alone_fake.timer());
  EXPECT_TRUE(alone_fake.calls.empty());
  EXPECT_TRUE(alone.trial.empty());

  FakeRealSteps cut_fake{{{1, 0.001}, {2, 0.002}, {3, 0.002}}, {}};
  const TuningOutcome cut = tune_blocking<float>(c, c.grid.whole(), c.grid.n, {0, 0, 1}, false, true, 3, budget,
                                                 fixed_time, cut_fake.timer());
  // Two contenders, or three where the best of several steps is the sweep of 3 (then 2 as well).
  ASSERT_TRUE(cut.trial.size() == 2u || cut.trial.size() == 3u) << cut.trial.size();
  ASSERT_EQ(cut_fake.calls.size(), cut.trial.size() * kTrialRounds);
  EXPECT_EQ(cut.blocking.steps, 1);  // faster on real steps, whatever the scratch fields said
  EXPECT_EQ(shape(cut.blocking), shape(cut.trial[0].blocking));

  // Handed "auto" (split tiling fits), the trial runs the deeper contenders with both halos.
  RunConfig automatic = c;
  automatic.parallel.temporal_halo = TemporalHalo::automatic;
  FakeRealSteps auto_fake{{{1, 0.002}, {2, 0.001}, {3, 0.001}}, {}, 0.0, -0.0005};
  const TuningOutcome chosen = tune_blocking<float>(automatic, c.grid.whole(), c.grid.n, {0, 0, 1}, false, true, 3,
                                                    budget, fixed_time, auto_fake.timer());
  ASSERT_TRUE(chosen.trial.size() == 3u || chosen.trial.size() == 5u) << chosen.trial.size();
  EXPECT_EQ(std::count(auto_fake.halos.begin(), auto_fake.halos.end(), TemporalHalo::deep),
            static_cast<long>((chosen.trial.size() - 1) / 2 * kTrialRounds));
  EXPECT_EQ(chosen.temporal_halo, TemporalHalo::deep);  // 0.5 ms per step faster here
  EXPECT_GT(chosen.blocking.steps, 1);

  // blocking.steps given with "auto": the sizes are searched for sweeps of 2 steps, and the trial weighs
  // the halos at 2 steps only.
  RunConfig given = automatic;
  given.blocking.steps = 2;
  FakeRealSteps given_fake{{{2, 0.001}}, {}, 0.0, -0.0005};
  const TuningOutcome halos_weighed = tune_blocking<float>(given, c.grid.whole(), c.grid.n, {0, 0, 1}, true, false, 3,
                                                           budget, fixed_time, given_fake.timer());
  ASSERT_EQ(halos_weighed.trial.size(), 2u);
  EXPECT_EQ(halos_weighed.trial[0].halo, TemporalHalo::split);
  EXPECT_EQ(halos_weighed.trial[1].halo, TemporalHalo::deep);
  EXPECT_EQ(halos_weighed.blocking.steps, 2);
  EXPECT_EQ(halos_weighed.temporal_halo, TemporalHalo::deep);
  // Given steps with a halo given by name: nothing to weigh.
  RunConfig given_split = given;
  given_split.parallel.temporal_halo = TemporalHalo::split;
  FakeRealSteps split_fake{{{2, 0.001}}, {}};
  const TuningOutcome split_only = tune_blocking<float>(given_split, c.grid.whole(), c.grid.n, {0, 0, 1}, true, false,
                                                        3, budget, fixed_time, split_fake.timer());
  EXPECT_TRUE(split_fake.calls.empty());
  EXPECT_TRUE(split_only.trial.empty());

  // Without a timer (a caller that cannot run real steps) the search's choice stands.
  const TuningOutcome untimed = tune_blocking<float>(c, c.grid.whole(), c.grid.n, {0, 0, 1}, false, true, 3, budget, fixed_time);
  EXPECT_TRUE(untimed.trial.empty());
  EXPECT_TRUE(untimed.trial_skipped.empty());
}

TEST(TemporalSweepCost, DeepHaloOverheadCountsTheRedundantLevels) {
  // 2 ranks along z of a 256^3 grid, R = 8, 4 levels: level L reaches (4 - L) R planes into the
  // neighbour's side, 24 + 16 + 8 planes over 4 x 128.
  EXPECT_DOUBLE_EQ(deep_halo_overhead({256, 256, 128}, {0, 0, 1}, 4, 8), 560.0 / 512.0);
  EXPECT_DOUBLE_EQ(deep_halo_overhead({256, 256, 128}, {0, 0, 2}, 4, 8), 608.0 / 512.0);
  EXPECT_EQ(deep_halo_overhead({256, 256, 128}, {0, 0, 0}, 4, 8), 1.0);
  EXPECT_EQ(deep_halo_overhead({256, 256, 128}, {2, 2, 2}, 1, 8), 1.0);
  // Every axis with both faces, as a periodic grid on one rank: each level's box grows on all six.
  double computed = 0;
  for (int level = 1; level <= 3; ++level) {
    const double grow = 2.0 * (3 - level) * 2;
    computed += (10 + grow) * (12 + grow) * (14 + grow);
  }
  EXPECT_DOUBLE_EQ(deep_halo_overhead({10, 12, 14}, {2, 2, 2}, 3, 2), computed / (3.0 * 10 * 12 * 14));
}

TEST(BlockTuner, GivenBlockSizesKeepTheConfiguredKernel) {
  omp_set_num_threads(1);
  const RunConfig c = small_config();
  TuningBudget budget;
  budget.floor_seconds = budget.cap_seconds = 5.0;
  const TuningOutcome out = tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, false, true, 3, budget, same_time);
  ASSERT_FALSE(out.measured.empty());
  for (const TuningMeasurement& m : out.measured) EXPECT_EQ(m.variant, kernel_variant(c.kernel, c.grid.radius));
  EXPECT_EQ(out.variant, kernel_variant(c.kernel, c.grid.radius));
}

// blocking.prefetch_rows = "auto": where the z columns are chosen, every distance is measured with the
// blocks chosen by then (the rule's among them), and the choice is the best median over all candidates
// (on a busy machine the leaders measured again may then put other blocks first).
// Given, every candidate runs with the distance given; other kernels are not searched for one.
TEST(BlockTuner, SearchesThePrefetchDistanceOfTheChosenColumns) {
  if (!column_window_fits_registers(2)) GTEST_SKIP() << "the z columns do not run at R = 2 in this build";
  omp_set_num_threads(1);
  RunConfig c = small_config();
  c.kernel = KernelChoice::columns;
  c.tune.prefetch = true;
  TuningBudget budget;
  budget.floor_seconds = budget.cap_seconds = 5.0;
  const TuningOutcome out = tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, true, false, 1, budget, same_time);
  ASSERT_FALSE(out.budget_spent);
  std::map<CandidateKey, std::vector<double>> rates;
  std::map<Index3, std::set<int>> distances_per_size;
  for (const TuningMeasurement& m : out.measured) {
    rates[candidate_key(m.variant, m.blocking)].push_back(m.mpoints_per_second);
    EXPECT_GE(m.blocking.prefetch_rows, 1);
    EXPECT_LE(m.blocking.prefetch_rows, kMaxPrefetchRows);
    distances_per_size[m.blocking.size].insert(m.blocking.prefetch_rows);
  }
  const auto all_distances = std::count_if(distances_per_size.begin(), distances_per_size.end(),
                                           [](const auto& d) { return d.second == std::set<int>{1, 2, 3, 4}; });
  EXPECT_EQ(all_distances, 1);  // one block size, the one chosen before the distance was searched
  // The block sizes are searched with the rule's distance, before the distance is.
  EXPECT_EQ(out.measured.front().blocking.prefetch_rows, default_prefetch_rows(c.grid.radius));
  const double chosen = median_of(rates.at(candidate_key(out.variant, out.blocking)));
  for (const auto& [key, r] : rates) EXPECT_LE(median_of(r), chosen);

  c.tune.prefetch = false;
  c.blocking.prefetch_rows = 3;
  const TuningOutcome given = tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, true, false, 1, budget, same_time);
  ASSERT_FALSE(given.measured.empty());
  for (const TuningMeasurement& m : given.measured) EXPECT_EQ(m.blocking.prefetch_rows, 3);
  EXPECT_EQ(given.blocking.prefetch_rows, 3);

  c.kernel = KernelChoice::blocked;
  c.tune.prefetch = true;
  c.blocking.prefetch_rows = 0;
  const TuningOutcome rows = tune_blocking<float>(c, c.grid.whole(), c.grid.n, kNoNeighbours, true, false, 1, budget, same_time);
  std::set<int> distances;
  for (const TuningMeasurement& m : rows.measured) distances.insert(m.blocking.prefetch_rows);
  EXPECT_EQ(distances, (std::set<int>{default_prefetch_rows(c.grid.radius)}));
}

class TuningCacheFile : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("wave3d-tuning-" + std::to_string(::getpid()) + "-" +
                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::path file = dir / "sub" / "blocking.json";
  void TearDown() override { std::filesystem::remove_all(dir); }
};

TuningOutcome outcome_with(Index3 size, int steps) {
  TuningOutcome o;
  o.blocking = Blocking{size, steps};
  o.measured.push_back({o.blocking, 123.0});
  return o;
}

// An entry keeps the trial on real steps that chose it; a file of another format version (whose
// entries were chosen without one) answers nothing and is rewritten whole.
TEST_F(TuningCacheFile, KeepsTheTrialAndIgnoresOtherFormatVersions) {
  const TuningKey key{"cpu", 1, "columns", 8, "single", {64, 64, 32}, true, true, 4, {0, 0, 1}};
  TuningOutcome o = outcome_with({0, 16, 16}, 1);
  o.trial = {{Blocking{{0, 16, 16}, 1}, KernelVariant::columns, TemporalHalo::split, 0.006, {0.0059, 0.0061}},
             {Blocking{{0, 64, 16}, 3}, KernelVariant::columns, TemporalHalo::deep, 0.007, {0.007, 0.007}}};
  o.temporal_halo = TemporalHalo::deep;
  write_tuning_cache(file, key, o);
  nlohmann::json doc;
  std::ifstream(file) >> doc;
  const nlohmann::json& entry = doc.at("entries").at(0);
  ASSERT_EQ(entry.at("trial").size(), 2u);
  EXPECT_EQ(entry.at("trial").at(1).at("steps"), 3);
  EXPECT_DOUBLE_EQ(entry.at("trial").at(0).at("seconds_per_step").get<double>(), 0.006);
  EXPECT_EQ(entry.at("trial").at(0).at("seconds_per_step_rounds").get<std::vector<double>>(), (std::vector<double>{0.0059, 0.0061}));
  EXPECT_EQ(entry.at("trial").at(1).at("temporal_halo"), "deep");
  EXPECT_TRUE(entry.at("trial_skipped").is_null());
  ASSERT_TRUE(read_tuning_cache(file, key).has_value());
  EXPECT_EQ(read_tuning_cache(file, key)->temporal_halo, TemporalHalo::deep);  // the trial's choice comes back

  doc["format_version"] = doc.at("format_version").get<int>() - 1;
  std::ofstream(file) << doc.dump();
  EXPECT_FALSE(read_tuning_cache(file, key).has_value());
  TuningKey other = key;
  other.threads = 2;
  write_tuning_cache(file, other, outcome_with({0, 8, 16}, 1));
  EXPECT_FALSE(read_tuning_cache(file, key).has_value());  // the old version's entry is gone
  EXPECT_TRUE(read_tuning_cache(file, other).has_value());
}

// An entry answers with the rate its search measured for the blocking it chose (the median of its
// measurements), against which a run times the choice again before it uses it.
TEST_F(TuningCacheFile, GivesTheRateTheSearchMeasuredForItsChoice) {
  const TuningKey key{"cpu", 2, "columns", 8, "single", {64, 64, 64}, true, false};
  TuningOutcome o = outcome_with({0, 64, 16}, 1);
  o.variant = KernelVariant::columns;
  o.measured = {{Blocking{{0, 64, 16}, 1}, 3000.0, KernelVariant::columns},
                {Blocking{{0, 32, 16}, 1}, 2900.0, KernelVariant::columns},
                {Blocking{{0, 64, 16}, 1}, 2000.0, KernelVariant::blocked},  // another kernel: not counted
                {Blocking{{0, 64, 16}, 1}, 3100.0, KernelVariant::columns},
                {Blocking{{0, 64, 16}, 1}, 2500.0, KernelVariant::columns}};
  write_tuning_cache(file, key, o);
  const auto read = read_tuning_cache(file, key);
  ASSERT_TRUE(read.has_value());
  ASSERT_TRUE(read->mpoints_per_second.has_value());
  EXPECT_DOUBLE_EQ(*read->mpoints_per_second, 3000.0);
  o.measured.clear();  // an entry without the measurements: no rate to compare with
  write_tuning_cache(file, key, o);
  EXPECT_FALSE(read_tuning_cache(file, key)->mpoints_per_second.has_value());
}

TEST_F(TuningCacheFile, StoresReadsAndKeepsOtherEntries) {
  TuningKey a{"cpu", 2, "blocked", 8, "single", {64, 64, 64}, true, false};
  TuningKey b = a;
  b.threads = 4;
  EXPECT_FALSE(read_tuning_cache(file, a).has_value());  // no file yet
  write_tuning_cache(file, a, outcome_with({0, 16, 16}, 1));
  write_tuning_cache(file, b, outcome_with({0, 8, 64}, 3));
  write_tuning_cache(file, a, outcome_with({0, 32, 8}, 1));  // replaces a's entry
  const auto ra = read_tuning_cache(file, a);
  const auto rb = read_tuning_cache(file, b);
  ASSERT_TRUE(ra && rb);
  EXPECT_EQ(ra->blocking.size, (Index3{0, 32, 8}));
  EXPECT_EQ(rb->blocking.size, (Index3{0, 8, 64}));
  EXPECT_EQ(rb->blocking.steps, 3);
  TuningKey other = a;
  other.subdomain = {64, 64, 32};
  EXPECT_FALSE(read_tuning_cache(file, other).has_value());
  // Block sizes measured for sweeps of 3 steps are not the answer for sweeps of 2.
  TuningKey given_steps = a;
  given_steps.sweep_steps = 2;
  EXPECT_FALSE(read_tuning_cache(file, given_steps).has_value());
  // Nor is a subdomain without neighbours one of the same extent whose sweeps compute deep halos.
  TuningKey cut_along_z = a;
  cut_along_z.neighbour_faces = {0, 0, 1};
  EXPECT_FALSE(read_tuning_cache(file, cut_along_z).has_value());
  write_tuning_cache(file, cut_along_z, outcome_with({0, 64, 16}, 2));
  const auto rz = read_tuning_cache(file, cut_along_z);
  ASSERT_TRUE(rz.has_value());
  EXPECT_EQ(rz->blocking.size, (Index3{0, 64, 16}));
  EXPECT_EQ(read_tuning_cache(file, a)->blocking.size, (Index3{0, 32, 8}));
}

// The prefetch distance is part of the choice kept, and a distance given is part of the key: a
// search that measured the distance does not answer a run that gives one, nor the other way round.
TEST_F(TuningCacheFile, KeepsThePrefetchDistanceAndKeysOnAGivenOne) {
  TuningKey searched{"cpu", 2, "columns", 8, "single", {64, 64, 64}, true, false};
  TuningOutcome o = outcome_with({0, 64, 16}, 1);
  o.blocking.prefetch_rows = 3;
  o.measured.push_back({o.blocking, 150.0, KernelVariant::columns});
  o.variant = KernelVariant::columns;
  write_tuning_cache(file, searched, o);
  const auto read = read_tuning_cache(file, searched);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->blocking.prefetch_rows, 3);
  EXPECT_EQ(read->mpoints_per_second, 150.0);  // its own measurement, not the rule's distance's
  TuningKey given = searched;
  given.prefetch_rows = 3;
  EXPECT_FALSE(read_tuning_cache(file, given).has_value());
  std::ifstream in(file);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["entries"][0]["key"]["prefetch_rows"], "auto");
  EXPECT_EQ(doc["entries"][0]["blocking"]["prefetch_rows"], 3);
}

TEST_F(TuningCacheFile, AnEntryCutShortByASmallerBudgetDoesNotAnswerALongerSearch) {
  const TuningKey a{"cpu", 2, "columns", 8, "single", {256, 256, 256}, true, true, 4};
  TuningOutcome short_search = outcome_with({0, 16, 16}, 1);
  short_search.budget_seconds = 0.05;
  short_search.budget_spent = true;  // candidates were skipped
  write_tuning_cache(file, a, short_search);
  EXPECT_TRUE(read_tuning_cache(file, a).has_value());             // a run's few percent: good enough
  EXPECT_TRUE(read_tuning_cache(file, a, 0.05).has_value());       // the same budget
  EXPECT_TRUE(read_tuning_cache(file, a, 0.06).has_value());       // within kCutShortTolerance of it
  EXPECT_FALSE(read_tuning_cache(file, a, 0.07).has_value());      // a run's longer share: measured again
  EXPECT_FALSE(read_tuning_cache(file, a, 10.0).has_value());      // wave3d tune / bench: measured again
  TuningOutcome whole_search = outcome_with({0, 32, 16}, 2);
  whole_search.budget_seconds = 0.05;  // every candidate measured within it
  write_tuning_cache(file, a, whole_search);
  const auto read = read_tuning_cache(file, a, 10.0);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->blocking.size, (Index3{0, 32, 16}));
  EXPECT_EQ(read->blocking.steps, 2);
}

TEST(TuningBudgetRequest, FixedSecondsOrAShareOfTheRun) {
  TuningRequest request;
  const TuningBudget share = TuningBudget::for_request(request, 1e11);
  EXPECT_EQ(share.fixed_seconds(), 0.0);
  EXPECT_EQ(share.run_point_updates, 1e11);
  EXPECT_NEAR(share.seconds_for(1000.0), 3.0, 1e-12);        // 3 % of a 100 s run
  EXPECT_EQ(share.seconds_for(1e6), share.floor_seconds);  // of a 0.1 s run: the floor
  request.seconds = 10;
  const TuningBudget fixed = TuningBudget::for_request(request, 1e9);
  EXPECT_EQ(fixed.fixed_seconds(), 10.0);
  EXPECT_EQ(fixed.seconds_for(1000.0), 10.0);
  EXPECT_EQ(fixed.seconds_for(1e-3), 10.0);
}

TEST_F(TuningCacheFile, KeepsTheKernelTheTunerChose) {
  const TuningKey a{"cpu", 2, "auto", 2, "single", {64, 64, 64}, true, false};
  TuningOutcome o = outcome_with({0, 16, 16}, 1);
  o.variant = KernelVariant::columns;
  write_tuning_cache(file, a, o);
  const auto read = read_tuning_cache(file, a);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->variant, KernelVariant::columns);
  o.variant = KernelVariant::blocked;
  write_tuning_cache(file, a, o);
  EXPECT_EQ(read_tuning_cache(file, a)->variant, KernelVariant::blocked);
}

TEST_F(TuningCacheFile, ACorruptFileReadsAsEmptyAndIsRewritten) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << "{ not json";
  const TuningKey a{"cpu", 2, "blocked", 8, "single", {64, 64, 64}, true, false};
  EXPECT_FALSE(read_tuning_cache(file, a).has_value());
  write_tuning_cache(file, a, outcome_with({0, 16, 16}, 1));
  EXPECT_TRUE(read_tuning_cache(file, a).has_value());
}

TEST(TuningCachePath, FollowsTheSetting) {
  EXPECT_FALSE(tuning_cache_path("off").has_value());
  EXPECT_EQ(tuning_cache_path("/x/y.json"), std::filesystem::path("/x/y.json"));
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
  EXPECT_EQ(tuning_cache_path(""), std::filesystem::path("/tmp/xdg-test/wave3d/blocking.json"));
  ::unsetenv("XDG_CACHE_HOME");
}

}  // namespace
}  // namespace wave3d
