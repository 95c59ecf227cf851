// The block tuner on ranks whose subdomains differ in size, as uneven decompositions give them, and
// whose thread counts differ, as nodes with different numbers of ranks give them: every
// rank must measure the same candidates at the same rates, spend the same budget and choose alike,
// also where it checks a cached choice, or the collectives inside the search part ways between ranks.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <string>

#include <fmt/format.h>

#include "engine/blocking_tuning.hpp"
#include "mpi/collective.hpp"
#include "mpi_test_support.hpp"

namespace wave3d::engine {
namespace {

using mpi::testing::agree_nobody_failed;
using mpi::testing::SharedTempDir;
using mpi::testing::world_rank;

RunConfig tuned_config(const std::string& cache) {
  RunConfig c;
  c.grid = Grid{{48, 40, 24}, 10.0, Boundary::zero, 2};
  c.blocking = Blocking{{0, 64, 16}};
  c.tune.size = true;
  c.tune.cache = cache;
  return c;
}

// Rank r owns 20 + 3r planes along x: every rank a different number of points.
Box unequal_subdomain(int rank) { return Box{{0, 0, 0}, {20 + 3 * rank, 40, 24}}; }

// Ranks on nodes with fewer ranks may run more threads: here odd ranks run 4 and even ranks 1 while
// the object lives, so that a candidate of too few blocks for 4 threads is one for 1.
class UnequalThreads {
 public:
  explicit UnequalThreads(int rank) : before_(omp_get_max_threads()) { omp_set_num_threads(rank % 2 == 1 ? 4 : 1); }
  ~UnequalThreads() { omp_set_num_threads(before_); }
  UnequalThreads(const UnequalThreads&) = delete;
  UnequalThreads& operator=(const UnequalThreads&) = delete;

 private:
  int before_;
};

// A run whose share of the budget differs per rank too, above the budget's floor on every rank, and
// long enough (up to 2 s) for several candidates also under the sanitizers, whose first candidate
// alone took the 0.5 s this cap was once.
TuningBudget unequal_budget(int rank) {
  TuningBudget budget;
  budget.run_point_updates = 2e10 * (1 + rank);
  budget.cap_seconds = 2;
  return budget;
}

// Everything about an outcome the ranks must agree on, rates to the last bit.
std::string fingerprint(const TunedBlocking& t) {
  std::string s = fmt::format("source {} kernel {} blocks {},{},{} budget {:a} spent {:a}", t.source,
                              static_cast<int>(t.variant), t.blocking.size[0], t.blocking.size[1], t.blocking.size[2],
                              t.measured.budget_seconds, t.measured.seconds);
  for (const TuningMeasurement& m : t.measured.measured)
    s += fmt::format("; {},{},{} x{} {:a}", m.blocking.size[0], m.blocking.size[1], m.blocking.size[2],
                     m.blocking.steps, m.mpoints_per_second);
  if (t.cached_rate_now) s += fmt::format("; cached rate now {:a}", *t.cached_rate_now);
  return s;
}

// Fails on every rank unless every rank's fingerprint equals rank 0's.
void expect_alike_on_all_ranks(const TunedBlocking& t, const std::string& what) {
  const std::string mine = fingerprint(t);
  const std::string first = mpi::broadcast_string(MPI_COMM_WORLD, mine, 0);
  std::optional<std::string> error;
  if (mine != first) error = what + " differs from rank 0's:\n  rank 0: " + first + "\n  here:   " + mine;
  agree_nobody_failed(MPI_COMM_WORLD, error);
}

TEST(TuningAgreement, RanksWithUnequalSubdomainsAndThreadsMeasureAndChooseAlike) {
  const int rank = world_rank();
  const UnequalThreads threads(rank);
  const TunedBlocking t = tune_for_run<float>(tuned_config("off"), MPI_COMM_WORLD, unequal_subdomain(rank),
                                              NeighbourFaces{1, 0, 0}, 1, unequal_budget(rank), true);
  EXPECT_EQ(t.source, "measured");
  EXPECT_GT(t.measured.measured.size(), 1u);
  expect_alike_on_all_ranks(t, "the search");
}

TEST(TuningAgreement, RanksCheckACachedChoiceAlike) {
  const SharedTempDir dir(MPI_COMM_WORLD);
  const RunConfig config = tuned_config((dir.path() / "blocking.json").string());
  const int rank = world_rank();
  const TunedBlocking first = tune_for_run<float>(config, MPI_COMM_WORLD, unequal_subdomain(rank),
                                                  NeighbourFaces{1, 0, 0}, 1, TuningBudget::fixed(0.2), true);
  expect_alike_on_all_ranks(first, "the search");
  // The cached choice is timed again on every rank before it is used (or measured again where the
  // machine now runs it faster): the rank's own decision, which must be every rank's.
  const TunedBlocking again = tune_for_run<float>(config, MPI_COMM_WORLD, unequal_subdomain(rank),
                                                  NeighbourFaces{1, 0, 0}, 1, TuningBudget::fixed(0.2), false);
  EXPECT_TRUE(again.cached_rate_now.has_value());
  expect_alike_on_all_ranks(again, "the check of the cached choice");
}

}  // namespace
}  // namespace wave3d::engine
