#include "app/bench_measure.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/binding_audit.hpp"
#include "engine/placement_setup.hpp"
#include "engine/run_report.hpp"
#include "engine/sweep_levels_report.hpp"
#include "engine/time_loop.hpp"
#include "field/huge_pages.hpp"
#include "field/memory_placement.hpp"
#include "geometry/box.hpp"
#include "mpi/collective.hpp"
#include "mpi/decomposition.hpp"
#include "probe/fma_peak.hpp"
#include "probe/stream.hpp"
#include "runtime/bind_threads.hpp"
#include "runtime/machine_info.hpp"
#include "runtime/statistics.hpp"
#include "solver/wave_solver.hpp"
#include "stencil/kernel.hpp"

namespace wave3d::app {

using namespace engine;  // the run engine this subcommand drives

Spread spread_of(std::vector<double> values) {
  if (values.empty()) throw std::logic_error("bench: no values to summarise");
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return {*lo, median_of(values), *hi};
}

namespace {

// MPoints/s of each timed repetition: the slowest rank's time for the repetition's steps.
std::vector<double> repetition_rates(const RunOutcome& outcome, int repetitions, int steps_per_repetition) {
  std::vector<double> rates;
  const std::size_t total = outcome.step_times.front().phase_index("total");
  for (int rep = 1; rep <= repetitions; ++rep) {  // repetition 0 is the warm-up
    double slowest = 0.0;
    for (const StepTimes& rank_times : outcome.step_times) {
      double seconds = 0.0;
      for (int step = rep * steps_per_repetition; step < (rep + 1) * steps_per_repetition; ++step)
        seconds += rank_times.at(step, total);
      slowest = std::max(slowest, seconds);
    }
    rates.push_back(static_cast<double>(outcome.updated_points) * steps_per_repetition / slowest / 1e6);
  }
  return rates;
}

// The case's kernel and blocks at one step per sweep on an edge^3 grid that fits in the caches, with
// as many points x steps per repetition as the case (at least its steps), so that it takes about as
// long. Collective over comm; the rates on rank 0. Where the run fails (non-finite values), nullopt
// and `failure` says why.
std::optional<CacheResidentRate> measure_cache_resident(const BenchSettings& s, const RunConfig& measured,
                                                        const RunOutcome& outcome, std::int64_t edge, MPI_Comm comm,
                                                        std::string& failure) {
  RunConfig config = measured;
  const double shrink = static_cast<double>(Box{{0, 0, 0}, measured.grid.n}.volume()) /
                        static_cast<double>(Box{{0, 0, 0}, {edge, edge, edge}}.volume());
  const int steps_per_repetition =
      static_cast<int>(std::max(1.0, std::round(s.steps_per_repetition * std::max(1.0, shrink))));
  config.grid.n = {edge, edge, edge};
  config.kernel = kernel_choice_for(outcome.tuning.variant);
  config.blocking = outcome.tuning.blocking;
  config.blocking.steps = 1;
  config.tune = TuningRequest{};
  config.steps = (s.repetitions + 1) * steps_per_repetition;
  config.check_every = config.steps;
  const RunOutcome in_cache = config.precision == Precision::single ? run_time_loop<float>(config, comm)
                                                                    : run_time_loop<double>(config, comm);
  if (in_cache.failure) {
    failure = *in_cache.failure;
    return std::nullopt;
  }
  CacheResidentRate rate;
  rate.edge = edge;
  rate.field_bytes = in_cache.field_bytes;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) rate.mpoints = spread_of(repetition_rates(in_cache, s.repetitions, steps_per_repetition));
  return rate;
}

void add_notice(std::vector<std::string>& notices, const std::string& notice) {
  if (std::find(notices.begin(), notices.end(), notice) == notices.end()) notices.push_back(notice);
}

}  // namespace

std::optional<double> BenchCase::cache_resident_mpoints() const {
  if (!cache_resident) return std::nullopt;
  return cache_resident->mpoints.median;
}

std::optional<double> BenchCase::cache_resident_fraction_of_bound() const {
  const auto rate = cache_resident_mpoints();
  if (!rate) return std::nullopt;
  return *rate / bandwidth_bound_mpoints;
}

std::optional<double> BenchCase::later_levels_mpoints() const {
  const auto rates = sweep_level_rates(sweep_levels, sweep_threads);
  if (!rates) return std::nullopt;
  return rates->later_mpoints;
}

std::optional<double> BenchCase::later_levels_fraction_of_bound() const {
  const auto rate = later_levels_mpoints();
  if (!rate) return std::nullopt;
  return *rate / bandwidth_bound_mpoints;
}

