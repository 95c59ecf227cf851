#include "engine/time_loop.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>

#include "engine/blocking_tuning.hpp"
#include "engine/field_io_schedule.hpp"
#include "engine/run_counters.hpp"
#include "engine/run_preflight.hpp"
#include "engine/step_driver.hpp"
#include "engine/step_trial.hpp"
#include "engine/subdomain_fields.hpp"
#include "engine/sweep_schedule.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include "field/huge_pages.hpp"
#include "mpi/cartesian.hpp"
#include "mpi/collective.hpp"
#include "mpi/decomposition.hpp"
#include "mpi/deep_halo_exchange.hpp"
#include "mpi/environment.hpp"
#include "mpi/halo_exchange.hpp"
#include "mpi/progress_thread.hpp"
#include "output/progress.hpp"
#include "runtime/denormals.hpp"
#include "runtime/memory_usage.hpp"
#include "solver/wave_solver.hpp"
#include "stencil/block_loop.hpp"
#include "verify/exact_mode.hpp"
#include "verify/field_checks.hpp"

namespace wave3d::engine {
namespace {

void fail_if_asked(const RunConfig& config, int rank, int step) {
  if (config.debug.fail_rank == rank && config.debug.fail_step == step)
    throw std::runtime_error("injected failure on rank " + std::to_string(rank) + " at step " + std::to_string(step) +
                             " (debug.fail_rank = " + std::to_string(rank) +
                             ", debug.fail_step = " + std::to_string(step) + ")");
}


bool uses_exact_verification(const RunConfig& config) {
  return config.verify == VerifyMethod::exact ||
         (config.verify == VerifyMethod::automatic && config.initial.kind == InitialKind::mode);
}

template <typename T>
Verification verify(const RunConfig& config, WaveSolver<T>& solver, MPI_Comm comm) {
  Verification v;
  if (!uses_exact_verification(config)) {
    v.method = "none";
    v.status = VerificationStatus::not_verified;
    v.detail = "no exact solution for this initial condition; compare the checksum with a reference run";
    return v;
  }
  v.method = "exact";
  const ExactMode exact(config.initial, config.grid, config.physics);
  const int n = solver.steps_done();
  const double local = max_abs_difference<T>(solver.current(), solver.current().owned(),
                                              [&](auto x, auto y, auto z) { return exact.value(n, x, y, z); });
  const double error = mpi::allreduce_max(comm, local);
  const double tolerance = config.verify_tolerance > 0 ? config.verify_tolerance
                                                       : exact.round_off_tolerance(n, std::numeric_limits<T>::epsilon());
  v.max_error = error;
  v.tolerance = tolerance;
  v.status = error <= tolerance ? VerificationStatus::verified : VerificationStatus::failed;
  char line[200];
  std::snprintf(line, sizeof line, "max |u - u_exact| = %.3e after %d steps (tolerance %.3e)", error, n, tolerance);
  v.detail = line;
  return v;
}

std::vector<StepTimes> gather_step_times(const StepTimes& mine, MPI_Comm comm) {
  const int size = mpi::size_of(comm);
  const int rank = mpi::rank_in(comm);
  const std::vector<double>& values = mine.values();
  std::vector<double> all(rank == 0 ? values.size() * size : 0);
  mpi::check(MPI_Gather(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, all.data(),
                        static_cast<int>(values.size()), MPI_DOUBLE, 0, comm),
             "MPI_Gather");
  std::vector<StepTimes> per_rank;
  if (rank != 0) return per_rank;
  for (int r = 0; r < size; ++r) {
    const auto first = all.begin() + static_cast<std::ptrdiff_t>(r * values.size());
    per_rank.emplace_back(mine.steps(), mine.phases(), std::vector<double>(first, first + values.size()));
  }
  return per_rank;
}

// The time steps per sweep a run uses, and why fewer than blocking.steps asks when it cannot.
struct SweepPlan {
  int steps = 1;
  std::string notice;
};

// requested: what the user asked for; tuned: with the blocking the tuner settled.
SweepPlan plan_sweeps(const RunConfig& requested, const RunConfig& tuned, const std::optional<std::string>& obstacle) {
  const bool asked = requested.tune.steps || requested.blocking.steps > 1;
  if (!asked) return {};
  if (obstacle) {
    const std::string value =
        requested.tune.steps ? std::string("\"auto\"") : std::to_string(requested.blocking.steps);
    return {1, fmt::format("blocking.steps = {} not applied, 1 step per sweep: {}", value, *obstacle)};
  }
  return {tuned.blocking.steps, ""};
}

// The phases of steps.csv, in order. io: writing the snapshot and checkpoint due after the step
// (part of its total).
enum Phase : std::size_t { pack, wait, unpack, interior, shell, check, total, hidden, io };
const std::vector<std::string> kPhaseNames{"pack", "wait", "unpack", "interior", "shell", "check", "total",
                                           "messages_done", "io"};

// This rank's part of the run once set up: its subdomain in the process grid, the tuned settings, the
// fields and the exchanges (subdomain_fields.hpp).
template <typename T>
struct RankRun {
  RunConfig config;  // as requested, with the blocking the tuner settled
  std::optional<std::string> sweep_obstacle;  // why temporal blocking cannot apply, if it cannot
  mpi::Decomposition decomposition;
  RankGrid ranks;
  SubdomainFields<T> fields;

