#include "app/bench_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/bench_layout.hpp"
#include "app/bench_measure.hpp"
#include "app/bench_options.hpp"
#include "app/bench_rounds.hpp"
#include "app/command_provenance.hpp"
#include "app/thread_list.hpp"
#include "config/enum_names.hpp"
#include "engine/blocking_tuning.hpp"
#include "engine/sweep_levels_report.hpp"
#include "field/huge_pages.hpp"
#include "mpi/collective.hpp"
#include "mpi/environment.hpp"
#include "mpi/quiet_wait.hpp"
#include "output/json_document.hpp"
#include "probe/fma_peak.hpp"
#include "probe/stream.hpp"
#include "runtime/byte_size.hpp"
#include "runtime/denormals.hpp"
#include "runtime/machine_info.hpp"
#include "runtime/thread_binding.hpp"
#include "runtime/thread_limit.hpp"
#include "solver/wave_solver.hpp"
#include "stencil/coefficients.hpp"
#include "stencil/kernel.hpp"

namespace wave3d::app {
namespace {

struct BenchOptions {
  std::string threads;          // empty: 1 and the OpenMP maximum
  std::int64_t grid = 0;        // cube edge; 0: the smallest multiple of 16 with fields >= 8x the LLC
  int steps = 10;
  int repetitions = 5;
  std::string blocking = fmt::format("{},{},{}", bench_default_blocking[0], bench_default_blocking[1],
                                     bench_default_blocking[2]);  // or "auto"
  double tune_seconds = 10.0;  // the block tuner's measuring per case, as wave3d tune's
  std::string halo = "overlap";
  std::string temporal_halo = "auto";
  std::string progress = "poll";
  bool no_bind = false;
  bool base_pages = false;
  std::size_t array_mib = 0;  // the triad's MiB per array; 0: 4x the LLC, at least 64
  bool strict_placement = false;
  int radius = 8;                   // R: order 2R in space
  std::string precision = "single";
  std::string kernel = "auto";
  std::string denormals = "flush";
  std::string sweep_steps = "1";  // time steps per sweep of the one-rank cases, e.g. 1,4
  int rounds = 1;                 // every case measured this many times (bench_rounds.hpp)
  std::string json;
};

RunConfig stencil_config(const BenchOptions& o, std::int64_t n) {
  const auto given = given_blocking(o.blocking);
  RunConfig c = bench_stencil_config(n, given.value_or(bench_default_blocking));
  c.tune.size = !given.has_value();
  c.tune.prefetch = true;  // measured wherever the tuner runs, as a run's default "auto"
  c.tune.seconds = o.tune_seconds;
  c.grid.radius = o.radius;
  c.precision = *enum_from_name<Precision>(o.precision);
  c.kernel = *enum_from_name<KernelChoice>(o.kernel);
  c.denormals = *enum_from_name<Denormals>(o.denormals);
  c.parallel.halo = *enum_from_name<HaloMode>(o.halo);
  c.parallel.temporal_halo = *enum_from_name<TemporalHalo>(o.temporal_halo);
  c.parallel.progress = computes_during_exchange(c.parallel.halo) ? *enum_from_name<ProgressEngine>(o.progress)
                                                             : ProgressEngine::none;
  return c;
}

std::string fraction_text(const std::optional<double>& bound, double value) {
  return bound ? fmt::format("{:.3f}", value / *bound) : "n/a";
}

void print_case(const BenchCase& c) {
  // A warning goes right above the row it is about, once for the whole job.
  std::fflush(stdout);
  fmt::print(stderr, "{}", c.placement_warnings);
  std::fflush(stderr);
  const std::string compute = c.compute_bound_mpoints ? fmt::format("{:.0f}", *c.compute_bound_mpoints) : "unknown";
  const std::string speedup = c.speedup ? fmt::format("{:.2f} ({:.2f})", *c.speedup, *c.triad_speedup) : "";
  fmt::print("{:>5} x {:<3} {:>3} {:>9.1f} {:>9.1f} {:>9.1f} {:>8.2f} {:>9.2f} {:>9.0f} {:>7.3f} {:>9} {:>7} {:>15}  {}\n",
             c.ranks, c.threads_per_rank, c.steps_per_sweep, c.stencil_mpoints.min, c.stencil_mpoints.median, c.stencil_mpoints.max,
             c.gflops, c.triad_gbytes.median, c.bandwidth_bound_mpoints, c.fraction_of_bandwidth_bound(), compute,
             fraction_text(c.compute_bound_mpoints, c.stencil_mpoints.median), speedup, c.placement_verdict);
  if (!c.tuning_summary.empty())
    fmt::print("{:>11}   kernel {}, blocks {} x {} x {}{} (tuning: {})\n", "", c.kernel, c.blocks[0], c.blocks[1],
               c.blocks[2], c.prefetch_rows ? ", " + engine::prefetch_text(*c.prefetch_rows) : "",
               c.tuning_summary);
  if (!c.tuning_trial.empty()) fmt::print("{:>11}   tuning {}\n", "", c.tuning_trial);
  if (!c.short_sweeps_notice.empty()) fmt::print("{:>11}   temporal: {}\n", "", c.short_sweeps_notice);
  if (c.cache_resident) {
    const CacheResidentRate& in_cache = *c.cache_resident;
    fmt::print("{:>11}   in cache: {:.1f} MPoints/s ({:.1f}-{:.1f}) on a {}^3 grid (fields {}{}), {:.3f} of the bw "
               "bound; this row reached {:.3f} of that rate\n",
               "", in_cache.mpoints.median, in_cache.mpoints.min, in_cache.mpoints.max, in_cache.edge,
               format_bytes(in_cache.field_bytes), c.ranks > 1 ? " per rank" : "",
               *c.cache_resident_fraction_of_bound(),
               c.stencil_mpoints.median / in_cache.mpoints.median);
  }
  if (!c.cache_resident_notice.empty()) fmt::print("{:>11}   in cache: {}\n", "", c.cache_resident_notice);
  if (const auto fraction = c.later_levels_fraction_of_bound())
    fmt::print("{:>11}   levels: {}; that rate is {:.3f} of the bw bound\n", "",
               engine::sweep_levels_line(c.sweep_levels, c.sweep_threads), *fraction);
  if (!c.triads_agree())
    fmt::print("{:>11}   memory bandwidth moved during this case: triad {:.2f} GB/s before the stencil, {:.2f} GB/s "
               "after it; against the bound after it the stencil reached {:.3f}\n",
               "", c.triad_gbytes.median, c.triad_after_gbytes.median, c.fraction_of_bandwidth_bound_after());
}

nlohmann::json cache_resident_json(const BenchCase& c) {
  if (!c.cache_resident) return nullptr;
  const CacheResidentRate& in_cache = *c.cache_resident;
  return {{"grid", in_cache.edge},
          {"field_bytes", in_cache.field_bytes},
          {"stencil_mpoints_per_second", spread_json(in_cache.mpoints)},
          {"fraction_of_bandwidth_bound", *c.cache_resident_fraction_of_bound()},
          {"case_fraction_of_cache_resident", c.stencil_mpoints.median / in_cache.mpoints.median}};
}

nlohmann::json sweep_levels_json(const BenchCase& c) {
  nlohmann::json levels = engine::sweep_levels_json(c.sweep_levels, c.sweep_threads);
  if (const auto fraction = c.later_levels_fraction_of_bound())
    levels["later_levels_fraction_of_bandwidth_bound"] = *fraction;
  return levels;
}

nlohmann::json to_json(const BenchCase& c) {
  auto optional = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  return {{"ranks", c.ranks},
          {"threads_per_rank", c.threads_per_rank},
          {"stencil_mpoints_per_second", spread_json(c.stencil_mpoints)},
          {"gflop_per_second", c.gflops},
          {"triad_gbytes_per_second", spread_json(c.triad_gbytes)},
          {"bandwidth_bound_mpoints_per_second", c.bandwidth_bound_mpoints},
          {"fraction_of_bandwidth_bound", c.fraction_of_bandwidth_bound()},
          {"triad_after_gbytes_per_second", spread_json(c.triad_after_gbytes)},
          {"bandwidth_bound_after_mpoints_per_second", c.bandwidth_bound_after_mpoints},
          {"fraction_of_bandwidth_bound_after", c.fraction_of_bandwidth_bound_after()},
          {"triad_before_and_after_agree", c.triads_agree()},
          {"fma_peak_gflop_per_second", optional(c.fma_peak_gflops)},
          {"compute_bound_mpoints_per_second", optional(c.compute_bound_mpoints)},
          {"field_bytes", c.field_bytes},
          {"process_grid", c.process_grid},
          {"halo_exposed_fraction", optional(c.halo_exposed_fraction)},
          {"rss_growth_over_fields", optional(c.rss_growth_over_fields)},
          {"kernel", c.kernel},
          {"denormals", enum_name(c.denormals)},
          {"blocks", c.blocks},
          {"prefetch_rows", c.prefetch_rows ? nlohmann::json(*c.prefetch_rows) : nlohmann::json(nullptr)},
          {"tuning", c.tuning},
          {"steps_per_sweep", c.steps_per_sweep},
          {"steps_per_sweep_requested", sweep_steps_json(c.steps_requested)},
          {"round", c.round},
          {"order_in_round", c.order_in_round},
          {"temporal_blocking_notice", c.sweep_notice.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.sweep_notice)},
          {"short_sweeps_notice", c.short_sweeps_notice.empty() ? nlohmann::json(nullptr)
                                                                : nlohmann::json(c.short_sweeps_notice)},
          {"temporal_halo", c.ranks > 1 && c.steps_per_sweep > 1 ? nlohmann::json(enum_name(c.temporal_halo))
                                                                 : nlohmann::json(nullptr)},
          {"temporal_halo_notice",
           c.temporal_halo_notice.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.temporal_halo_notice)},
          {"bytes_per_point", c.bytes_per_point},
          {"speedup", optional(c.speedup)},
          {"triad_speedup", optional(c.triad_speedup)},
          {"placement_audit", c.placement_audit},
          {"cache_resident", cache_resident_json(c)},
          {"sweep_levels", sweep_levels_json(c)},
          {"cache_resident_notice",
           c.cache_resident_notice.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.cache_resident_notice)}};
}

