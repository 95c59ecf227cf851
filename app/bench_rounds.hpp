#pragma once
// bench --rounds N: every case measured N times, in the first round's order in every even round and in
// reverse in every odd one (A B C, C B A, A B C, ...), so that a drift of the machine's pace over the
// bench weighs on the cases alike. What compares two cases (a speed-up, ranks against threads) is
// taken within a round, from cases measured one after the other, never across rounds; over the
// rounds each figure is given as the median and range of its per-round values. On a shared or
// virtual node whose memory changes pace by tens of percent within a minute, one round's ratio is
// one sample. What the block tuner chose for a case in the first round, the later rounds run again
// (as_in_first_round): a median over rounds is then one configuration's, and the rounds are not
// tuned again.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/bench_layout.hpp"
#include "app/bench_measure.hpp"

namespace wave3d::app {

// One case of a round: one rank with `threads` threads, or all ranks with one thread each, at a
// --sweep-steps entry.
struct BenchCaseSpec {
  int steps_requested = 1;
  int threads = 1;
  bool all_ranks = false;
};

// The cases of a round in the first round's order: each --sweep-steps entry with every thread count
// on one rank, then, with several ranks, each entry on all of them.
std::vector<BenchCaseSpec> bench_case_specs(const std::vector<int>& sweep_steps, const std::vector<int>& thread_counts,
                                            bool several_ranks);

// The order in which round `round` (0-based) measures `count` cases: as listed in even rounds,
// reversed in odd ones.
std::vector<std::size_t> round_order(std::size_t count, int round);

// The config of a later round's case: what round 1's case of the same spec ran (kernel, blocks,
// prefetch distance, T and, across ranks, the temporal halo) given instead of tuned again, so that
// every round measures the same code; `config` is the bench's for that spec.
RunConfig as_in_first_round(RunConfig config, const BenchCase& first_round);
// The line under a later round's row that says so.
inline constexpr const char* kAsInFirstRound = "as chosen in round 1, not tuned again";

// Sets c's speed-up against the case of 1 rank x 1 thread at its --sweep-steps entry among `others`
// (cases of c's round), where there is one; that case's own is 1.
void compare_within_round(BenchCase& c, const std::vector<BenchCase>& others);

// A case of all ranks against the case of 1 rank x as many threads at its --sweep-steps entry among
// `others` (cases of its round); nullopt where there is none.
std::optional<LayoutComparison> layout_within_round(const BenchCase& all_ranks, const std::vector<BenchCase>& others);

// A case's figures over the rounds: the median, least and largest of the rounds' values.
struct CaseOverRounds {
  int ranks = 1, threads_per_rank = 1, steps_requested = 1;
  Spread mpoints;            // of each round's median MPoints/s
  Spread fraction_of_bound;  // each round's median against the bandwidth bound of its own triad
  std::optional<Spread> speedup;
  std::optional<Spread> triad_speedup;  // the triad's beside it: how much of the speed-up the memory allowed
  // The in-cache rate and, with T > 1, the later levels' rate (what deeper sweeps approach), each with
  // its fraction of the round's bandwidth bound: where every round measured them.
  std::optional<Spread> in_cache_mpoints, in_cache_fraction_of_bound;
  std::optional<Spread> later_levels_mpoints, later_levels_fraction_of_bound;
};

// A layout comparison's figures over the rounds.
struct LayoutOverRounds {
  int ranks = 1, steps_requested = 1;
  Spread throughput_ratio, bound_fraction_ratio;
};

// rounds[r]: the cases of round r, in the same order in every round (bench_case_specs').
std::vector<CaseOverRounds> cases_over_rounds(const std::vector<std::vector<BenchCase>>& rounds);
// rounds[r]: the layout comparisons of round r, in the same order in every round.
std::vector<LayoutOverRounds> layouts_over_rounds(const std::vector<std::vector<LayoutComparison>>& rounds);

// The lines bench prints after the last of several rounds.
std::string over_rounds_text(int rounds, const std::vector<CaseOverRounds>& cases,
                             const std::vector<LayoutOverRounds>& layouts);
nlohmann::json over_rounds_json(const std::vector<CaseOverRounds>& cases, const std::vector<LayoutOverRounds>& layouts);

}  // namespace wave3d::app
