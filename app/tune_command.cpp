#include "app/tune_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/blocking_tuning.hpp"
#include "engine/config_broadcast.hpp"
#include "engine/placement_setup.hpp"
#include "engine/step_trial.hpp"
#include "engine/subdomain_fields.hpp"
#include "runtime/denormals.hpp"
#include "config/enum_names.hpp"
#include "mpi/collective.hpp"
#include "mpi/decomposition.hpp"
#include "mpi/environment.hpp"
#include "solver/wave_solver.hpp"

namespace wave3d::app {

using namespace engine;  // the run engine this subcommand drives

namespace {

struct TuneOptions {
  std::optional<std::string> config_path;
  std::vector<std::string> overrides;
  double seconds = 10.0;     // measuring budget
  bool sweep_steps = false;  // also search blocking.steps
};

int run_tune(const TuneOptions& o, MPI_Comm comm) {
  RunConfig config = load_config_on_root(comm, o.config_path, o.overrides);
  config.tune.size = true;
  if (o.sweep_steps) config.tune.steps = true;
  check_thread_count(config, comm);
  if (config.threads > 0) omp_set_num_threads(config.threads);
  (void)set_denormals(config.denormals);  // as the run computes: its sweeps' pace may depend on it
  (void)apply_placement(config, comm);  // measure with the threads where the run will have them
  const int ranks = mpi::size_of(comm), rank = mpi::rank_in(comm);
  const mpi::Decomposition d = mpi::collectively(comm, [&] {
    return mpi::decompose(config.grid.n, ranks, mpi::requested_dims(config.parallel.process_grid), config.grid.radius);
  });
  const Box owned = d.box_of(rank);
  // The blocks are measured for the temporal halo the run will resolve to on these ranks; where "auto"
  // resolves to split tiling, the trial may still find deep halos faster, as in a run.
  const TemporalSetUp temporal = temporal_set_up(config, d);
  config.parallel.temporal_halo = temporal.tuner_halo;
  const std::optional<std::string>& obstacle = temporal.obstacle;
  const int max_steps = temporal.max_steps;
  const TuningBudget budget = TuningBudget::fixed(o.seconds);
  const NeighbourFaces faces = neighbour_faces_of(config, d);
  // The trial on real steps runs on these ranks as the run would: their Cartesian grid, the progress
  // thread if the halo mode has one.
  RankGrid grid;
  build_rank_grid(grid, config, comm, d);
  const TunedBlocking tuned =
      config.precision == Precision::single
          ? tune_for_run<float>(config, comm, owned, faces, max_steps, budget, true,
                                real_step_timer<float>(config, *grid.cart, grid.progress()))
          : tune_for_run<double>(config, comm, owned, faces, max_steps, budget, true,
                                 real_step_timer<double>(config, *grid.cart, grid.progress()));
  if (rank != 0) return 0;
  const std::vector<KernelVariant> kernels = kernel_candidates(config.kernel, config.grid.radius, config.tune.size);
  std::vector<std::string_view> kernel_names;
  for (KernelVariant v : kernels) kernel_names.push_back(to_string(v));
  fmt::print("wave3d tune: {} rank(s) x {} thread(s), subdomain {} x {} x {} (rank 0), kernel {}{}, R = {}, {} "
             "precision\n",
             ranks, omp_get_max_threads(), owned.extent(0), owned.extent(1), owned.extent(2), to_string(tuned.variant),
             kernels.size() > 1 ? fmt::format(" (chosen among {})", fmt::join(kernel_names, ", ")) : "",
             config.grid.radius, enum_name(config.precision));
  if (config.tune.steps && obstacle) fmt::print("  blocking.steps: 1 ({})\n", *obstacle);
  if (temporal.halo_notice) fmt::print("  {}\n", *temporal.halo_notice);
  fmt::print("  {}\n", tuned.summary_line());
  if (const std::string trial = tuned.trial_line(); !trial.empty()) fmt::print("  {}\n", trial);
  // The chosen candidate is marked at its last measurement, the repeats of a leader as such.
  const std::vector<TuningMeasurement>& measured = tuned.measured.measured;
  std::size_t last_chosen = measured.size();  // none
  for (std::size_t i = 0; i < measured.size(); ++i)
    if (candidate_key(measured[i].variant, measured[i].blocking) == candidate_key(tuned.variant, tuned.blocking))
      last_chosen = i;
  const std::string chosen_mark =
      tuned.measured.trial.empty() ? "  <- chosen (best median)" : "  <- chosen (the fastest on real steps)";
  std::set<CandidateKey> seen;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const Blocking& b = measured[i].blocking;
    const bool again = !seen.insert(candidate_key(measured[i].variant, b)).second;
    const bool columns = measured[i].variant == KernelVariant::columns;
    fmt::print("  {}{}[{}, {}, {}] x {} step{} per sweep{}: {:9.1f} MPoints/s (slowest rank){}{}\n",
               kernels.size() > 1 ? to_string(measured[i].variant) : "", kernels.size() > 1 ? " " : "", b.size[0],
               b.size[1], b.size[2], b.steps, b.steps == 1 ? "" : "s",
               columns ? ", " + prefetch_text(b.prefetch_rows) : "", measured[i].mpoints_per_second,
               again ? ", again" : "", i == last_chosen ? chosen_mark : "");
  }
  if (!tuned.notice.empty()) fmt::print("  {}\n", tuned.notice);
  fmt::print("\n# config lines for these runs:\n");
  if (kernels.size() > 1) fmt::print("[stencil]\nkernel = \"{}\"\n", to_string(tuned.variant));
  fmt::print("[blocking]\nsize = [{}, {}, {}]\nsteps = {}\n", tuned.blocking.size[0], tuned.blocking.size[1],
             tuned.blocking.size[2], tuned.blocking.steps);
  if (const std::optional<int> rows = tuned.prefetch_rows()) fmt::print("prefetch_rows = {}\n", *rows);
  // Sweeps of several steps that meet neighbours were measured with this temporal halo.
  if (tuned.blocking.steps > 1 && any_neighbour(faces))
    fmt::print("[parallel]\ntemporal_halo = \"{}\"\n", enum_name(tuned.temporal_halo));
  return 0;
}

}  // namespace

Command add_tune_command(CLI::App& parent) {
  auto o = std::make_shared<TuneOptions>();
  CLI::App* cli = parent.add_subcommand(
      "tune", "Measure the cache blocks (and with --sweep-steps the time steps per sweep) for a run's config on "
              "these ranks and threads, print the config lines and keep them in the tuning cache (blocking.cache)");
  cli->add_option("config", o->config_path, "TOML config file (default: the built-in configs/default.toml)");
  cli->add_option("--set", o->overrides, "Override one config key, as for wave3d run (repeatable)")
      ->type_name("KEY=VALUE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cli->add_option("--seconds", o->seconds, "Time to spend measuring (the candidates left when it is spent are skipped)")
      ->check(CLI::Range(0.01, 3600.0))
      ->capture_default_str();
  cli->add_flag("--sweep-steps", o->sweep_steps,
                "Also search blocking.steps (temporal blocking, up to the T the subdomains are thick enough for)");
  return {cli, [o](MPI_Comm comm, const std::vector<std::string>&) { return run_tune(*o, comm); }};
}

}  // namespace wave3d::app