// A row with the notices that go above it.
void print_case_with_notices(const BenchCase& c) {
  if (!c.sweep_notice.empty()) fmt::print("  {}\n", c.sweep_notice);
  if (c.ranks > 1 && !c.temporal_halo_notice.empty()) fmt::print("  {}\n", c.temporal_halo_notice);
  print_case(c);
}

// The ranks against the threads, under the row of the ranks.
void print_layout(const LayoutComparison& layout, const BenchCase& all, int ranks, const ParallelSettings& parallel) {
  // With T = auto each layout runs the T the tuner found for it, which may differ.
  const std::string steps =
      layout.steps_requested == kTunedSweepSteps
          ? fmt::format("auto (T = {} across the ranks, {} in one rank)", layout.steps_across_ranks,
                        layout.steps_in_one_rank)
          : sweep_steps_text(layout.steps_requested);
  const std::string across_ranks =
      all.steps_per_sweep > 1 ? fmt::format(", {} temporal halo", enum_name(all.temporal_halo)) : "";
  fmt::print("\nlayout: {} ranks x 1 thread ({} x {} x {} process grid) reach {:.3f} x the throughput of 1 rank x "
             "{} threads at T = {}; exposed halo (pack + wait + unpack) {:.1f} % of the step ({} halo, progress "
             "{}{})\n{}\n",
             ranks, layout.process_grid[0], layout.process_grid[1], layout.process_grid[2], layout.throughput_ratio,
             ranks, steps, 100 * layout.halo_exposed_fraction.value_or(0.0), enum_name(parallel.halo),
             enum_name(parallel.progress), across_ranks, bound_ratio_text(layout));
}

