#include "engine/blocking_tuning.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "config/enum_names.hpp"
#include "mpi/collective.hpp"
#include "mpi/environment.hpp"
#include "output/json_optional.hpp"
#include "runtime/machine_info.hpp"
#include "solver/tuning_cache.hpp"
#include "solver/wave_solver.hpp"

namespace wave3d::engine {
namespace {

TuningKey key_for(const RunConfig& config, const MachineInfo& machine, const Index3& agreed_extent,
                  const NeighbourFaces& neighbour_faces, bool tune_steps, int max_steps) {
  TuningKey key;
  key.machine = fmt::format("{} ({} hardware threads)", machine.cpu_model.value_or("unknown CPU"), machine.pus);
  key.threads = omp_get_max_threads();
  key.kernel = kernel_candidates(config.kernel, config.grid.radius, config.tune.size).size() > 1
                   ? std::string(enum_name(config.kernel))
                   : std::string(to_string(kernel_variant(config.kernel, config.grid.radius)));
  key.radius = config.grid.radius;
  key.precision = std::string(enum_name(config.precision));
  key.subdomain = agreed_extent;  // the extent the search measures on every rank
  key.neighbour_faces = neighbour_faces;
  key.size = config.tune.size;
  key.steps = tune_steps;
  key.sweep_steps = tune_steps ? max_steps : config.blocking.steps;
  if (!config.tune.prefetch) key.prefetch_rows = with_prefetch_rows(config.blocking, config.grid.radius).prefetch_rows;
  if (any_neighbour(neighbour_faces) && key.sweep_steps > 1) key.temporal_halo = std::string(enum_name(config.parallel.temporal_halo));
  return key;
}

// Rank 0's cached entry for `key`, on every rank, whatever budget its search had.
std::optional<CachedTuning> cached_on_all(MPI_Comm comm, const std::optional<std::filesystem::path>& file,
                                          const TuningKey& key) {
  // size x, y, z, steps, kernel, temporal halo, prefetch rows, budget spent
  std::array<long long, 8> values{};
  std::array<double, 2> seconds_and_rate{};  // the search's budget; the rate it measured (0 = none)
  int found = 0;
  if (mpi::rank_in(comm) == 0 && file) {
    if (const auto c = read_tuning_cache(*file, key)) {
      found = 1;
      const Blocking& b = c->blocking;
      values = {b.size[0], b.size[1], b.size[2], b.steps, static_cast<long long>(c->variant),
                static_cast<long long>(c->temporal_halo), b.prefetch_rows, c->budget_spent ? 1 : 0};
      seconds_and_rate = {c->budget_seconds, c->mpoints_per_second.value_or(0.0)};
    }
  }
  mpi::check(MPI_Bcast(&found, 1, MPI_INT, 0, comm), "MPI_Bcast");
  if (found == 0) return std::nullopt;
  mpi::check(MPI_Bcast(values.data(), static_cast<int>(values.size()), MPI_LONG_LONG, 0, comm), "MPI_Bcast");
  mpi::check(MPI_Bcast(seconds_and_rate.data(), 2, MPI_DOUBLE, 0, comm), "MPI_Bcast");
  CachedTuning c;
  c.blocking.size = {values[0], values[1], values[2]};
  c.blocking.steps = static_cast<int>(values[3]);
  c.variant = static_cast<KernelVariant>(values[4]);
  c.temporal_halo = static_cast<TemporalHalo>(values[5]);
  c.blocking.prefetch_rows = static_cast<int>(values[6]);
  c.budget_spent = values[7] != 0;
  c.budget_seconds = seconds_and_rate[0];
  if (seconds_and_rate[1] > 0) c.mpoints_per_second = seconds_and_rate[1];
  return c;
}

}  // namespace

namespace {

// The thinnest subdomain along each axis whose faces have neighbours; nullopt for the others.
std::array<std::optional<std::int64_t>, 3> thinnest_with_neighbours(const RunConfig& config,
                                                                    const mpi::Decomposition& decomposition) {
  std::array<std::optional<std::int64_t>, 3> thinnest;
  for (int a = 0; a < 3; ++a) {
    if (decomposition.dims[a] == 1 && config.grid.boundary != Boundary::periodic) continue;
    for (const Box& box : decomposition.boxes)
      thinnest[a] = std::min(thinnest[a].value_or(box.extent(a)), box.extent(a));
  }
  return thinnest;
}

}  // namespace

NeighbourFaces neighbour_faces_of(const RunConfig& config, const mpi::Decomposition& decomposition) {
  NeighbourFaces most{0, 0, 0};
  const bool periodic = config.grid.boundary == Boundary::periodic;
  for (const Box& box : decomposition.boxes)
    for (std::size_t a = 0; a < 3; ++a) {
      const int faces = periodic ? 2 : (box.lo[a] > 0 ? 1 : 0) + (box.hi[a] < config.grid.n[a] ? 1 : 0);
      most[a] = std::max(most[a], faces);
    }
  return most;
}

namespace {

// The points the thinnest subdomain along an axis whose subdomains have up to `faces` faces with
// neighbours must hold for sweeps of `steps`: the deep halo of steps x R (halos come from the
// immediate neighbours only), or with split tiling steps + 1 radii from each such face, so that the
// tiles, narrowing by a radius per level, keep some rows at every level.
// "auto", before it is resolved, counts as deep halos, the less demanding of the two: where the
// subdomains are too thin for split tiling, "auto" resolves to deep halos (resolved_temporal_halo).
std::int64_t thickness_needed(TemporalHalo halo, int radius, int faces, int steps) {
  const std::int64_t r = radius;
  if (halo == TemporalHalo::split) return faces * (steps + 1) * r;
  return steps * r;
}

bool sweeps_fit(TemporalHalo halo, const RunConfig& config, const mpi::Decomposition& decomposition, int steps) {
  const auto thinnest = thinnest_with_neighbours(config, decomposition);
  const NeighbourFaces faces = neighbour_faces_of(config, decomposition);
  for (std::size_t a = 0; a < 3; ++a)
    if (thinnest[a] && *thinnest[a] < thickness_needed(halo, config.grid.radius, faces[a], steps)) return false;
  return true;
}

// The steps per sweep a run asks for: blocking.steps, or for "auto" 2, the fewest it can search.
int steps_wanted(const RunConfig& config) { return config.tune.steps ? 2 : config.blocking.steps; }

bool has_neighbours(const RunConfig& config, const mpi::Decomposition& decomposition) {
  return any_neighbour(neighbour_faces_of(config, decomposition));
}

}  // namespace

TemporalHalo resolved_temporal_halo(const RunConfig& config, const mpi::Decomposition& decomposition) {
  if (config.parallel.temporal_halo != TemporalHalo::automatic) return config.parallel.temporal_halo;
  const bool split = steps_wanted(config) > 1 && has_neighbours(config, decomposition) &&
                     sweeps_fit(TemporalHalo::split, config, decomposition, steps_wanted(config));
  return split ? TemporalHalo::split : TemporalHalo::deep;
}

std::optional<std::string> temporal_halo_notice(const RunConfig& config, const mpi::Decomposition& decomposition) {
  if (config.parallel.temporal_halo != TemporalHalo::automatic || steps_wanted(config) <= 1 ||
      !has_neighbours(config, decomposition) || resolved_temporal_halo(config, decomposition) == TemporalHalo::split)
    return std::nullopt;
  RunConfig deep = config;
  deep.parallel.temporal_halo = TemporalHalo::deep;
  if (temporal_blocking_obstacle(deep, decomposition)) return std::nullopt;  // no sweeps of several steps at all
  RunConfig split = config;
  split.parallel.temporal_halo = TemporalHalo::split;
  return fmt::format("parallel.temporal_halo = \"auto\": deep halos, not split tiling: {}",
                     temporal_blocking_obstacle(split, decomposition).value_or("?"));
}

TemporalSetUp temporal_set_up(const RunConfig& config, const mpi::Decomposition& decomposition) {
  TemporalSetUp out;
  out.halo_notice = temporal_halo_notice(config, decomposition);
  RunConfig resolved = config;
  resolved.parallel.temporal_halo = resolved_temporal_halo(config, decomposition);
  out.obstacle = temporal_blocking_obstacle(resolved, decomposition);
  out.max_steps = out.obstacle ? 1 : max_steps_per_sweep(resolved, decomposition);
  const bool trial_may_choose = config.parallel.temporal_halo == TemporalHalo::automatic &&
                                resolved.parallel.temporal_halo == TemporalHalo::split;
  out.tuner_halo = trial_may_choose ? TemporalHalo::automatic : resolved.parallel.temporal_halo;
  return out;
}

int max_steps_per_sweep(const RunConfig& config, const mpi::Decomposition& decomposition) {
  int most = kMaxStepsPerSweep;
  while (most > 1 && !sweeps_fit(config.parallel.temporal_halo, config, decomposition, most)) --most;
  return most;
}

std::optional<std::string> temporal_blocking_obstacle(const RunConfig& config, const mpi::Decomposition& decomposition) {
  const int wanted = steps_wanted(config);
  if (wanted <= 1) return std::nullopt;
  const auto thinnest = thinnest_with_neighbours(config, decomposition);
  const NeighbourFaces faces = neighbour_faces_of(config, decomposition);
  for (std::size_t a = 0; a < 3; ++a) {
    const std::int64_t needed = thickness_needed(config.parallel.temporal_halo, config.grid.radius, faces[a], wanted);
    if (!thinnest[a] || *thinnest[a] >= needed) continue;
    if (config.parallel.temporal_halo == TemporalHalo::split)
      return fmt::format("the thinnest subdomain along {} holds {} points, fewer than split tiling keeps from its {} "
                         "face{} with neighbours in a sweep of {} steps ({} x (steps + 1) x R = {} points)",
                         "xyz"[a], *thinnest[a], faces[a], faces[a] == 1 ? "" : "s", wanted, faces[a], needed);
    return fmt::format("the thinnest subdomain along {} holds {} points, fewer than the deep halo a sweep of {} "
                       "steps exchanges ({} x R = {} points)",
                       "xyz"[a], *thinnest[a], wanted, wanted, needed);
  }
  return std::nullopt;
}

std::string prefetch_text(int rows) { return fmt::format("prefetch {} row{} ahead", rows, rows == 1 ? "" : "s"); }

std::optional<int> TunedBlocking::prefetch_rows() const {
  if (variant != KernelVariant::columns) return std::nullopt;
  return blocking.prefetch_rows;
}

std::string TunedBlocking::summary_line() const {
  if (source == "given") return "none (blocking.size and blocking.steps given)";
  if (source == "cache")
    return fmt::format("read from {}{}", cache_file,
                       cached_rate_now ? fmt::format(" (its blocks ran at {:.0f} MPoints/s on scratch fields, {:.0f} "
                                                     "when chosen)",
                                                     *cached_rate_now, cached_rate_when_chosen.value_or(0.0))
                                       : "");
  const std::size_t candidates = measured.candidates(), measurements = measured.measured.size();
  std::string why;
  if (cached_rate_now)
    why = fmt::format("the cached blocks ran at {:.0f} MPoints/s, {:.2f}x their {:.0f} when chosen: the machine is "
                      "faster now, so ",
                      *cached_rate_now, *cached_rate_now / *cached_rate_when_chosen, *cached_rate_when_chosen);
  else if (cached_search_cut_short)
    why = fmt::format("the cached blocks come from a search cut short at {:.3f} s, less than this one's {:.3f} s, so ",
                      cached_search_cut_short->first, cached_search_cut_short->second);
  return fmt::format("{}measured {} candidate{} in {:.3f} s (budget {:.3f} s{}{}){}", why, candidates,
                     candidates == 1 ? "" : "s", measured.seconds, measured.budget_seconds,
                     measured.budget_spent ? ", spent" : "",
                     measurements > candidates ? fmt::format(", {} measurements with the leaders' repeats", measurements) : "",
                     kept_where());
}

std::string TunedBlocking::kept_where() const {
  const std::string& pace = measured.pace_note;
  if (cache_file.empty()) return ", not kept (blocking.cache = \"off\")" + (pace.empty() ? "" : "; " + pace);
  if (!pace.empty()) return fmt::format(", not kept in {}: {}", cache_file, pace);
  return ", kept in " + cache_file;
}

std::string TunedBlocking::trial_line() const {
  const std::vector<TrialMeasurement>& trial = measured.trial;
  if (trial.empty()) return measured.trial_skipped;
  // Where the trial compared temporal halos (parallel.temporal_halo = "auto"), each sweep says which.
  const bool halos_compared = std::any_of(trial.begin(), trial.end(), [&](const TrialMeasurement& t) {
    return t.blocking.steps > 1 && t.halo != trial.back().halo;
  });
  const auto with_halo = [&](TemporalHalo halo) {
    if (!halos_compared) return std::string();
    return std::string(halo == TemporalHalo::deep ? " with deep halos" : " with split tiling");
  };
  std::string s = "on real steps (the run's fields and halo exchange):";
  for (const TrialMeasurement& t : trial) {
    std::vector<std::string> rounds;
    for (double r : t.rounds) rounds.push_back(fmt::format("{:.3f}", 1e3 * r));
    s += fmt::format(" {} step{} per sweep{}, blocks {} x {} x {}: {:.3f} ms per step ({});", t.blocking.steps,
                     t.blocking.steps == 1 ? "" : "s", t.blocking.steps > 1 ? with_halo(t.halo) : "",
                     t.blocking.size[0], t.blocking.size[1], t.blocking.size[2], 1e3 * t.seconds_per_step,
                     fmt::join(rounds, ", "));
  }
  s += fmt::format(" {} kept", blocking.steps == 1 ? "one step per sweep"
                                                   : "the sweep of " + std::to_string(blocking.steps) +
                                                         with_halo(temporal_halo));
  if (!measured.trial_note.empty()) s += fmt::format(" ({})", measured.trial_note);
  return s;
}

nlohmann::json TunedBlocking::to_json() const {
  nlohmann::json out = {{"source", source},
                        {"measure_s", measured.seconds},
                        {"budget_s", measured.budget_seconds},
                        {"candidates", measured.candidates()},
                        {"measurements", measured.measured.size()},
                        {"budget_spent", measured.budget_spent},
                        {"cache_file", cache_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(cache_file)},
                        {"notice", notice.empty() ? nlohmann::json(nullptr) : nlohmann::json(notice)},
                        {"pace_change", or_null(search_pace_change(measured.measured))},
                        {"cached_rate_when_chosen", or_null(cached_rate_when_chosen)},
                        {"cached_rate_now", or_null(cached_rate_now)},
                        {"cached_search_cut_short",
                         cached_search_cut_short
                             ? nlohmann::json{{"budget_s", cached_search_cut_short->first},
                                              {"wanted_s", cached_search_cut_short->second}}
                             : nlohmann::json(nullptr)},
                        {"pace_note", measured.pace_note.empty() ? nlohmann::json(nullptr)
                                                                 : nlohmann::json(measured.pace_note)}};
  out.update(trial_to_json(measured));
  return out;
}

std::string keep_in_cache(const std::filesystem::path& file, const TuningKey& key, const TuningOutcome& outcome) {
  // A search during which the machine's pace moved answers for this run only.
  if (!outcome.pace_note.empty()) return "";
  try {
    write_tuning_cache(file, key, outcome);
  } catch (const std::exception& e) {
    return fmt::format("the tuned blocking was not kept: {}", e.what());
  }
  return "";
}

template <typename T>
TunedBlocking tune_for_run(const RunConfig& config, MPI_Comm comm, const Box& owned,
                           const NeighbourFaces& neighbour_faces, int max_steps, const TuningBudget& budget,
                           bool measure_anyway, const RealStepTimer& real_steps) {
  TunedBlocking out;
  out.blocking = with_prefetch_rows(config.blocking, config.grid.radius);
  out.variant = kernel_variant(config.kernel, config.grid.radius);
  out.temporal_halo = trial_halos(config.parallel.temporal_halo).front();
  const bool tune_steps = config.tune.steps && max_steps > 1;
  if (!config.tune.size && !tune_steps) {
    out.source = "given";
    return out;
  }
  const std::optional<std::filesystem::path> file = tuning_cache_path(config.tune.cache);
  if (file) out.cache_file = file->string();
  const MachineInfo machine = collect_machine_info();
  TuningBudget sized = budget;
  // The share of the run the search may take is the slowest rank's: alike on every rank, as the
  // search's collectives need.
  sized.run_point_updates = mpi::allreduce_max(comm, budget.run_point_updates);
  if (const auto llc = total_last_level_cache_bytes(machine))
    sized.scratch_bytes = std::max(sized.scratch_bytes, 2.0 * static_cast<double>(*llc));
  // Alike on every rank too, where nodes differ: the scratch fields' size sets the rates measured.
  sized.scratch_bytes = mpi::allreduce_max(comm, sized.scratch_bytes);
  // The candidates come from the largest subdomain extent and the most threads of any rank (ranks on
  // nodes with fewer ranks may run more threads), the same on every rank.
  Index3 agreed{};
  for (int a = 0; a < 3; ++a) agreed[a] = static_cast<std::int64_t>(mpi::allreduce_max(comm, static_cast<double>(owned.extent(a))));
  const int agreed_threads = static_cast<int>(mpi::allreduce_max(comm, omp_get_max_threads()));
  const auto slowest = [&](double seconds) { return mpi::allreduce_max(comm, seconds); };
  const TuningKey key = key_for(config, machine, agreed, neighbour_faces, tune_steps, max_steps);
  // A cached search cut short by its budget answers no search longer than it (CachedTuning::answers):
  // a short first run's choice of one or two candidates must not stand for the longer runs after it.
  std::optional<CachedTuning> cached = measure_anyway ? std::nullopt : cached_on_all(comm, file, key);
  // A folded choice kept where memory allowed it is no answer where it does not.
  if (cached && cached->variant == KernelVariant::folded && !config.tune.folded_fits) cached.reset();
  if (cached) {
    const double wanted = sized.seconds_for(cached->mpoints_per_second.value_or(0.0));
    if (!cached->answers(wanted)) {
      out.cached_search_cut_short = std::pair{cached->budget_seconds, wanted};
      cached.reset();
    }
  }
  if (cached) {
    if (cached->mpoints_per_second) {
      out.cached_rate_when_chosen = cached->mpoints_per_second;
      out.cached_rate_now = mpi::collectively(comm, [&] {
        return measure_blocking_rate<T>(config, owned, agreed, neighbour_faces, cached->blocking, cached->variant,
                                        kCachedChoiceCheckSeconds, sized.scratch_bytes, slowest);
      });
    }
    const bool faster_now =
        out.cached_rate_now && *out.cached_rate_now > *out.cached_rate_when_chosen * (1.0 + kPaceTolerance);
    if (!faster_now) {
      out.blocking = cached->blocking;
      out.variant = cached->variant;
      out.temporal_halo = cached->temporal_halo;
      out.source = "cache";
      return out;
    }
  }
  out.measured = mpi::collectively(comm, [&] {
    return tune_blocking<T>(config, owned, agreed, neighbour_faces, config.tune.size, tune_steps, max_steps, sized,
                            slowest, real_steps, agreed_threads);
  });
  out.blocking = out.measured.blocking;
  out.variant = out.measured.variant;
  out.temporal_halo = out.measured.temporal_halo;
  out.source = "measured";
  if (file && mpi::rank_in(comm) == 0) out.notice = keep_in_cache(*file, key, out.measured);
  return out;
}

template TunedBlocking tune_for_run<float>(const RunConfig&, MPI_Comm, const Box&, const NeighbourFaces&, int,
                                           const TuningBudget&, bool, const RealStepTimer&);
template TunedBlocking tune_for_run<double>(const RunConfig&, MPI_Comm, const Box&, const NeighbourFaces&, int,
                                            const TuningBudget&, bool, const RealStepTimer&);

}  // namespace wave3d::engine
