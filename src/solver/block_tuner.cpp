#include "solver/block_tuner.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

#include "field/first_touch.hpp"
#include "runtime/statistics.hpp"
#include "solver/temporal_sweep.hpp"
#include "solver/wave_solver.hpp"
#include "stencil/block_loop.hpp"
#include "stencil/coefficients.hpp"
#include "stencil/folded_kernel.hpp"
#include "stencil/kernel.hpp"

namespace wave3d {
namespace {

// Whole rows with a few y and z extents: on the machines measured so far the winners were of this
// shape (rows cut along x lost 10-30 %), and small y blocks with deep z ones keep the planes a
// point reads in L2.
constexpr Index3 kPreferredRowSizes[] = {{0, 16, 16}, {0, 8, 64}, {0, 8, 32}, {0, 32, 16}, {0, 16, 32},
                                         {0, 8, 16},  {0, 64, 16}, {0, 4, 64}, {0, 32, 32}, {0, 16, 8},
                                         {0, 64, 8},  {0, 128, 8}};
// The z-column kernel marches each slab of rows along z in short blocks (z blocks innermost): a
// column's y neighbours stay in L1 for the next column only while its blocks are few planes deep,
// and the planes below a block are still in L2 from the block before. On AMD Zen 4 the winners were
// whole rows, 16-32 rows, 16 planes; blocks a cache line or two wide ran about 1.2x slower. On AMD
// Zen 5 with 2 threads and the memory at 70-75 GB/s, 64 and 128 rows of a 256^3 grid (R = 8,
// 2720-2780 MPoints/s) beat 32 (2580), and blocks 32 planes deep ran about half as fast as 16
// (1380-1470 against 2560-2660 in wave3d tune), so those come last: a run's short budget may end
// before them.
constexpr Index3 kPreferredColumnSizes[] = {{0, 16, 16}, {0, 64, 16}, {0, 32, 16},   {0, 128, 16}, {0, 8, 16},
                                            {0, 32, 8},  {0, 16, 8},  {128, 16, 16}, {0, 16, 32},  {0, 8, 32},
                                            {16, 8, 32}, {32, 8, 32}, {0, 4, 32}};

// The folded kernel walks whole rows of x, each thread its share of the z folds in blocks of y and z
// folds (4 rows x 4 planes each in single precision). On the Intel Xeon VM (R = 8, 256^3, 2 threads)
// 16 rows x 64 planes ran 1230 MPoints/s, 32 x 32 1216, 64 x 16 1201.
constexpr Index3 kPreferredFoldedSizes[] = {{0, 16, 64}, {0, 32, 32}, {0, 64, 16}, {0, 16, 32}, {0, 8, 64},
                                            {0, 32, 64}, {0, 16, 128}, {0, 64, 64}, {0, 8, 128}, {0, 0, 16}};

// Scratch fields shaped like the subdomain, with the fields' layout and pages (transparent huge pages
// where the run asks for them: the z columns touch dozens of planes at once, and on base pages the
// TLB misses ranked the blocks differently, R = 8 on 2 threads measuring 2300-2600 MPoints/s where
// the run's fields gave 3100), zero initial values (no denormals) and a velocity that keeps them zero.
// The folded kernel's are the same in its layout, made when it is first measured.
template <typename T>
struct ScratchFields {
  struct Folded {
    FoldedField<T> prev, next, vel;
  };
  Box owned;
  int radius;
  bool huge_pages;
  Field<T> prev, next, vel;
  std::optional<Folded> folded;
  ScratchFields(const Box& subdomain, int stencil_radius, std::int64_t planes, bool use_huge_pages)
      : owned{subdomain.lo, {subdomain.hi[0], subdomain.hi[1], subdomain.lo[2] + std::min(subdomain.extent(2), planes)}},
        radius(stencil_radius),
        huge_pages(use_huge_pages),
        prev(owned, radius, huge_pages),
        next(owned, radius, huge_pages),
        vel(owned, radius, huge_pages) {
    for (Field<T>* f : {&prev, &next, &vel}) first_touch(*f, InitPolicy::first_touch, Blocking{});
  }
  Folded& folded_fields() {
    if (!folded) {
      const auto level = [&] { return FoldedField<T>(owned, radius, huge_pages); };
      folded.emplace(Folded{level(), level(), level()});
      for (FoldedField<T>* f : {&folded->prev, &folded->next, &folded->vel}) f->first_touch(InitPolicy::first_touch, owned);
    }
    return *folded;
  }
};

// The subdomain the scratch fields take the shape of: the agreed extent (the largest over ranks) from
// the owned box's corner. Every rank then times the same number of points, so the rates, and with
// them every choice the search makes, come out alike on all ranks: a rate of its own subdomain's
// points would let one rank's budget, trial or re-tuning differ from another's, and their
// collectives with it.
Box scratch_subdomain(const Box& owned, const Index3& agreed_extent) {
  return {owned.lo, {owned.lo[0] + agreed_extent[0], owned.lo[1] + agreed_extent[1], owned.lo[2] + agreed_extent[2]}};
}

// The planes of the scratch fields: kScratchPlanes, or enough for the three to hold scratch_bytes.
template <typename T>
std::int64_t scratch_planes(const Box& owned, double scratch_bytes) {
  const double plane_bytes = 3.0 * sizeof(T) * static_cast<double>(owned.extent(0) * owned.extent(1));
  return std::max(kScratchPlanes, static_cast<std::int64_t>(std::ceil(scratch_bytes / plane_bytes)));
}

// How the search counts the points of a sweep of `steps` (see the header): the deep halos it computes
// are cost, not progress, unless the sweeps meet the neighbours by split tiling.
double search_overhead(const RunConfig& config, const Index3& agreed_extent, const NeighbourFaces& neighbour_faces,
                       int steps) {
  if (trial_halos(config.parallel.temporal_halo).front() == TemporalHalo::split) return 1.0;
  return deep_halo_overhead(agreed_extent, neighbour_faces, steps, config.grid.radius);
}

// The rate a search scores `sweeps` sweeps of `steps` levels over `region` at, in `seconds`: MPoints/s
// of the points owned, the redundant ones (search_overhead) counted as cost.
double scored_rate(const Box& region, int steps, int sweeps, double seconds, double overhead) {
  return static_cast<double>(region.volume()) * steps * sweeps / seconds / 1e6 / overhead;
}

// One sweep of `blocking` over the scratch region (blocking.steps time levels); returns its seconds.
template <typename T>
double time_sweep(ScratchFields<T>& s, const Kernel<T>& kernel, const Blocking& blocking) {
  const auto sweep = [&](auto& prev, auto& next, const auto& vel) {
    const double start = omp_get_wtime();
    if (blocking.steps > 1) {
      sweep_levels(kernel, prev, next, vel, LevelBoxes::fixed(s.owned), blocking.steps,
                   blocking.effective(1, s.owned.extent(1)), {});
    } else {
      kernel.update(prev, next, vel, s.owned);
      using std::swap;
      swap(prev, next);
    }
    return omp_get_wtime() - start;
  };
  if (kernel.variant() == KernelVariant::folded) {
    typename ScratchFields<T>::Folded& f = s.folded_fields();
    return sweep(f.prev, f.next, f.vel);
  }
  return sweep(s.prev, s.next, s.vel);
}

}  // namespace

TuningBudget TuningBudget::for_request(const TuningRequest& request, double run_point_updates) {
  TuningBudget budget = request.seconds > 0 ? fixed(request.seconds) : TuningBudget{};
  budget.run_point_updates = run_point_updates;
  return budget;
}

std::size_t TuningOutcome::candidates() const {
  std::set<CandidateKey> distinct;
  for (const TuningMeasurement& m : measured) distinct.insert(candidate_key(m.variant, m.blocking));
  return distinct.size();
}

std::optional<TuningMeasurement> TuningOutcome::best_with(bool several_steps) const {
  return best_where([several_steps](int steps) { return (steps > 1) == several_steps; });
}

std::optional<TuningMeasurement> TuningOutcome::best_with_steps(int steps_per_sweep) const {
  return best_where([steps_per_sweep](int steps) { return steps == steps_per_sweep; });
}

std::optional<TuningMeasurement> TuningOutcome::best_where(const std::function<bool(int)>& steps_wanted) const {
  std::map<CandidateKey, std::vector<double>> rates;
  for (const TuningMeasurement& m : measured) rates[candidate_key(m.variant, m.blocking)].push_back(m.mpoints_per_second);
  std::optional<TuningMeasurement> best;
  double best_rate = 0;
  for (const TuningMeasurement& m : measured) {
    if (!steps_wanted(m.blocking.steps)) continue;
    const double rate = median_of(rates.at(candidate_key(m.variant, m.blocking)));
    if (!best || rate > best_rate) {
      best = m;
      best->mpoints_per_second = rate;
      best_rate = rate;
    }
  }
  return best;
}

std::optional<double> search_pace_change(const std::vector<TuningMeasurement>& measured) {
  if (measured.empty() || measured.front().mpoints_per_second <= 0) return std::nullopt;
  const CandidateKey first = candidate_key(measured.front().variant, measured.front().blocking);
  std::vector<double> later;
  for (auto m = measured.begin() + 1; m != measured.end(); ++m)
    if (candidate_key(m->variant, m->blocking) == first) later.push_back(m->mpoints_per_second);
  if (later.empty()) return std::nullopt;
  return median_of(later) / measured.front().mpoints_per_second;
}

double TuningBudget::seconds_for(double first_rate_mpoints) const {
  const double run_seconds = first_rate_mpoints > 0 ? run_point_updates / (first_rate_mpoints * 1e6) : 0.0;
  return std::min(cap_seconds, std::max(floor_seconds, fraction * run_seconds));
}

std::vector<Index3> block_size_candidates(const Index3& extent, const Index3& first, int threads,
                                          KernelVariant variant) {
  std::vector<Index3> candidates;
  std::vector<Index3> starving;  // fewer blocks than threads: kept only when nothing else is left
  std::set<Index3> cuts;  // the effective sizes seen: two sizes that cut the subdomain alike are one
  const Box subdomain{{0, 0, 0}, extent};
  const auto add = [&](const Index3& size) {
    const Blocking b{size};
    const Index3 cut{b.effective(0, extent[0]), b.effective(1, extent[1]), b.effective(2, extent[2])};
    if (!cuts.insert(cut).second) return;
    (block_count(subdomain, b) >= threads ? candidates : starving).push_back(size);
  };
  add(first);
  if (variant == KernelVariant::columns)
    for (const Index3& size : kPreferredColumnSizes) add(size);
  else if (variant == KernelVariant::folded)
    for (const Index3& size : kPreferredFoldedSizes) add(size);
  else
    for (const Index3& size : kPreferredRowSizes) add(size);
  return candidates.empty() ? starving : candidates;
}

std::vector<KernelVariant> kernel_candidates(KernelChoice choice, int radius, bool searching_sizes) {
  const KernelVariant favourite = kernel_variant(choice, radius);
  if (!searching_sizes || choice != KernelChoice::automatic) return {favourite};
  std::vector<KernelVariant> variants{favourite};
  if (column_window_fits_registers(radius))
    variants.push_back(favourite == KernelVariant::columns ? KernelVariant::blocked : KernelVariant::columns);
  if (folded_kernel_built()) variants.push_back(KernelVariant::folded);
  return variants;
}

std::vector<int> sweep_step_candidates(int radius, std::int64_t rows, int max_steps) {
  std::vector<int> steps{1};
  for (int t : {2, 3, 4, 6, 8})
    if (t <= max_steps && min_temporal_tile_rows(t, radius) <= rows) steps.push_back(t);
  return steps;
}

std::vector<std::int64_t> sweep_tile_candidates(int steps, int radius, std::int64_t chosen, std::int64_t rows,
                                                int threads) {
  const std::int64_t least = min_temporal_tile_rows(steps, radius);
  std::vector<std::int64_t> heights, starving;
  std::set<std::int64_t> tile_counts;
  const LevelBoxes rows_only = LevelBoxes::fixed(Box{{0, 0, 0}, {1, rows, 1}});
  for (std::int64_t h : {chosen, 4 * least, 2 * least, std::int64_t{64}, 8 * least}) {
    h = std::clamp(h, least, std::max(least, rows));
    const auto tiles = static_cast<std::int64_t>(plan_sweep_tiles(rows_only, steps, radius, h, threads).trapezoids.size());
    if (!tile_counts.insert(tiles).second) continue;
    (tiles >= threads ? heights : starving).push_back(h);
  }
  return heights.empty() ? starving : heights;
}

std::vector<TemporalHalo> trial_halos(TemporalHalo setting) {
  if (setting == TemporalHalo::automatic) return {TemporalHalo::split, TemporalHalo::deep};
  return {setting};
}

void run_real_step_trial(TuningOutcome& out, const RealStepTimer& real_steps, double points,
                         const std::function<double(int)>& build_seconds, const std::function<double(double)>& slowest,
                         const std::vector<TemporalHalo>& halos) {
  const std::optional<TuningMeasurement> one = out.best_with(false), several = out.best_with(true);
  // T searched: one step per sweep against several. T given (no candidate of one step measured): the
  // given T's best with each temporal halo, which needs two of them.
  if (!several || halos.empty() || (!one && halos.size() < 2)) return;
  // The contenders, fewest steps per sweep first: one step, two where the best of several is deeper
  // (the exchange and the slabs after it, which the scratch fields do not see, grow with T), the best
  // of several; each deeper one with every temporal halo asked for.
  std::vector<TuningMeasurement> deeper_candidates;
  if (several->blocking.steps > 2)
    if (const std::optional<TuningMeasurement> two = out.best_with_steps(2)) deeper_candidates.push_back(*two);
  deeper_candidates.push_back(*several);
  std::vector<std::pair<TuningMeasurement, TemporalHalo>> contenders;
  if (one) contenders.emplace_back(*one, halos.front());
  for (const TuningMeasurement& m : deeper_candidates)
    for (TemporalHalo halo : halos) contenders.emplace_back(m, halo);
  const int steps = kTrialSweeps * several->blocking.steps;
  double needed = 0;
  for (const auto& [m, halo] : contenders) {
    const double steps_run = static_cast<double>(steps) * (kTrialRepetitions + 1);  // with the warm-up
    needed += kTrialRounds * (build_seconds(m.blocking.steps) + steps_run * points / (m.mpoints_per_second * 1e6));
  }
  std::vector<int> deeper;
  for (const TuningMeasurement& m : deeper_candidates) deeper.push_back(m.blocking.steps);
  const double left = out.budget_seconds - out.seconds;
  if (needed > left && halos.size() > 1 && one) {
    // Comparing T comes first: the trial runs with the first halo alone, and says what it left out.
    run_real_step_trial(out, real_steps, points, build_seconds, slowest, {halos.front()});
    if (!out.trial.empty())
      out.trial_note = fmt::format("{} not tried as well: the trial with them needs about {:.3f} s, {:.3f} s of "
                                   "the budget was left",
                                   halos[1] == TemporalHalo::deep ? "deep halos" : "split tiling", needed,
                                   std::max(0.0, left));
    return;
  }
  if (needed > left) {
    const std::string what = one ? fmt::format("T = 1 against T = {}", fmt::join(deeper, " and "))
                                 : fmt::format("split tiling against deep halos at T = {}", several->blocking.steps);
    out.trial_skipped = fmt::format("no trial of {} on real steps: it needs about {:.3f} s, {:.3f} s of the budget was left",
                                    what, needed, std::max(0.0, left));
    out.budget_spent = true;  // a longer search is not answered by this one (read_tuning_cache)
    return;
  }
  out.trial.clear();
  for (const auto& [m, halo] : contenders) out.trial.push_back({m.blocking, m.variant, halo, 0, {}});
  // A B C C B A: a drift of the machine's pace across the trial (the memory's moved by 1.7x within
  // one bench case here) weighs on every contender alike.
  const std::size_t n = out.trial.size();
  for (int round = 0; round < kTrialRounds; ++round)
    for (std::size_t k = 0; k < n; ++k) {
      TrialMeasurement& t = out.trial[round % 2 == 0 ? k : n - 1 - k];
      const double start = omp_get_wtime();
      t.rounds.push_back(real_steps(t.blocking, t.variant, t.halo, steps, kTrialRepetitions));
      out.seconds += slowest(omp_get_wtime() - start);
    }
  for (TrialMeasurement& t : out.trial)
    t.seconds_per_step = std::accumulate(t.rounds.begin(), t.rounds.end(), 0.0) / static_cast<double>(t.rounds.size());
  // Only a faster sweep replaces one of fewer steps: it is the simpler run.
  const TrialMeasurement* winner = &out.trial.front();
  for (const TrialMeasurement& t : out.trial)
    if (t.seconds_per_step < winner->seconds_per_step) winner = &t;
  out.blocking = winner->blocking;
  out.variant = winner->variant;
  if (winner->blocking.steps > 1) out.temporal_halo = winner->halo;
}

template <typename T>
TuningOutcome tune_blocking(const RunConfig& config, const Box& owned, const Index3& agreed_extent,
                            const NeighbourFaces& neighbour_faces, bool tune_size,
                            bool tune_steps, int max_steps, const TuningBudget& budget,
                            const std::function<double(double)>& slowest, const RealStepTimer& real_steps,
                            int candidate_threads) {
  TuningOutcome out;
  const int threads = candidate_threads > 0 ? candidate_threads : omp_get_max_threads();
  out.blocking = with_prefetch_rows(config.blocking, config.grid.radius);
  // "auto" reaches the tuner only where split tiling fits (see the header): split unless the trial
  // finds deep halos faster.
  out.temporal_halo = trial_halos(config.parallel.temporal_halo).front();
  const bool temporal_applies = max_steps > 1;
  if (!tune_size && !(tune_steps && temporal_applies)) return out;
  const Box subdomain = scratch_subdomain(owned, agreed_extent);
  const std::int64_t planes = scratch_planes<T>(subdomain, budget.scratch_bytes);
  const double build_start = omp_get_wtime();
  // Freed before the trial on real steps, which builds fields of the whole subdomain.
  std::optional<ScratchFields<T>> scratch(std::in_place, subdomain, config.grid.radius, planes, config.memory.huge_pages);
  const double scratch_seconds_per_plane = (omp_get_wtime() - build_start) / static_cast<double>(scratch->owned.extent(2));
  // With T searched, the trial weighs T; with T given and the temporal halo "auto", the halos at that T.
  const bool halos_to_weigh = tune_size && config.blocking.steps > 1 && trial_halos(config.parallel.temporal_halo).size() > 1;
  const bool trial_applies = real_steps && (tune_steps || halos_to_weigh) && temporal_applies &&
                             any_neighbour(neighbour_faces);
  const std::vector<double> weights = second_derivative_weights(config.grid.radius);
  std::vector<KernelVariant> variants = kernel_candidates(config.kernel, config.grid.radius, tune_size);
  // No folded kernel where its levels would not fit in memory beside the plain fields.
  if (!config.tune.folded_fits && variants.size() > 1) std::erase(variants, KernelVariant::folded);
  out.variant = variants.front();
  // The part of the budget the search of candidates may spend: the rest is the trial's, if one applies.
  const auto search_seconds = [&] { return out.budget_seconds * (trial_applies ? 1.0 - kTrialShare : 1.0); };
  // Every rate measured per candidate (kernel, size x, y, z, steps, prefetch rows): a candidate measured again
  // is judged by the median of its rates.
  std::map<CandidateKey, std::vector<double>> rates;
  const auto score = [&](const TuningMeasurement& m) { return median_of(rates.at(candidate_key(m.variant, m.blocking))); };
  // Each candidate runs one warm-up sweep, then enough sweeps to take about this long (the slowest
  // rank's time decides how many, so that every rank runs as many): a search of the sizes measures
  // about 30 candidates with the leaders' repeats, one of T as many again, one of the prefetch distance
  // about 10 more.
  const double measurements_planned =
      (tune_steps && temporal_applies ? 80.0 : 40.0) + (config.tune.prefetch ? 10.0 : 0.0);
  const auto pace_checked = [&] { return out.budget_seconds >= kPaceCheckBudgetSeconds; };
  const auto timed_seconds_wanted = [&] {
    return std::clamp(out.budget_seconds / measurements_planned, 0.002, 0.25);
  };
  const auto measure = [&](const Blocking& candidate, KernelVariant variant) {
    const Kernel<T> kernel(weights, candidate, variant);
    // Split tiling computes no point twice; what its level-by-level rest costs, the trial on real
    // steps measures.
    const double overhead = search_overhead(config, agreed_extent, neighbour_faces, candidate.steps);
    const auto rate_of = [&](int sweeps, double seconds) {
      return scored_rate(scratch->owned, candidate.steps, sweeps, seconds, overhead);
    };
    const double warm_up = slowest(time_sweep(*scratch, kernel, candidate));
    // The first candidate's timed sweeps take as long as the others' (it is the reference the search's
    // pace is checked against): the budget they depend on, estimated from its warm-up until timed.
    if (out.measured.empty()) out.budget_seconds = budget.seconds_for(rate_of(1, std::max(warm_up, 1e-9)));
    const int sweeps = static_cast<int>(std::clamp(std::ceil(timed_seconds_wanted() / std::max(warm_up, 1e-6)), 2.0, 1000.0));
    if (out.measured.empty()) {
      // The search's first sweeps run slower (on a 64^3 subdomain, 2 threads, by up to 2x for the first
      // 20 ms: the cores' clocks, the caches, the pages of code and fields): before the first candidate
      // is timed, it runs untimed for kSearchWarmUpSeconds where the budget allows a check of the
      // search's pace against it, else for as long as one measurement.
      const double warm_seconds = pace_checked() ? kSearchWarmUpSeconds : timed_seconds_wanted();
      const int warm_sweeps = static_cast<int>(std::clamp(std::ceil(warm_seconds / std::max(warm_up, 1e-6)), 1.0, 1e5));
      double untimed = 0;
      for (int i = 0; i < warm_sweeps; ++i) untimed += time_sweep(*scratch, kernel, candidate);
      out.seconds += slowest(untimed);
    }
    double mine = 0;
    for (int i = 0; i < sweeps; ++i) mine += time_sweep(*scratch, kernel, candidate);
    const double timed = slowest(mine);
    const double rate = rate_of(sweeps, timed);
    out.seconds += warm_up + timed;
    out.measured.push_back({candidate, rate, variant});
    rates[candidate_key(variant, candidate)].push_back(rate);
    if (out.measured.size() == 1) out.budget_seconds = budget.seconds_for(rate);
  };
  const auto try_blocking = [&](Blocking candidate, KernelVariant variant) {
    // Tiles lower than a trapezoid of `steps` levels needs run as that minimum (plan_temporal_tiles):
    // measured, cached and reported as the tiles that run, and measured once.
    const std::int64_t least = min_temporal_tile_rows(candidate.steps, config.grid.radius);
    if (candidate.steps > 1 && candidate.size[1] > 0 && candidate.size[1] < least) candidate.size[1] = least;
    if (rates.count(candidate_key(variant, candidate)) != 0) return;
    if (!out.measured.empty() && out.seconds >= search_seconds()) {
      out.budget_spent = true;
      return;
    }
    measure(candidate, variant);
  };
  // The best candidate measured so far, by score; the first measured among equals.
  const auto best_measured = [&] {
    TuningMeasurement best = out.measured.front();
    for (const TuningMeasurement& m : out.measured)
      if (score(m) > score(best)) best = m;
    return best;
  };
  const auto choose_best = [&] {
    const TuningMeasurement best = best_measured();
    out.blocking = best.blocking;
    out.variant = best.variant;
  };
  // A single short measurement is one sample of a noisy machine: while the budget lasts, the leading
  // candidates are measured again, in turn, and the medians decide. The configured block (the first
  // measured) joins them: measured again beside them, it shows whether the machine's pace moved since
  // the search began, and competes in the same state if it did.
  const auto confirm_leaders = [&] {
    constexpr std::size_t kLeaders = 3;
    constexpr int kRounds = 2;
    for (int round = 0; round < kRounds; ++round) {
      std::vector<TuningMeasurement> leaders;
      std::set<CandidateKey> seen;
      for (const TuningMeasurement& m : out.measured)
        if (seen.insert(candidate_key(m.variant, m.blocking)).second) leaders.push_back(m);
      std::stable_sort(leaders.begin(), leaders.end(),
                       [&](const TuningMeasurement& a, const TuningMeasurement& b) { return score(a) > score(b); });
      if (leaders.size() > kLeaders) leaders.resize(kLeaders);
      const TuningMeasurement& first = out.measured.front();
      if (std::none_of(leaders.begin(), leaders.end(), [&](const TuningMeasurement& m) {
            return candidate_key(m.variant, m.blocking) == candidate_key(first.variant, first.blocking);
          }))
        leaders.push_back(first);
      if (leaders.size() < 2) return;
      if (round % 2 == 1) std::reverse(leaders.begin(), leaders.end());  // no candidate always first
      for (const TuningMeasurement& m : leaders) {
        if (out.seconds >= search_seconds()) return;
        measure(m.blocking, m.variant);
      }
    }
  };

  Blocking start = with_prefetch_rows(config.blocking, config.grid.radius);
  if (tune_steps || !temporal_applies) start.steps = 1;  // without temporal blocking the run sweeps one step
  if (tune_size) {
    // The kernels' candidates taken in turn, so that a budget spent early has measured each kernel.
    std::vector<std::vector<Index3>> sizes;
    std::size_t longest = 0;
    for (KernelVariant v : variants) {
      sizes.push_back(block_size_candidates(agreed_extent, start.size, threads, v));
      longest = std::max(longest, sizes.back().size());
    }
    for (std::size_t i = 0; i < longest; ++i)
      for (std::size_t k = 0; k < variants.size(); ++k) {
        if (i >= sizes[k].size()) continue;
        Blocking candidate = start;
        candidate.size = sizes[k][i];
        try_blocking(candidate, variants[k]);
      }
  } else {
    try_blocking(start, out.variant);
  }
  confirm_leaders();
  choose_best();
  // Tiles for `steps` levels per sweep around the sizes chosen so far: a sweep of several levels wants
  // tiles taller than one step's best block (sweep_tile_candidates).
  // The tiles grow from the best folded candidate and from the best of the plain layout's kernels:
  // the two layouts rank differently once several levels share each read.
  const auto try_tile_heights = [&](int steps) {
    std::optional<TuningMeasurement> bases[2];  // plain layout, folded
    for (const TuningMeasurement& m : out.measured) {
      std::optional<TuningMeasurement>& base = bases[m.variant == KernelVariant::folded ? 1 : 0];
      if (!base || score(m) > score(*base)) base = m;
    }
    for (const std::optional<TuningMeasurement>& base : bases) {
      if (!base) continue;
      const Blocking sized = base->blocking;
      for (std::int64_t rows : sweep_tile_candidates(steps, config.grid.radius, sized.effective(1, agreed_extent[1]),
                                                     agreed_extent[1], threads)) {
        Blocking candidate = sized;
        candidate.steps = steps;
        candidate.size[1] = rows;
        try_blocking(candidate, base->variant);
      }
    }
  };
  if (tune_steps && temporal_applies) {
    for (int t : sweep_step_candidates(config.grid.radius, agreed_extent[1], max_steps))
      if (t > 1) try_tile_heights(t);  // t = 1 measured above
    confirm_leaders();
    choose_best();
  } else if (tune_size && start.steps > 1 && temporal_applies) {
    // Given steps per sweep: the sizes above ran as tiles of those steps, but one step's shapes are
    // short; the taller tiles the sweep wants are measured too.
    try_tile_heights(start.steps);
    confirm_leaders();
    choose_best();
  }
  if (config.tune.prefetch && out.variant == KernelVariant::columns) {
    // The prefetch distance last, for the blocks and steps chosen (the header says why).
    const Blocking chosen = out.blocking;
    for (int rows = 1; rows <= kMaxPrefetchRows; ++rows) {
      Blocking candidate = chosen;
      candidate.prefetch_rows = rows;
      try_blocking(candidate, out.variant);
    }
    confirm_leaders();
    choose_best();
  }
  if (const std::optional<double> pace = search_pace_change(out.measured);
      pace && pace_checked() && std::max(*pace, 1.0 / *pace) > 1.0 + kPaceTolerance)
    out.pace_note = fmt::format("the machine's pace moved during the search: its first candidate ran {:.2f}x as "
                                "fast when measured again as at first",
                                *pace);
  if (trial_applies) {
    const Index3& e = agreed_extent;
    // The fields the run builds are the subdomain's with halos of the deepest sweep: first touched and
    // initialised like the scratch fields, a known time per plane (twice it, for the initial condition).
    scratch.reset();
    const double per_plane = slowest(scratch_seconds_per_plane);
    const auto build_seconds = [&](int steps) {
      return 2.0 * per_plane * (static_cast<double>(e[2]) + 2.0 * steps * config.grid.radius);
    };
    run_real_step_trial(out, real_steps, static_cast<double>(e[0] * e[1] * e[2]), build_seconds, slowest,
                        trial_halos(config.parallel.temporal_halo));
  }
  return out;
}

template <typename T>
double measure_blocking_rate(const RunConfig& config, const Box& owned, const Index3& agreed_extent,
                             const NeighbourFaces& neighbour_faces, const Blocking& blocking, KernelVariant variant,
                             double seconds, double scratch_bytes, const std::function<double(double)>& slowest) {
  const Box subdomain = scratch_subdomain(owned, agreed_extent);
  ScratchFields<T> scratch(subdomain, config.grid.radius, scratch_planes<T>(subdomain, scratch_bytes),
                           config.memory.huge_pages);
  const Kernel<T> kernel(second_derivative_weights(config.grid.radius), blocking, variant);
  const double one = std::max(slowest(time_sweep(scratch, kernel, blocking)), 1e-9);
  const int sweeps = static_cast<int>(std::clamp(std::ceil(seconds / one), 2.0, 1000.0));
  // As long again untimed first: the first sweeps of a process run slower (see tune_blocking).
  for (int i = 0; i < sweeps; ++i) time_sweep(scratch, kernel, blocking);
  double mine = 0;
  for (int i = 0; i < sweeps; ++i) mine += time_sweep(scratch, kernel, blocking);
  const double timed = slowest(mine);
  return scored_rate(scratch.owned, blocking.steps, sweeps, timed,
                     search_overhead(config, agreed_extent, neighbour_faces, blocking.steps));
}

template double measure_blocking_rate<float>(const RunConfig&, const Box&, const Index3&, const NeighbourFaces&,
                                             const Blocking&, KernelVariant, double, double,
                                             const std::function<double(double)>&);
template double measure_blocking_rate<double>(const RunConfig&, const Box&, const Index3&, const NeighbourFaces&,
                                              const Blocking&, KernelVariant, double, double,
                                              const std::function<double(double)>&);

template TuningOutcome tune_blocking<float>(const RunConfig&, const Box&, const Index3&, const NeighbourFaces&, bool, bool,
                                            int, const TuningBudget&, const std::function<double(double)>&,
                                            const RealStepTimer&, int);
template TuningOutcome tune_blocking<double>(const RunConfig&, const Box&, const Index3&, const NeighbourFaces&, bool,
                                             bool, int, const TuningBudget&, const std::function<double(double)>&,
                                             const RealStepTimer&, int);

}  // namespace wave3d