// How much the resident set grew over the fields, for each case: per case with one round, per case
// over the rounds (least-largest) with several.
void print_memory_lines(const std::vector<std::vector<BenchCase>>& rounds) {
  if (rounds.empty()) return;
  for (std::size_t k = 0; k < rounds.front().size(); ++k) {
    const BenchCase& first = rounds.front()[k];
    std::vector<double> growths;
    for (const std::vector<BenchCase>& round : rounds)
      if (round[k].rss_growth_over_fields) growths.push_back(*round[k].rss_growth_over_fields);
    if (growths.size() != rounds.size()) {
      fmt::print("memory {} x {}: peak RSS unavailable on this system\n", first.ranks, first.threads_per_rank);
      continue;
    }
    const Spread growth = spread_of(growths);
    const std::string grew = rounds.size() == 1 ? fmt::format("{:.3f}", growth.median)
                                                : fmt::format("{:.3f}-{:.3f}", growth.min, growth.max);
    fmt::print("memory {} x {}{}: RSS grew by {} x the fields' {} (halos and padding included){}\n", first.ranks,
               first.threads_per_rank,
               rounds.size() == 1 ? "" : fmt::format(" at T = {}", sweep_steps_text(first.steps_requested)),
               grew, format_bytes(first.field_bytes),
               rounds.size() == 1 ? "" : fmt::format(" in {} rounds", rounds.size()));
  }
}