  bool sweeping() const { return fields.sweeping(); }
};

// Set-up, every part collective: an error on any rank is reported once and ends all of them. The
// blocks (blocking.size / blocking.steps = "auto") are measured, or read from the cache, before the
// fields exist, since their first touch follows the blocks; the progress thread exists before, since
// the tuner's trial on real steps runs the run's halo mode.
template <typename T>
void set_up(RankRun<T>& run, MPI_Comm comm, RunOutcome& out) {
  const RunConfig& config = run.config;
  const int rank = mpi::rank_in(comm);
  require_thread_level_for(config, comm);
  run.decomposition = mpi::collectively(
      comm, [&] { return decompose_for_job(config, mpi::size_of(comm), mpi::rank_on_node(comm).size); });
  // Agreed on every rank: the tuner's candidates must be alike.
  run.config.tune.folded_fits = mpi::allreduce_and(
      comm, folded_levels_fit(config, run.decomposition, mpi::rank_on_node(comm).size));
  mpi::collectively(comm, [&] { fail_if_asked(config, rank, 0); });
  build_rank_grid(run.ranks, config, comm, run.decomposition);
  const mpi::CartesianComm& cart = *run.ranks.cart;

  // The temporal halo: "auto" is resolved before the tuner (the sweeps it may try depend on it);
  // where it resolved to split tiling, the tuner's trial may still find deep halos faster.
  const TemporalSetUp temporal = temporal_set_up(config, run.decomposition);
  out.temporal_halo_notice = temporal.halo_notice.value_or("");
  run.sweep_obstacle = temporal.obstacle;
  run.config.parallel.temporal_halo = temporal.tuner_halo;
  const TuningBudget budget = TuningBudget::for_request(
      config.tune, static_cast<double>(intersect(cart.owned(), config.grid.updated()).volume()) * config.steps);
  out.tuning = tune_for_run<T>(config, comm, cart.owned(), neighbour_faces_of(config, run.decomposition),
                               temporal.max_steps, budget, false, real_step_timer<T>(config, cart, run.ranks.progress()));
  // From here on the run's config names the temporal halo that runs, and so do the fields.
  run.config.parallel.temporal_halo = out.tuning.temporal_halo;
  out.temporal_halo = config.parallel.temporal_halo;
  run.config.blocking = out.tuning.blocking;
  run.config.kernel = kernel_choice_for(out.tuning.variant);
  if (run.sweep_obstacle) run.config.blocking.steps = 1;  // the fields are placed for the sweeps that will run

  out.rss_before_fields = current_rss_bytes();
  reset_peak_rss();
  mpi::collectively(comm, [&] { build_subdomain_fields(run.fields, config, cart); });
}

// What the set-up produced, for the report: memory and pages, the kernel, the sweeps, the halo volume.
template <typename T>
void describe_set_up(const RankRun<T>& run, const RunConfig& requested, MPI_Comm comm, RunOutcome& out) {
  const RunConfig& config = run.config;
  const WaveSolver<T>& solver = *run.fields.solver;
  out.field_bytes = solver.field_bytes();
  out.huge_page_bytes = anonymous_huge_page_bytes();
  out.huge_page_mode = transparent_huge_page_mode();
  out.placement_notices = solver.placement_notices();
  out.page_histograms = solver.page_histograms();
  nlohmann::json pages = nlohmann::json::object();
  const char* names[] = {"prev", "next", "vel"};
  for (std::size_t i = 0; i < out.page_histograms.size() && i < 3; ++i) pages[names[i]] = to_json(out.page_histograms[i]);
  out.pages_per_rank = mpi::gather_strings(comm, pages.dump(), 0);
  out.updated_points = config.grid.updated_points();
  out.flops_per_point = Kernel<T>::flops_per_point(config.grid.radius);
  out.bytes_per_point = Kernel<T>::bytes_per_point();
  out.kernel = std::string(to_string(solver.kernel().variant()));
  const SweepPlan sweeps = plan_sweeps(requested, config, run.sweep_obstacle);
  out.steps_per_sweep = sweeps.steps;
  out.sweep_notice = sweeps.notice;
  out.process_grid = run.decomposition.dims;
  // With sweeps: one full sweep's deep exchange spread over its steps, or with split tiling one level
  // a radius deep per step.
  const int r = config.grid.radius;
  const auto sweep_bytes_per_step = [&] {
    const mpi::DeepHaloExchange<T>& deep = *run.fields.deep_halo;
    if (config.parallel.temporal_halo == TemporalHalo::split) return static_cast<double>(deep.bytes_for({r}));
    return static_cast<double>(deep.bytes_for({sweeps.steps * r, (sweeps.steps - 1) * r})) / sweeps.steps;
  };
  const auto step_bytes = [&] {
    const auto& fields = run.fields;
    return static_cast<double>(fields.folded_halo ? fields.folded_halo->bytes_per_exchange() : fields.halo->bytes_per_exchange());
  };
  const double my_halo_bytes_per_step = run.sweeping() ? sweep_bytes_per_step() : step_bytes();
  out.halo_bytes_per_step = static_cast<std::uint64_t>(mpi::allreduce_sum(comm, my_halo_bytes_per_step));
  if (solver.has_folded_levels()) out.halo_route = run.fields.folded_halo ? "folded" : "copied";
}

// Each level's kernel time and points, summed over the ranks (a rank whose boxes were empty at the
// last levels holds fewer of them: all agree on the count first, so that every rank takes part in
// every reduction).
SweepLevelTimes summed_over_ranks(const SweepLevelTimes& mine, MPI_Comm comm) {
  const int levels = static_cast<int>(mpi::allreduce_max(comm, mine.levels()));
  SweepLevelTimes all;
  for (int level = 1; level <= levels; ++level) {
    const bool have = level <= mine.levels();
    const double seconds = mpi::allreduce_sum(comm, have ? mine.thread_seconds(level) : 0.0);
    const auto points = mpi::allreduce_sum_u64(comm, have ? static_cast<unsigned long long>(mine.points(level)) : 0ULL);
    all.add(level, seconds, static_cast<std::int64_t>(points));
  }
  return all;
}

// The time loop proper: sweeps of out.steps_per_sweep steps (fewer before a snapshot, a checkpoint or
// the end, sweep_schedule.hpp), every phase of every step timed, the NaN check and the field files
// between sweeps.
// Returns this rank's step times; sets out.failure when non-finite values stop the run.
template <typename T>
StepTimes step_loop(RankRun<T>& run, StepDriver<T>& driver, FieldIoSchedule<T>& field_io, RunCounters& counters,
                    MPI_Comm comm, RunOutcome& out) {
  const RunConfig& config = run.config;
  WaveSolver<T>& solver = *run.fields.solver;
  const int rank = mpi::rank_in(comm);
  const int first_step = solver.steps_done();
  StepTimes times(config.steps - first_step, kPhaseNames);
  ProgressReporter progress(times.steps(), rank == 0 ? config.progress : ProgressMode::off, stdout,
                            static_cast<double>(out.updated_points));
  int last_clean_step = first_step;  // a run continued from a checkpoint was clean up to it
  out.short_sweeps_notice = short_sweeps_notice(config, out.steps_per_sweep, first_step);
  solver.clear_level_times();         // the tuner's trial may have swept the run's fields before
  mpi::check(MPI_Barrier(comm), "MPI_Barrier");
  counters.start_loop();
  const double start = omp_get_wtime();
  for (int s = 0, steps = 1; s < times.steps(); s += steps) {
    const int before = solver.steps_done();
    steps = next_sweep_steps(config, out.steps_per_sweep, before);
    for (int k = 1; k <= steps; ++k) fail_if_asked(config, rank, first_step + s + k);
    counters.begin_step();
    const double t0 = omp_get_wtime();
    // A sweep computes all its steps at once: each gets an equal share of every phase.
    const StepPhaseTimes phases = driver.advance(steps);
    const double sweep_share = (omp_get_wtime() - t0) / steps;
    for (int k = 0; k < steps; ++k) {
      times.record(s + k, pack, phases.pack / steps);
      times.record(s + k, wait, phases.wait / steps);
      times.record(s + k, unpack, phases.unpack / steps);
      times.record(s + k, interior, phases.interior / steps);
      times.record(s + k, shell, phases.shell / steps);
      if (k + 1 < steps) times.record(s + k, total, sweep_share);
    }
    if (phases.messages_done_after) times.record(s, hidden, *phases.messages_done_after);
    const int last = s + steps - 1;  // the entry of steps.csv that gets the check and the I/O
    const int done = solver.steps_done();
    if (check_due_after(config, before, done)) {
      const double c0 = omp_get_wtime();
      const bool finite = mpi::allreduce_and(comm, solver.current_is_finite(solver.update_region()));
      times.record(last, check, omp_get_wtime() - c0);
      if (!finite) {
        out.failure = "non-finite values (NaN or Inf) appeared between step " + std::to_string(last_clean_step + 1) +
                      " and step " + std::to_string(done) + "; the run was stopped there";
        times.record(last, total, omp_get_wtime() - t0 - (steps - 1) * sweep_share);
        counters.end_step();
        break;
      }
      last_clean_step = done;
    }
    if (const auto io_seconds = field_io.after_step()) times.record(last, io, *io_seconds);
    times.record(last, total, omp_get_wtime() - t0 - (steps - 1) * sweep_share);
    counters.end_step();
    progress.update(done - first_step, omp_get_wtime() - start);
  }
  const double local_seconds = omp_get_wtime() - start;
  counters.stop_loop();
  progress.finish();
  out.steps_done = solver.steps_done() - first_step;
  if (out.steps_per_sweep > 1) {
    out.sweep_levels = summed_over_ranks(solver.level_times(), comm);
    out.sweep_threads = static_cast<int>(mpi::allreduce_sum(comm, omp_get_max_threads()));
  }
  out.loop_seconds = mpi::allreduce_max(comm, local_seconds);
  return times;
}

// After the loop: verification (or the failure that stopped it), checksum and norm, every rank's times.
template <typename T>
void verify_and_gather(RankRun<T>& run, const StepTimes& times, MPI_Comm comm, RunOutcome& out) {
  WaveSolver<T>& solver = *run.fields.solver;
  if (out.failure) {
    out.verification.status = VerificationStatus::failed;
    out.verification.method = "none";
    out.verification.detail = *out.failure;
  } else {
    out.verification = verify(run.config, solver, comm);
  }
  const Box& mine = solver.current().owned();
  out.checksum = mpi::allreduce_sum_u64(comm, field_checksum(solver.current(), mine, run.config.grid));
  out.l2_norm = std::sqrt(mpi::allreduce_sum(comm, sum_of_squares(solver.current(), mine)));
  out.step_times = gather_step_times(times, comm);
}

}  // namespace

template <typename T>
RunOutcome run_time_loop(const RunConfig& requested, MPI_Comm comm, const FieldIoContext& field_io_context,
                         const BeforeLoop& before_loop) {
  RunOutcome out;
  RankRun<T> run;
  run.config = requested;
  // Before the tuner and the fields: every thread that computes, in this team or a larger one later,
  // under the mode asked for.
  out.denormals = set_denormals(requested.denormals) ? requested.denormals : Denormals::keep;
  set_up(run, comm, out);
  StepDriver<T> driver = run.fields.driver(run.config.parallel, run.ranks.progress());
  // A restart leaves the solver at the checkpoint's step; the loop runs the steps from there.
  FieldIoSchedule<T> field_io(run.config, comm, field_io_context, *run.fields.solver);
  describe_set_up(run, requested, comm, out);
  // The hook may use memory of its own and free it again (the bench's STREAM arrays, several times the
  // fields of a small grid): the peak RSS reported is the run's, the set-up's peak before the hook and
  // the loop's after it. Where the high-water mark cannot be reset after the hook, it is not reported.
  std::optional<std::uint64_t> set_up_peak_rss;  // read only where a hook runs: else the loop's peak holds it
  bool peak_rss_known = true;
  if (before_loop) {
    set_up_peak_rss = peak_rss_bytes();
    before_loop(LoopSetup{run.ranks.progress(), block_count(run.fields.solver->update_region(), run.config.blocking)});
    peak_rss_known = reset_peak_rss();
  }

  RunCounters counters(run.config.counters, comm);
  driver.count_regions_with(counters.regions());
  const StepTimes times = step_loop(run, driver, field_io, counters, comm, out);
  out.field_io = field_io.finish();
  out.counters = counters.gather(comm, out.steps_done, out.loop_seconds);
  std::optional<std::uint64_t> peak_rss = peak_rss_bytes();
  if (peak_rss && set_up_peak_rss) peak_rss = std::max(*peak_rss, *set_up_peak_rss);
  if (peak_rss_known) out.peak_rss = peak_rss;
  if (run.ranks.progress_thread) out.progress_thread_cpu = run.ranks.progress_thread->observed_cpu();
  verify_and_gather(run, times, comm, out);
  return out;
}

const char* status_word(VerificationStatus status) {
  switch (status) {
    case VerificationStatus::verified: return "VERIFIED";
    case VerificationStatus::not_verified: return "NOT VERIFIED";
    case VerificationStatus::failed: return "FAILED";
  }
  return "FAILED";
}

template RunOutcome run_time_loop<float>(const RunConfig&, MPI_Comm, const FieldIoContext&, const BeforeLoop&);
template RunOutcome run_time_loop<double>(const RunConfig&, MPI_Comm, const FieldIoContext&, const BeforeLoop&);

}  // namespace wave3d::engine