RunConfig bench_stencil_config(std::int64_t edge, const std::array<std::int64_t, 3>& blocking) {
  RunConfig c;
  c.grid = Grid{{edge, edge, edge}, 10.0, Boundary::zero, 8};
  c.precision = Precision::single;
  c.physics = Physics{1500.0, 0.001};
  c.blocking = Blocking{{blocking[0], blocking[1], blocking[2]}};
  c.initial.kind = InitialKind::seed_cube;
  c.memory = MemoryPlacement{MemoryPolicy::first_touch, -1};
  return c;
}

std::int64_t default_grid_edge(std::uint64_t llc_bytes) {
  std::int64_t n = 16;
  while (3.0 * 4.0 * std::pow(static_cast<double>(n), 3) < 8.0 * static_cast<double>(llc_bytes)) n += 16;
  return n;
}

std::optional<std::int64_t> cache_resident_edge(std::optional<std::uint64_t> llc_bytes, int radius,
                                                std::size_t value_bytes, std::int64_t grid_edge) {
  if (!llc_bytes) return std::nullopt;
  const auto fits = [&](std::int64_t edge) {
    const double with_halo = static_cast<double>(edge + 2 * radius);
    return 3.0 * static_cast<double>(value_bytes) * with_halo * with_halo * with_halo <= 0.5 * static_cast<double>(*llc_bytes);
  };
  if (!fits(16)) return std::nullopt;
  std::int64_t edge = 16;
  while (fits(edge + 16)) edge += 16;
  return std::min(edge, grid_edge);
}

