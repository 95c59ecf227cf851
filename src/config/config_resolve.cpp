#include "config/config_resolve.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/config_error.hpp"
#include "config/config_value.hpp"
#include "config/enum_names.hpp"
#include "counters/event_list.hpp"
#include "output/progress.hpp"
#include "stencil/coefficients.hpp"
#include "stencil/folded_kernel.hpp"
#include "stencil/kernel.hpp"
#include "topology/placement_request.hpp"

namespace wave3d {

namespace {

constexpr std::string_view kDefaultOrigin = "default";

// "key = value (origin)", how a message refers to a key other than the one it leads with.
std::string given(const Settings& settings, std::string_view key) {
  const Setting& s = settings.find(key)->second;
  return fmt::format("{} = {} ({})", key, value_text(s.value), s.origin);
}

// "origin: key = value", the start of every message, naming the key the rule blames.
std::string lead(const Settings& settings, std::string_view key) {
  const Setting& s = settings.find(key)->second;
  return fmt::format("{}: {} = {}", s.origin, key, value_text(s.value));
}

ConfigValue default_value(const KeySpec& spec) {
  const toml::table document = parse_toml_text(fmt::format("v = {}", spec.default_toml), kDefaultOrigin);
  return check_value(spec, *document.get("v"), kDefaultOrigin);
}

void check_mode_needs_periodic(const RunConfig& c, const Settings& s) {
  if (c.initial.kind != InitialKind::mode || c.grid.boundary == Boundary::periodic) return;
  throw ConfigError(fmt::format(
      "{} requires grid.boundary = \"periodic\" (the mode's exact solution is periodic), but {}; allowed with "
      "zero boundaries: init.condition = \"seed-cube\", \"ricker\"",
      lead(s, "init.condition"), given(s, "grid.boundary")));
}

void check_grid_fits_stencil(const RunConfig& c, const Settings& s) {
  // Periodic: the halo exchange wraps at most once, so an axis needs at least R points. Zero: the
  // outer R layer is fixed, so at least one point must remain to update.
  const bool periodic = c.grid.boundary == Boundary::periodic;
  const std::int64_t minimum = periodic ? c.grid.radius : 2 * std::int64_t{c.grid.radius} + 1;
  for (std::int64_t n : c.grid.n)
    if (n < minimum)
      throw ConfigError(fmt::format("{} is too small for {} with {}; allowed: each grid.n >= {}{}", lead(s, "grid.n"),
                                    given(s, "stencil.radius"), given(s, "grid.boundary"), minimum,
                                    periodic ? "" : " (2*radius+1)"));
}

void check_source_inside(const RunConfig& c, const Settings& s) {
  // With zero boundaries the outer R layer is never updated, so a source there would just pile up.
  const Box updated = c.grid.updated();
  if (updated.contains(c.initial.source)) return;
  throw ConfigError(fmt::format(
      "{} is outside the updated points of {} with {}; allowed: {} <= position < n{} on each axis",
      lead(s, "source.position"), given(s, "grid.n"), given(s, "grid.boundary"), updated.lo[0],
      c.grid.boundary == Boundary::periodic ? std::string() : fmt::format(" - {}", c.grid.radius)));
}

// x rounded down to 6 significant digits, so the "largest stable dt" printed is itself stable.
double round_down_6(double x) {
  const double unit = std::pow(10.0, std::floor(std::log10(x)) - 5);
  return std::floor(x / unit) * unit;
}

void check_courant(const RunConfig& c, const Settings& s) {
  const double courant = c.physics.velocity * c.physics.dt / c.grid.spacing;
  const double limit = courant_limit(second_derivative_weights(c.grid.radius));
  if (courant <= limit) return;
  throw ConfigError(fmt::format(
      "{} is unstable: Courant number velocity*dt/spacing = {:.6g} exceeds the limit {:.6g} for {}; allowed: "
      "physics.dt <= {:.6g} s, the largest stable dt for {} and {}",
      lead(s, "physics.dt"), courant, limit, given(s, "stencil.radius"),
      round_down_6(limit * c.grid.spacing / c.physics.velocity), given(s, "physics.velocity"),
      given(s, "grid.spacing")));
}

void check_exact_needs_mode(const RunConfig& c, const Settings& s) {
  if (c.verify != VerifyMethod::exact || c.initial.kind == InitialKind::mode) return;
  throw ConfigError(fmt::format(
      "{} requires init.condition = \"mode\" (the only condition with a known exact solution), but {}; allowed: "
      "verify.method = \"auto\", \"none\"",
      lead(s, "verify.method"), given(s, "init.condition")));
}

void check_progress_needs_overlap(const RunConfig& c, const Settings& s) {
  if (c.parallel.progress == ProgressEngine::none || computes_during_exchange(c.parallel.halo)) return;
  // The default engine is for overlap runs; bulk runs ignore it. Only an explicit choice is an error.
  if (s.find("parallel.progress")->second.origin == kDefaultOrigin) return;
  std::vector<std::string> overlapping;
  for (const std::string& word : enum_words<HaloMode>())
    if (computes_during_exchange(*enum_from_name<HaloMode>(word))) overlapping.push_back(fmt::format("\"{}\"", word));
  const std::string_view mode = enum_name(c.parallel.halo);
  throw ConfigError(fmt::format(
      "{} requires parallel.halo = {} (there is nothing to progress behind in {} mode), but {}; allowed "
      "with {}: parallel.progress = \"none\"",
      lead(s, "parallel.progress"), fmt::join(overlapping, " or "), mode, given(s, "parallel.halo"), mode));
}

void check_progress_core_needs_thread(const RunConfig& c, const Settings& s) {
  if (c.parallel.progress_core < 0 || c.parallel.progress == ProgressEngine::thread) return;
  throw ConfigError(fmt::format(
      "{} names a core for a progress thread, but {}; allowed: parallel.progress = \"thread\", or "
      "parallel.progress_core = -1",
      lead(s, "parallel.progress_core"), given(s, "parallel.progress")));
}

void check_numa_node_with_node_policy(const RunConfig& c, const Settings& s) {
  const bool node_policy = c.memory.policy == MemoryPolicy::node;
  if (node_policy == (c.memory.node >= 0)) return;
  if (node_policy)
    throw ConfigError(fmt::format("{} needs a NUMA node, but {}; allowed: init.numa_node >= 0 (an OS NUMA node index)",
                                  lead(s, "init.policy"), given(s, "init.numa_node")));
  throw ConfigError(fmt::format("{} is only used with init.policy = \"node\", but {}; allowed: init.numa_node = -1",
                                lead(s, "init.numa_node"), given(s, "init.policy")));
}

void check_reserve_syntax(const RunConfig& c, const Settings& s) {
  try {
    (void)ReservedCores::parse(c.placement.reserve);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(fmt::format("{} is not understood: {}", lead(s, "placement.reserve"), e.what()));
  }
}

void check_reserve_needs_layout(const RunConfig& c, const Settings& s) {
  if (c.placement.layout != PlacementLayout::none || ReservedCores::parse(c.placement.reserve).kind ==
                                                         ReservedCores::Kind::none)
    return;
  throw ConfigError(fmt::format(
      "{} reserves cores, but {} leaves placement to the launcher; allowed: a placement.layout such as "
      "\"rank-per-socket\", or placement.reserve = \"none\" (with the launcher, use srun --core-spec)",
      lead(s, "placement.reserve"), given(s, "placement.layout")));
}

void check_counter_events(const RunConfig& c, const Settings& s) {
  try {
    (void)counters::parse_event_list(c.counters.events);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(fmt::format("{} is not an event list: {}; allowed: comma-separated event names, at most {}",
                                  lead(s, "counters.events"), e.what(), counters::kMaxEvents));
  }
}

void check_folded_kernel_built(const RunConfig& c, const Settings& s) {
  if (c.kernel != KernelChoice::folded || folded_kernel_built()) return;
  throw ConfigError(fmt::format(
      "{} needs AVX-512 (the folded kernel's lane permutes), which this build has not (its explicit vectors: {}); allowed here: "
      "stencil.kernel = \"auto\", \"columns\", \"jammed\", \"blocked\", \"reference\"",
      lead(s, "stencil.kernel"), jammed_vector_isa()));
}

constexpr CrossKeyRule kRules[] = {
    {R"(init.condition = "mode" needs grid.boundary = "periodic".)", check_mode_needs_periodic},
    {R"(Every grid.n >= stencil.radius with periodic boundaries, >= 2*stencil.radius+1 with zero boundaries.)",
     check_grid_fits_stencil},
    {R"(source.position is an updated point: 0 <= p < n (periodic) or R <= p < n-R (zero boundaries).)",
     check_source_inside},
    {R"(Stability: physics.velocity*physics.dt/grid.spacing <= the Courant limit of stencil.radius.)",
     check_courant},
    {R"(verify.method = "exact" needs init.condition = "mode".)", check_exact_needs_mode},
    {R"(parallel.progress = "thread" or "poll", when set, needs parallel.halo = "overlap" (bulk ignores the default).)",
     check_progress_needs_overlap},
    {R"(parallel.progress_core >= 0 needs parallel.progress = "thread".)", check_progress_core_needs_thread},
    {R"(init.policy = "node" needs init.numa_node >= 0, and init.numa_node is only used with it.)",
     check_numa_node_with_node_policy},
    {R"(placement.reserve is "none", "per-socket:N", "per-node:N" or "list:i,j,...".)", check_reserve_syntax},
    {R"(placement.reserve other than "none" needs a placement.layout.)", check_reserve_needs_layout},
    {R"(counters.events is a comma-separated list of distinct event names, at most 32.)", check_counter_events},
    {R"(stencil.kernel = "folded" needs a build with AVX-512.)", check_folded_kernel_built},
};

}  // namespace

std::span<const CrossKeyRule> cross_key_rules() { return kRules; }

RunConfig resolve_run_config(const Settings& settings) {
  Settings complete = settings;
  RunConfig config;
  for (const KeySpec& spec : config_schema()) {
    auto it = complete.find(spec.key);
    if (it == complete.end()) {
      if (spec.default_toml.empty()) continue;  // derived below
      it = complete.emplace(std::string(spec.key), Setting{default_value(spec), std::string(kDefaultOrigin)}).first;
    }
    spec.apply(config, it->second.value);
  }
  if (!complete.contains("source.position")) {
    const Index3& n = config.grid.n;
    config.initial.source = {n[0] / 2, n[1] / 2, n[2] / 2};
    complete.emplace("source.position", Setting{config.initial.source, "default: grid centre"});
  }
  // The default progress engine is for overlap runs; a bulk run that did not ask for one has none.
  if (!computes_during_exchange(config.parallel.halo) && complete.find("parallel.progress")->second.origin == kDefaultOrigin)
    config.parallel.progress = ProgressEngine::none;
  for (const CrossKeyRule& rule : kRules) rule.check(config, complete);
  // The environment's say over run.progress = "auto", checked with the file so a bad word is bad input.
  try {
    (void)ProgressReporter::automatic_style(false, false, std::getenv("WAVE3D_PROGRESS"));
  } catch (const std::invalid_argument& e) {
    throw ConfigError(e.what());
  }
  return config;
}

}  // namespace wave3d
