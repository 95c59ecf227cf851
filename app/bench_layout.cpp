#include "app/bench_layout.hpp"

#include <fmt/format.h>

#include "app/bench_options.hpp"
#include "probe/stream.hpp"

namespace wave3d::app {

LayoutComparison compare_layouts(const BenchCase& across_ranks, const BenchCase& in_one_rank) {
  LayoutComparison layout;
  layout.ranks = across_ranks.ranks;
  layout.process_grid = across_ranks.process_grid;
  layout.steps_requested = across_ranks.steps_requested;
  layout.round = across_ranks.round;
  layout.steps_across_ranks = across_ranks.steps_per_sweep;
  layout.steps_in_one_rank = in_one_rank.steps_per_sweep;
  layout.throughput_ratio = across_ranks.stencil_mpoints.median / in_one_rank.stencil_mpoints.median;
  layout.bound_fraction_ratio =
      across_ranks.fraction_of_bandwidth_bound() / in_one_rank.fraction_of_bandwidth_bound();
  layout.triad_across_ranks_gbytes = across_ranks.triad_gbytes.median;
  layout.triad_in_one_rank_gbytes = in_one_rank.triad_gbytes.median;
  layout.triads_agree = bandwidths_agree(in_one_rank.triad_gbytes.median, across_ranks.triad_gbytes.median);
  layout.halo_exposed_fraction = across_ranks.halo_exposed_fraction;
  return layout;
}

std::string bound_ratio_text(const LayoutComparison& layout) {
  std::string text = fmt::format(
      "        against each layout's own bandwidth bound: {:.3f} (triad {:.2f} GB/s before the {} ranks, {:.2f} "
      "GB/s before the {} threads)",
      layout.bound_fraction_ratio, layout.triad_across_ranks_gbytes, layout.ranks, layout.triad_in_one_rank_gbytes,
      layout.ranks);
  if (!layout.triads_agree)
    text += "; the triads differ by more than 10 %: the memory's pace moved between the cases, or the layouts draw "
            "different bandwidth from it; the throughput ratio includes that difference, this one does not";
  return text;
}

nlohmann::json to_json(const LayoutComparison& layout) {
  return {{"ranks", layout.ranks},
          {"process_grid", layout.process_grid},
          {"steps_per_sweep_requested", sweep_steps_json(layout.steps_requested)},
          {"round", layout.round},
          {"steps_per_sweep_across_ranks", layout.steps_across_ranks},
          {"steps_per_sweep_in_one_rank", layout.steps_in_one_rank},
          {"throughput_ratio", layout.throughput_ratio},
          {"bound_fraction_ratio", layout.bound_fraction_ratio},
          {"triad_across_ranks_gbytes_per_second", layout.triad_across_ranks_gbytes},
          {"triad_in_one_rank_gbytes_per_second", layout.triad_in_one_rank_gbytes},
          {"triads_agree", layout.triads_agree},
          {"halo_exposed_fraction",
           layout.halo_exposed_fraction ? nlohmann::json(*layout.halo_exposed_fraction) : nlohmann::json(nullptr)}};
}

}  // namespace wave3d::app