BenchCase measure_case(const BenchSettings& s, int threads, MPI_Comm comm) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &rank);
  omp_set_num_threads(threads);
  AppliedPlacement applied;
  if (!s.thread_pus.empty()) {
    if (s.thread_pus.size() < static_cast<std::size_t>(threads))
      throw std::logic_error("bench: " + std::to_string(threads) + " threads but CPUs for only " +
                             std::to_string(s.thread_pus.size()));
    const std::vector<std::vector<int>> pus(s.thread_pus.begin(), s.thread_pus.begin() + threads);
    mpi::collectively(comm, [&] { bind_openmp_threads(HwlocTopology(), pus); });
    applied.bound = true;
    applied.planned_pus = pus;
  } else if (s.bind) {
    RunConfig placed = s.stencil;
    placed.threads = threads;
    placed.placement.layout = ranks > 1 ? PlacementLayout::rank_per_core : PlacementLayout::rank_per_node;
    if (ranks > 1 && threads > 1) placed.placement.layout = PlacementLayout::rank_per_socket;
    applied = apply_placement(placed, comm);
  }
  // An earlier case has moved this thread already: the audit compares with what the launcher gave.
  applied.launch_cpus = s.launch_cpus;
  BenchCase c;
  c.ranks = ranks;
  c.threads_per_rank = threads;

  // Triad on every rank at once, as the stencil will load the memory system, each kernel started on all
  // ranks together: a repetition moves every rank's arrays in the slowest rank's time, and the rates
  // (worst, median, best) are those of the repetitions so taken.
  const std::size_t elements_per_rank = s.stream_elements / static_cast<std::size_t>(ranks);
  StreamOptions stream{elements_per_rank, threads, InitPolicy::first_touch, s.stream_repetitions};
  stream.in_step_with_others = [comm](bool ok) { return mpi::allreduce_and(comm, ok); };
  std::optional<HwlocTopology> hwloc;
  // The triad's arrays get the pages the stencil's fields get, so that the bound compares like with like.
  stream.before_first_touch = [&](void* data, std::size_t bytes) {
    if (s.stencil.memory.huge_pages) (void)advise_transparent_huge_pages(data, bytes);
    if (s.stencil.memory.policy != MemoryPolicy::node && s.stencil.memory.policy != MemoryPolicy::interleave) return;
    if (!hwloc) hwloc.emplace();
    if (auto notice = place_memory(data, bytes, s.stencil.memory, *hwloc)) add_notice(c.placement_notices, *notice);
  };
  const auto measure_triad = [&] {
    StreamResult result;
    mpi::collectively(comm, [&] {
      result = run_stream(stream);
      if (!result.valid) throw std::runtime_error("STREAM validation failed: " + result.error);
    });
    std::vector<double> slowest = result[StreamKernel::triad].seconds;
    for (double& seconds : slowest) seconds = mpi::allreduce_max(comm, seconds);
    const KernelBandwidth triad =
        kernel_bandwidth(StreamKernel::triad, std::move(slowest), elements_per_rank * static_cast<std::size_t>(ranks));
    return Spread{triad.worst_gbs, triad.median_gbs, triad.best_gbs};
  };
  // The multiply-add peak on every rank at once too, in the stencil's precision: the compute bound.
  std::optional<double> peak;
  mpi::collectively(comm, [&] {
    peak = s.stencil.precision == Precision::single ? measure_fma_peak_gflops<float>(threads, s.fma_peak_seconds)
                                                    : measure_fma_peak_gflops<double>(threads, s.fma_peak_seconds);
  });
  if (peak) c.fma_peak_gflops = mpi::allreduce_sum(comm, *peak);

  RunConfig config = s.stencil;
  config.threads = threads;
  config.steps = (s.repetitions + 1) * s.steps_per_repetition;
  config.check_every = config.steps;
  config.progress = ProgressMode::off;
  config.verify = VerifyMethod::none;
  JobPlacement audited;
  // The triad runs once the tuner is done and the fields are in place, just before the first step: the
  // memory of a shared node can change pace within seconds (this VM's triad on 2 threads read 82 and
  // then 48 GB/s, a minute apart), and the tuner alone takes several.
  const BeforeLoop audit_and_measure_triad = [&](const LoopSetup& setup) {
    audited = audit_job_placement(comm, collect_placement_facts(applied, setup), s.strict_placement);
    c.triad_gbytes = measure_triad();
  };
  const RunOutcome outcome = config.precision == Precision::single
                                 ? run_time_loop<float>(config, comm, {}, audit_and_measure_triad)
                                 : run_time_loop<double>(config, comm, {}, audit_and_measure_triad);
  // Once the stencil's fields are freed, the triad again: whether the memory kept its pace meanwhile.
  c.triad_after_gbytes = measure_triad();
  if (rank == 0) {
    c.placement_verdict = audited.verdict_text();
    c.placement_audit = audited.verdict_json();
    c.placement_warnings = format_placement_warnings(audited);
  }
  c.verified_finite = !outcome.failure.has_value();
  if (rank == 0) c.stencil_mpoints = spread_of(repetition_rates(outcome, s.repetitions, s.steps_per_repetition));
  if (s.cache_grid_edge) {
    // The same on every rank: the in-cache grid is smaller than the case's and may not split over as
    // many ranks.
    try {
      const std::int64_t e = *s.cache_grid_edge;
      (void)mpi::decompose({e, e, e}, ranks, mpi::requested_dims(config.parallel.process_grid), config.grid.radius);
      std::string failure;
      c.cache_resident = measure_cache_resident(s, config, outcome, e, comm, failure);
      if (!c.cache_resident) {
        c.cache_resident_notice = "the run on the in-cache grid failed: " + failure;
        c.verified_finite = false;
      }
    } catch (const mpi::DecompositionError& e) {
      c.cache_resident_notice = std::string("not measured: the in-cache grid does not split over the ranks: ") + e.what();
    }
  }
  c.gflops = c.stencil_mpoints.median * outcome.flops_per_point / 1e3;
  c.bandwidth_bound_mpoints = c.triad_gbytes.median * 1e3 / outcome.bytes_per_point;
  c.bandwidth_bound_after_mpoints = c.triad_after_gbytes.median * 1e3 / outcome.bytes_per_point;
  if (c.fma_peak_gflops) c.compute_bound_mpoints = *c.fma_peak_gflops * 1e3 / outcome.flops_per_point;
  c.field_bytes = outcome.field_bytes;
  for (const std::string& notice : outcome.placement_notices) add_notice(c.placement_notices, notice);
  c.process_grid = outcome.process_grid;
  c.kernel = outcome.kernel;
  c.denormals = outcome.denormals;
  c.blocks = outcome.tuning.blocking.size;
  c.prefetch_rows = outcome.tuning.prefetch_rows();
  if (outcome.tuning.source != "given") {
    c.tuning_summary = outcome.tuning.summary_line();
    c.tuning_trial = outcome.tuning.trial_line();
    c.tuning = outcome.tuning.to_json();
  }
  c.steps_per_sweep = outcome.steps_per_sweep;
  c.sweep_notice = outcome.sweep_notice;
  c.short_sweeps_notice = outcome.short_sweeps_notice;
  c.temporal_halo = outcome.temporal_halo;
  c.temporal_halo_notice = outcome.temporal_halo_notice;
  c.bytes_per_point = outcome.bytes_per_point;
  c.sweep_levels = outcome.sweep_levels;
  c.sweep_threads = outcome.sweep_threads;
  if (ranks > 1 && rank == 0) c.halo_exposed_fraction = halo_share(config, outcome).exposed_fraction;
  if (outcome.peak_rss && outcome.rss_before_fields && outcome.field_bytes > 0)
    c.rss_growth_over_fields =
        static_cast<double>(*outcome.peak_rss - *outcome.rss_before_fields) / static_cast<double>(outcome.field_bytes);
  return c;
}

}  // namespace wave3d::app
