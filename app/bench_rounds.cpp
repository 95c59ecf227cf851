#include "app/bench_rounds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "app/bench_options.hpp"
#include "config/enum_names.hpp"

namespace wave3d::app {
namespace {

std::string spread_text(const Spread& s, int decimals) {
  return fmt::format("{:.{}f} ({:.{}f}-{:.{}f})", s.median, decimals, s.min, decimals, s.max, decimals);
}

// The spread of one value taken from the same entry of every round.
template <typename Round, typename Value>
Spread over(const std::vector<Round>& rounds, std::size_t entry, Value value) {
  std::vector<double> values;
  for (const Round& round : rounds) values.push_back(value(round.at(entry)));
  return spread_of(std::move(values));
}

// The spread of an optional value of every round's case `entry`, where every round has it.
template <typename Value>
std::optional<Spread> over_where_measured(const std::vector<std::vector<BenchCase>>& rounds, std::size_t entry,
                                          Value value) {
  const bool everywhere = std::all_of(rounds.begin(), rounds.end(),
                                      [&](const auto& round) { return value(round.at(entry)).has_value(); });
  if (!everywhere) return std::nullopt;
  return over(rounds, entry, [&](const BenchCase& b) { return *value(b); });
}

nlohmann::json optional_spread_json(const std::optional<Spread>& s) { return s ? spread_json(*s) : nlohmann::json(nullptr); }

void check_alike(std::size_t first_size, std::size_t size) {
  if (size != first_size) throw std::logic_error("bench: rounds with different numbers of cases");
}

}  // namespace

std::vector<BenchCaseSpec> bench_case_specs(const std::vector<int>& sweep_steps, const std::vector<int>& thread_counts,
                                            bool several_ranks) {
  std::vector<BenchCaseSpec> specs;
  for (int steps : sweep_steps)
    for (int threads : thread_counts) specs.push_back({steps, threads, false});
  if (several_ranks)
    for (int steps : sweep_steps) specs.push_back({steps, 1, true});
  return specs;
}

std::vector<std::size_t> round_order(std::size_t count, int round) {
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (round % 2 == 1) std::reverse(order.begin(), order.end());
  return order;
}

RunConfig as_in_first_round(RunConfig config, const BenchCase& first_round) {
  const std::optional<KernelChoice> kernel = enum_from_name<KernelChoice>(first_round.kernel);
  if (!kernel) throw std::logic_error("bench: round 1 ran an unknown kernel " + first_round.kernel);
  config.kernel = *kernel;
  config.blocking.size = first_round.blocks;
  if (first_round.prefetch_rows) config.blocking.prefetch_rows = *first_round.prefetch_rows;
  config.blocking.steps = first_round.steps_per_sweep;
  config.tune.size = config.tune.steps = config.tune.prefetch = false;
  if (first_round.ranks > 1 && first_round.steps_per_sweep > 1) config.parallel.temporal_halo = first_round.temporal_halo;
  return config;
}

void compare_within_round(BenchCase& c, const std::vector<BenchCase>& others) {
  if (c.ranks == 1 && c.threads_per_rank == 1) {
    c.compare_with_one_thread(c);  // 1.00: the row of the reference says so too
    return;
  }
  for (const BenchCase& one : others)
    if (one.ranks == 1 && one.threads_per_rank == 1 && one.steps_requested == c.steps_requested) {
      c.compare_with_one_thread(one);
      return;
    }
}

std::optional<LayoutComparison> layout_within_round(const BenchCase& all_ranks, const std::vector<BenchCase>& others) {
  for (const BenchCase& c : others)
    if (c.ranks == 1 && c.threads_per_rank == all_ranks.ranks && c.steps_requested == all_ranks.steps_requested)
      return compare_layouts(all_ranks, c);
  return std::nullopt;
}

std::vector<CaseOverRounds> cases_over_rounds(const std::vector<std::vector<BenchCase>>& rounds) {
  std::vector<CaseOverRounds> out;
  if (rounds.empty()) return out;
  for (const auto& round : rounds) check_alike(rounds.front().size(), round.size());
  for (std::size_t k = 0; k < rounds.front().size(); ++k) {
    const BenchCase& first = rounds.front()[k];
    CaseOverRounds c;
    c.ranks = first.ranks;
    c.threads_per_rank = first.threads_per_rank;
    c.steps_requested = first.steps_requested;
    c.mpoints = over(rounds, k, [](const BenchCase& b) { return b.stencil_mpoints.median; });
    c.fraction_of_bound = over(rounds, k, [](const BenchCase& b) { return b.fraction_of_bandwidth_bound(); });
    // A speed-up over the rounds only where every round has one (the same cases ran in each).
    c.speedup = over_where_measured(rounds, k, [](const BenchCase& b) { return b.speedup; });
    c.triad_speedup = over_where_measured(rounds, k, [](const BenchCase& b) { return b.triad_speedup; });
    c.in_cache_mpoints = over_where_measured(rounds, k, [](const BenchCase& b) { return b.cache_resident_mpoints(); });
    c.in_cache_fraction_of_bound =
        over_where_measured(rounds, k, [](const BenchCase& b) { return b.cache_resident_fraction_of_bound(); });
    c.later_levels_mpoints = over_where_measured(rounds, k, [](const BenchCase& b) { return b.later_levels_mpoints(); });
    c.later_levels_fraction_of_bound =
        over_where_measured(rounds, k, [](const BenchCase& b) { return b.later_levels_fraction_of_bound(); });
    out.push_back(c);
  }
  return out;
}

std::vector<LayoutOverRounds> layouts_over_rounds(const std::vector<std::vector<LayoutComparison>>& rounds) {
  std::vector<LayoutOverRounds> out;
  if (rounds.empty()) return out;
  for (const auto& round : rounds) check_alike(rounds.front().size(), round.size());
  for (std::size_t k = 0; k < rounds.front().size(); ++k) {
    LayoutOverRounds l;
    l.ranks = rounds.front()[k].ranks;
    l.steps_requested = rounds.front()[k].steps_requested;
    l.throughput_ratio = over(rounds, k, [](const LayoutComparison& c) { return c.throughput_ratio; });
    l.bound_fraction_ratio = over(rounds, k, [](const LayoutComparison& c) { return c.bound_fraction_ratio; });
    out.push_back(l);
  }
  return out;
}

std::string over_rounds_text(int rounds, const std::vector<CaseOverRounds>& cases,
                             const std::vector<LayoutOverRounds>& layouts) {
  std::string text = fmt::format(
      "\nover {} rounds (the median of the rounds' values; in parentheses the least and the largest):\n", rounds);
  for (const CaseOverRounds& c : cases) {
    text += fmt::format("{:>5} x {:<3} T = {:<4} {} MPoints/s, {} of the bw bound", c.ranks, c.threads_per_rank,
                        sweep_steps_text(c.steps_requested), spread_text(c.mpoints, 1),
                        spread_text(c.fraction_of_bound, 3));
    if (c.speedup)
      text += fmt::format(", speedup {} (the triad's {})", spread_text(*c.speedup, 2), spread_text(*c.triad_speedup, 2));
    text += "\n";
    if (c.in_cache_mpoints)
      text += fmt::format("{:>21}in cache: {} MPoints/s, {} of the bw bound\n", "", spread_text(*c.in_cache_mpoints, 1),
                          spread_text(*c.in_cache_fraction_of_bound, 3));
    if (c.later_levels_mpoints)
      text += fmt::format("{:>21}levels after the first: {} MPoints/s, {} of the bw bound\n", "",
                          spread_text(*c.later_levels_mpoints, 1), spread_text(*c.later_levels_fraction_of_bound, 3));
  }
  for (const LayoutOverRounds& l : layouts)
    text += fmt::format("layout at T = {}: {} ranks x 1 thread reach {} x the throughput of 1 rank x {} threads; "
                        "against each layout's own bandwidth bound {}\n",
                        sweep_steps_text(l.steps_requested), l.ranks, spread_text(l.throughput_ratio, 3), l.ranks,
                        spread_text(l.bound_fraction_ratio, 3));
  return text;
}

nlohmann::json over_rounds_json(const std::vector<CaseOverRounds>& cases, const std::vector<LayoutOverRounds>& layouts) {
  nlohmann::json out = {{"cases", nlohmann::json::array()}, {"layouts", nlohmann::json::array()}};
  for (const CaseOverRounds& c : cases)
    out["cases"].push_back({{"ranks", c.ranks},
                            {"threads_per_rank", c.threads_per_rank},
                            {"steps_per_sweep_requested", sweep_steps_json(c.steps_requested)},
                            {"stencil_mpoints_per_second", spread_json(c.mpoints)},
                            {"fraction_of_bandwidth_bound", spread_json(c.fraction_of_bound)},
                            {"speedup", optional_spread_json(c.speedup)},
                            {"triad_speedup", optional_spread_json(c.triad_speedup)},
                            {"cache_resident_mpoints_per_second", optional_spread_json(c.in_cache_mpoints)},
                            {"cache_resident_fraction_of_bandwidth_bound", optional_spread_json(c.in_cache_fraction_of_bound)},
                            {"later_levels_mpoints_per_second", optional_spread_json(c.later_levels_mpoints)},
                            {"later_levels_fraction_of_bandwidth_bound",
                             optional_spread_json(c.later_levels_fraction_of_bound)}});
  for (const LayoutOverRounds& l : layouts)
    out["layouts"].push_back({{"ranks", l.ranks},
                              {"steps_per_sweep_requested", sweep_steps_json(l.steps_requested)},
                              {"throughput_ratio", spread_json(l.throughput_ratio)},
                              {"bound_fraction_ratio", spread_json(l.bound_fraction_ratio)}});
  return out;
}

}  // namespace wave3d::app
