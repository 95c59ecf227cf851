#pragma once
// Ranks or threads: P ranks x 1 thread against 1 rank x P threads on the same grid at the same
// --sweep-steps entry, as bench prints and writes it.
//
// Why two ratios: each case measures its own triad just before its stencil. On a shared or virtual
// node the memory's pace can move between the two cases by tens of percent, and the layouts may draw
// different bandwidth from it (on a 2-core AMD EPYC VM, two processes' triads added up to 1.15-1.25x
// the triad of two threads of one process, each measured alone). The ratio of the throughputs
// includes either difference; the ratio of each case's fraction of its own bandwidth bound does not.
// Where the two triads agree (within 10 %, as the before/after check of a case) the two ratios tell
// the same; where they do not, bench says so and names both triads.
#include <array>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "app/bench_measure.hpp"

namespace wave3d::app {

struct LayoutComparison {
  int ranks = 1;                      // P
  std::array<int, 3> process_grid{1, 1, 1};
  int steps_requested = 1;            // the --sweep-steps entry (kTunedSweepSteps: auto)
  int round = 1;                      // the bench round both cases ran in, from 1
  int steps_across_ranks = 1;         // the T each layout ran (with auto, the tuner's for each)
  int steps_in_one_rank = 1;
  double throughput_ratio = 0;        // P x 1 median MPoints/s / 1 x P median
  double bound_fraction_ratio = 0;    // P x 1 fraction of its bandwidth bound / 1 x P fraction of its own
  double triad_across_ranks_gbytes = 0;  // median triad just before each case
  double triad_in_one_rank_gbytes = 0;
  bool triads_agree = true;
  std::optional<double> halo_exposed_fraction;  // of the ranks' case
};

// across_ranks: the case of P ranks x 1 thread; in_one_rank: 1 rank x P threads at the same entry.
LayoutComparison compare_layouts(const BenchCase& across_ranks, const BenchCase& in_one_rank);

// The line under the layout line that gives the ratio against each case's own bound and both triads,
// and, where the triads disagree, what that means for the first ratio.
std::string bound_ratio_text(const LayoutComparison& layout);

nlohmann::json to_json(const LayoutComparison& layout);

}  // namespace wave3d::app