// What the bench derives from the node it runs on (its LLC, the OpenMP threads): the grid, the
// triad's arrays, the in-cache grid and the thread counts.
struct BenchShape {
  std::int64_t grid_edge = 0;
  std::size_t stream_elements = 0;
  std::optional<std::int64_t> cache_grid_edge;
  std::vector<int> thread_counts;
};

BenchShape shape_on_this_node(const BenchOptions& o, const std::optional<std::uint64_t>& llc) {
  BenchShape shape;
  shape.grid_edge = o.grid > 0 ? o.grid : default_grid_edge(llc.value_or(32u << 20));
  shape.stream_elements = o.array_mib > 0 ? stream_elements_of_mib(o.array_mib) : default_stream_elements(llc);
  const bool single = stencil_config(o, shape.grid_edge).precision == Precision::single;
  shape.cache_grid_edge = cache_resident_edge(llc, o.radius, single ? sizeof(float) : sizeof(double), shape.grid_edge);
  shape.thread_counts =
      o.threads.empty() ? (omp_get_max_threads() > 1 ? std::vector<int>{1, omp_get_max_threads()} : std::vector<int>{1})
                        : parse_thread_list(o.threads);
  return shape;
}

// Rank 0's shape on every rank: ranks on unlike nodes, or launched with unlike OMP_NUM_THREADS, would
// otherwise run different cases, and with them different collectives.
BenchShape shape_of_rank_0(MPI_Comm comm, const BenchShape& mine) {
  const nlohmann::json sent = {{"grid_edge", mine.grid_edge},
                               {"stream_elements", mine.stream_elements},
                               {"cache_grid_edge", mine.cache_grid_edge ? nlohmann::json(*mine.cache_grid_edge) : nlohmann::json()},
                               {"thread_counts", mine.thread_counts}};
  const nlohmann::json got = nlohmann::json::parse(mpi::broadcast_string(comm, sent.dump(), 0));
  BenchShape shape;
  shape.grid_edge = got.at("grid_edge").get<std::int64_t>();
  shape.stream_elements = got.at("stream_elements").get<std::size_t>();
  if (!got.at("cache_grid_edge").is_null()) shape.cache_grid_edge = got.at("cache_grid_edge").get<std::int64_t>();
  shape.thread_counts = got.at("thread_counts").get<std::vector<int>>();
  return shape;
}

int run_bench(const BenchOptions& o, MPI_Comm comm, const std::vector<std::string>& command_line,
              std::chrono::system_clock::time_point started) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const MachineInfo machine = collect_machine_info();
  const std::optional<std::uint64_t> llc = total_last_level_cache_bytes(machine);
  const BenchShape shape = shape_of_rank_0(comm, shape_on_this_node(o, llc));
  const std::int64_t n = shape.grid_edge;
  BenchSettings settings;
  settings.stencil = stencil_config(o, n);
  settings.steps_per_repetition = o.steps;
  settings.repetitions = o.repetitions;
  settings.stream_elements = shape.stream_elements;
  settings.bind = !o.no_bind;
  settings.stencil.memory.huge_pages = !o.base_pages;
  settings.launch_cpus = launch_affinity();
  settings.strict_placement = o.strict_placement;
  settings.cache_grid_edge = shape.cache_grid_edge;
  const std::vector<int>& thread_counts = shape.thread_counts;
  mpi::collectively(comm, [&] {
    const ThreadLimit limit = this_process_thread_limit();
    for (int threads : thread_counts)
      if (auto why = thread_count_problem(threads, o.threads.empty() ? "OMP_NUM_THREADS" : "--threads", limit))
        throw std::invalid_argument(*why);
  });

  // What the bounds assume per point for this radius and precision.
  const bool single = settings.stencil.precision == Precision::single;
  const int bytes_per_point = single ? Kernel<float>::bytes_per_point() : Kernel<double>::bytes_per_point();
  const int flops_per_point = Kernel<float>::flops_per_point(o.radius);
  if (rank == 0) {
    const double field_bytes = 3.0 * (single ? sizeof(float) : sizeof(double)) * static_cast<double>(n) * n * n;
    fmt::print("wave3d bench: R={} {}-precision stencil, {}^3 grid (fields {}, {} x the LLC of {}), "
               "{} repetitions of {} steps after one warm-up, median reported\n",
               o.radius, o.precision, n, format_bytes(static_cast<std::uint64_t>(field_bytes)),
               llc ? fmt::format("{:.1f}", field_bytes / static_cast<double>(*llc)) : "?",
               llc ? format_bytes(*llc) : "unknown (8x of 32 MiB assumed)", o.repetitions, o.steps);
    const Blocking& blocks = settings.stencil.blocking;
    const std::string blocks_text =
        settings.stencil.tune.size
            ? std::string("auto (the block tuner's choice for each case, under its row)")
            : fmt::format("{} x {} x {}", blocks.size[0], blocks.size[1], blocks.size[2]);
    const std::vector<KernelVariant> kernels =
        kernel_candidates(settings.stencil.kernel, settings.stencil.grid.radius, settings.stencil.tune.size);
    std::vector<std::string_view> kernel_names;
    for (KernelVariant v : kernels) kernel_names.push_back(to_string(v));
    const std::string kernel_text =
        kernels.size() > 1 ? fmt::format("chosen by the block tuner for each case among {} (under its row)",
                                         fmt::join(kernel_names, ", "))
                           : std::string(to_string(kernels[0]));
    fmt::print("  kernel {} (stencil.kernel = {}, vectors: {}), blocks {}, time steps per sweep {}, {} B per "
               "point moved at best (read prev, vel, next; write next)\n",
               kernel_text, enum_name(settings.stencil.kernel), jammed_vector_isa(), blocks_text, o.sweep_steps,
               bytes_per_point);
    const Denormals denormals = settings.stencil.denormals;
    fmt::print("  floats: {} (--denormals {})\n",
               describe_denormals(denormal_mode_supported() ? denormals : Denormals::keep, denormals),
               enum_name(denormals));
    fmt::print("  STREAM triad on {} per array in the same process, after the tuner, just before the stencil's "
               "first step; bandwidth bound = triad GB/s / {} B per point; the triad again just after, and a line "
               "under the row where the two differ by more than {:.0f} %\n",
               format_bytes(settings.stream_elements * 8), bytes_per_point, 100 * stream_agreement_tolerance);
    if (llc && 3 * settings.stream_elements * sizeof(double) < 2 * *llc)
      fmt::print("  the triad's three arrays ({}) take less than twice the LLC of {}: the bandwidth bound is "
                 "partly the cache's, not the memory's (--array-mib)\n",
                 format_bytes(3 * settings.stream_elements * sizeof(double)), format_bytes(*llc));
    fmt::print("  pages: {} for the fields and the triad's arrays (transparent huge pages on this system: {})\n",
               o.base_pages ? "base pages" : "transparent huge pages asked for (madvise)", transparent_huge_page_mode());
    fmt::print("  compute bound = multiply-add peak measured on the case's threads just before the stencil "
               "(12 chains of {}-lane {} FMAs per thread, all threads at once, {:.1f} s) / {} flops per point\n",
               single ? fma_peak_lanes<float>() : fma_peak_lanes<double>(), fma_peak_vectors(),
               settings.fma_peak_seconds, flops_per_point);
    fmt::print("  T = time steps per sweep (temporal blocking; the bounds are those of one step per sweep, which "
               "T > 1 can exceed)\n");
    if (settings.cache_grid_edge)
      fmt::print("  in cache = the row's case again just after it, on a {}^3 grid whose fields fit in half the LLC, "
                 "one step per sweep with the row's kernel and blocks: its rate with the data in the LLC instead of "
                 "memory (a sweep of T > 1 whose levels come from the LLC runs near it; one that keeps them in nearer "
                 "caches can pass it)\n",
                 *settings.cache_grid_edge);
    else
      fmt::print("  in cache: not measured ({})\n",
                 llc ? "not even a 16^3 grid's fields fit in half the LLC" : "the LLC's size is unknown here");
    fmt::print("  speedup = MPts med against 1 rank x 1 thread at the same T (in parentheses: the triad's against its "
               "triad)\n");
    fmt::print("\n{:>11} {:>3} {:>9} {:>9} {:>9} {:>8} {:>9} {:>9} {:>7} {:>9} {:>7} {:>15}  {}\n", "ranks x thr", "T",
               "MPts min",
               "MPts med", "MPts max", "GFlops", "triad GB/s", "bw bound", "of bw", "cpu bound", "of cpu",
               "speedup (triad)", "placement");
  }

  // Each round measures every case (bench_rounds.hpp); rank 0 keeps them, in the specs' order.
  const std::vector<BenchCaseSpec> specs = bench_case_specs(sweep_step_list(o.sweep_steps), thread_counts, size > 1);
  std::vector<std::vector<BenchCase>> rounds;
  // Round 1's case of each spec, on the ranks that ran it: what the later rounds run again.
  std::vector<std::optional<BenchCase>> first_round(specs.size());
  std::vector<std::vector<LayoutComparison>> round_layouts;
  // One round: each row as soon as it is measured, compared with the cases measured before it. Several:
  // each round's rows at its end, once everything they are compared with is measured.
  const bool print_as_measured = o.rounds == 1;
  // One rank's cases run on rank 0 alone; the other ranks wait without taking a core.
  MPI_Comm alone = MPI_COMM_NULL;
  mpi::check(MPI_Comm_split(comm, rank == 0 ? 0 : MPI_UNDEFINED, 0, &alone), "MPI_Comm_split");
  for (int round = 0; round < o.rounds; ++round) {
    if (rank == 0 && !print_as_measured)
      fmt::print("\nround {} of {}{}:\n", round + 1, o.rounds, round % 2 == 1 ? " (the cases in reverse order)" : "");
    std::vector<std::optional<BenchCase>> measured(specs.size());
    std::vector<BenchCase> so_far;  // this round's, in the order measured
    std::vector<LayoutComparison> layouts;
    for (std::size_t k : round_order(specs.size(), round)) {
      const BenchCaseSpec& spec = specs[k];
      BenchSettings case_settings = settings;
      set_sweep_steps(case_settings.stencil, spec.steps_requested);
      // Later rounds run round 1's choices (the tuner's choices agree over the ranks that measured them).
      const bool repeat_choice = round > 0 && case_settings.stencil.tune.any();
      if (repeat_choice && first_round[k]) case_settings.stencil = as_in_first_round(case_settings.stencil, *first_round[k]);
      std::optional<BenchCase> c;
      if (spec.all_ranks) {
        // All ranks, one thread each, on the same grid as one rank of as many threads: ranks or threads?
        BenchCase all = measure_case(case_settings, 1, comm);
        if (round == 0) first_round[k] = all;
        if (rank == 0) c = std::move(all);
      } else {
        if (rank == 0) c = measure_case(case_settings, spec.threads, alone);
        mpi::barrier_quietly(comm);
      }
      if (rank != 0) continue;
      if (round == 0 && !spec.all_ranks) first_round[k] = c;
      if (repeat_choice) {
        c->tuning_summary = kAsInFirstRound;
        c->tuning = {{"source", "round 1"}};
      }
      c->steps_requested = spec.steps_requested;
      c->round = round + 1;
      c->order_in_round = static_cast<int>(so_far.size());
      if (print_as_measured) {
        compare_within_round(*c, so_far);
        print_case_with_notices(*c);
        if (spec.all_ranks)
          if (const auto layout = layout_within_round(*c, so_far)) {
            print_layout(*layout, *c, size, settings.stencil.parallel);
            layouts.push_back(*layout);
          }
        std::fflush(stdout);
      }
      so_far.push_back(*c);
      measured[k] = std::move(c);
    }
    if (rank != 0) continue;
    std::vector<BenchCase> cases;
    for (std::optional<BenchCase>& c : measured) cases.push_back(std::move(*c));
    if (!print_as_measured) {
      for (BenchCase& c : cases) compare_within_round(c, cases);
      for (const BenchCase& c : cases) {
        print_case_with_notices(c);
        if (c.ranks > 1)
          if (const auto layout = layout_within_round(c, cases)) {
            print_layout(*layout, c, size, settings.stencil.parallel);
            layouts.push_back(*layout);
          }
      }
      std::fflush(stdout);
    }
    rounds.push_back(std::move(cases));
    round_layouts.push_back(std::move(layouts));
  }
  if (alone != MPI_COMM_NULL) MPI_Comm_free(&alone);

  if (rank == 0) {
    const std::vector<CaseOverRounds> cases_over = cases_over_rounds(rounds);
    const std::vector<LayoutOverRounds> layouts_over = layouts_over_rounds(round_layouts);
    if (o.rounds > 1) fmt::print("{}", over_rounds_text(o.rounds, cases_over, layouts_over));
    print_memory_lines(rounds);
    bool memory_ok = true;
    for (const std::vector<BenchCase>& round : rounds)
      for (const BenchCase& c : round) memory_ok = memory_ok && c.verified_finite;
    if (!o.json.empty()) {
      const nlohmann::json blocks =
          settings.stencil.tune.size ? nlohmann::json("auto") : nlohmann::json(settings.stencil.blocking.size);
      nlohmann::json doc = {{"grid", n}, {"radius", o.radius}, {"precision", o.precision}, {"blocks", blocks},
                            {"last_level_cache_bytes", llc ? nlohmann::json(*llc) : nlohmann::json(nullptr)},
                            {"triad_array_bytes", settings.stream_elements * sizeof(double)},
                            {"rounds", o.rounds},
                            {"cases", nlohmann::json::array()}};
      for (const std::vector<BenchCase>& round : rounds)
        for (const BenchCase& c : round) doc["cases"].push_back(to_json(c));
      // With several ranks: each --sweep-steps entry's ranks against threads, each round's (empty on one rank).
      doc["layouts"] = nlohmann::json::array();
      for (const std::vector<LayoutComparison>& round : round_layouts)
        for (const LayoutComparison& layout : round) doc["layouts"].push_back(to_json(layout));
      doc["over_rounds"] = over_rounds_json(cases_over, layouts_over);
      write_json_document(o.json, kBenchFormat, "bench", command_provenance(comm, command_line, started),
                          std::move(doc));
    }
    if (!memory_ok) fmt::print(stderr, "wave3d bench: a stencil run produced non-finite values\n");
    return memory_ok ? 0 : 1;
  }
  return 0;
}

}  // namespace

Command add_bench_command(CLI::App& parent) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cli = parent.add_subcommand(
      "bench", "Measure the stencil (R=8 in single precision unless --radius, --precision) against STREAM triad in "
               "one process: MPoints/s, GFlops and the fraction of the bandwidth and compute bounds reached");
  cli->add_option("--threads", o->threads, "OpenMP thread counts for the one-rank cases, e.g. 1,2 or 1-8 "
                                           "(default: 1 and the OpenMP maximum)")
      ->check(thread_list_validator());
  cli->add_option("--grid", o->grid, "Cube edge of the stencil grid (default: fields at least 8x the LLC)")
      ->check(CLI::Range(std::int64_t{17}, std::int64_t{1} << 14));
  cli->add_option("--steps", o->steps, "Time steps per repetition")->check(CLI::Range(1, 100000))->capture_default_str();
  cli->add_option("--repetitions", o->repetitions, "Timed repetitions (after one warm-up)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cli->add_option("--blocking", o->blocking,
                  "Cache blocks along x,y,z (0 = whole axis), or auto: the block tuner finds them for each case "
                  "(blocking.size = \"auto\", kept in the tuning cache), and each row says which ran")
      ->check(blocking_validator())
      ->capture_default_str();
  cli->add_option("--tune-seconds", o->tune_seconds,
                  "How long the block tuner measures for each case of --blocking auto or --sweep-steps auto (as "
                  "wave3d tune --seconds; a bench case is too short for a run's few percent); once kept in the "
                  "tuning cache, a later bench reads it instead")
      ->check(CLI::Range(0.01, 3600.0))
      ->capture_default_str();
  cli->add_option("--halo", o->halo, "Halo exchange mode of the multi-rank case")
      ->check(CLI::IsMember(enum_words<HaloMode>()))
      ->capture_default_str();
  cli->add_option("--temporal-halo", o->temporal_halo,
                  "How the multi-rank case's sweeps of T > 1 meet the faces between ranks "
                  "(parallel.temporal_halo): deep halos computed on both sides, split tiling, or auto: split "
                  "tiling where the subdomains are thick enough for it")
      ->check(CLI::IsMember(enum_words<TemporalHalo>()))
      ->capture_default_str();
  cli->add_option("--progress", o->progress, "Message progress during overlap in the multi-rank case")
      ->check(CLI::IsMember(enum_words<ProgressEngine>()))
      ->capture_default_str();
  cli->add_flag("--no-bind", o->no_bind,
                "Leave thread placement to the launcher and OMP_PLACES instead of binding each case's threads "
                "(one rank: its threads on the first cores; several ranks: one core each)");
  cli->add_option("--radius", o->radius, "Stencil radius R (order 2R in space)")
      ->check(CLI::IsMember({1, 2, 4, 8}))
      ->capture_default_str();
  cli->add_option("--precision", o->precision, "Floating-point type of the fields")
      ->check(CLI::IsMember(enum_words<Precision>()))
      ->capture_default_str();
  cli->add_option("--kernel", o->kernel, "Stencil variant (stencil.kernel)")
      ->check(CLI::IsMember(enum_words<KernelChoice>()))
      ->capture_default_str();
  cli->add_option("--denormals", o->denormals,
                  "Subnormal floats on the computing threads (stencil.denormals): flush (read and written as zero) "
                  "or keep (IEEE)")
      ->check(CLI::IsMember(enum_words<Denormals>()))
      ->capture_default_str();
  cli->add_option("--sweep-steps", o->sweep_steps,
                  "Time steps per sweep (blocking.steps), e.g. 1,4: each thread count runs with each, and so does "
                  "the case of all ranks (across ranks as --temporal-halo says); auto: the T the block tuner "
                  "chooses for each case (blocking.steps = \"auto\"), in its T column")
      ->check(sweep_steps_validator())
      ->capture_default_str();
  cli->add_option("--rounds", o->rounds,
                  "Measure every case this many times, the cases in reverse order in every other round (later "
                  "rounds run the blocks and T the tuner chose in round 1), and give each speed-up and layout "
                  "ratio per round (from cases measured one after the other) and as the median and range over "
                  "the rounds: a drift of the machine's pace then weighs on all cases alike")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cli->add_flag("--base-pages", o->base_pages,
                "Fields and triad arrays on base pages (init.huge_pages = false) instead of transparent huge pages");
  cli->add_option("--array-mib", o->array_mib,
                  "MiB per array of the STREAM triad (default: 4x the last-level cache, at least 64)")
      ->check(CLI::Range(1, 1 << 24));
  cli->add_flag("--strict-placement", o->strict_placement,
                "Stop (exit 2) before measuring a case whose placement the binding audit finds wrong");
  cli->add_option("--json", o->json, "Also write the results to this JSON file");
  return {cli, [o](MPI_Comm comm, const std::vector<std::string>& command_line) {
            const auto started = std::chrono::system_clock::now();
            return run_bench(*o, comm, command_line, started);
          }};
}

}  // namespace wave3d::app
