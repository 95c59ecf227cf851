#include "engine/run_report.hpp"

#include "engine/binding_map.hpp"
#include "engine/sweep_levels_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "config/config_json.hpp"
#include "config/enum_names.hpp"
#include "counters/counters_text.hpp"
#include "output/json_optional.hpp"
#include "output/runtime_json.hpp"
#include "runtime/byte_size.hpp"
#include "runtime/statistics.hpp"
#include "stencil/coefficients.hpp"

namespace wave3d::engine {
namespace {

// Whether the run's sweeps met faces that other ranks (or periodic images) fill, where
// parallel.temporal_halo decides how.
bool sweeps_meet_neighbours(const RunOutcome& o, const RunConfig& c) {
  const bool cut = o.process_grid[0] * o.process_grid[1] * o.process_grid[2] > 1;
  return o.steps_per_sweep > 1 && (cut || c.grid.boundary == Boundary::periodic);
}

double courant_number(const RunConfig& c) { return c.physics.velocity * c.physics.dt / c.grid.spacing; }

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }
nlohmann::json optional_json(const std::optional<std::uint64_t>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

nlohmann::json per_rank_pages(const RunOutcome& o) {
  nlohmann::json all = nlohmann::json::array();
  for (const std::string& text : o.pages_per_rank) all.push_back(nlohmann::json::parse(text));
  return all;
}

}  // namespace

std::string checksum_text(std::uint64_t checksum) { return fmt::format("0x{:016x}", checksum); }

std::string format_header(const RunConfig& c, const RunContext& context, const nlohmann::json& binding_map) {
  std::string s;
  s += fmt::format("wave3d: isotropic acoustic wave, order 2 in time, order {} in space (R = {})\n",
                   2 * c.grid.radius, c.grid.radius);
  s += fmt::format("  grid      {} x {} x {} points, spacing {} m, {} boundaries, {} precision\n", c.grid.n[0],
                   c.grid.n[1], c.grid.n[2], c.grid.spacing, enum_name(c.grid.boundary), enum_name(c.precision));
  s += fmt::format("  physics   v = {} m/s, dt = {} s, Courant number {:.4f} (stability limit {:.4f})\n",
                   c.physics.velocity, c.physics.dt, courant_number(c),
                   courant_limit(second_derivative_weights(c.grid.radius)));
  const std::string blocks = c.tune.size ? std::string("auto (tuned before the first step)")
                                          : fmt::format("{} x {} x {}", c.blocking.size[0], c.blocking.size[1],
                                                        c.blocking.size[2]);
  s += fmt::format("  run       {} steps, initial condition {}, init policy {}, blocks {}\n", c.steps,
                   enum_name(c.initial.kind), enum_name(c.memory.policy), blocks);
  s += fmt::format("  parallel  {} MPI rank(s) x {} OpenMP thread(s), {}, halo {}, progress {}\n", context.ranks,
                   context.threads_per_rank, context.mpi_thread_level, enum_name(c.parallel.halo),
                   enum_name(c.parallel.progress));
  s += fmt::format("  machine   {}\n", context.topology_summary);
  s += format_binding_map(binding_map);
  return s;
}

std::vector<PhaseSpread> phase_spreads(const RunOutcome& o) {
  std::vector<PhaseSpread> spreads;
  if (o.step_times.empty()) return spreads;
  const int warmup = o.steps_done > 1 ? 1 : 0;  // the first step pays for page faults and cold caches
  for (std::size_t p = 0; p < o.step_times.front().phase_count(); ++p) {
    std::vector<double> means;
    for (const StepTimes& rank_times : o.step_times) {
      const PhaseSummary summary = rank_times.summary(p, warmup);
      if (summary.count > 0) means.push_back(summary.mean);
    }
    if (means.empty()) continue;
    const auto [lo, hi] = std::minmax_element(means.begin(), means.end());
    spreads.push_back({o.step_times.front().phases()[p], *lo, median_of(means), *hi});
  }
  return spreads;
}

std::optional<double> spread_median(const std::vector<PhaseSpread>& spreads, std::string_view phase) {
  for (const PhaseSpread& s : spreads)
    if (s.phase == phase) return s.median;
  return std::nullopt;
}

HaloShare halo_share(const RunConfig& c, const RunOutcome& o) {
  const auto spreads = phase_spreads(o);
  HaloShare share;
  const auto pack = spread_median(spreads, "pack"), wait = spread_median(spreads, "wait"),
             unpack = spread_median(spreads, "unpack"), total = spread_median(spreads, "total"),
             interior = spread_median(spreads, "interior");
  if (pack && wait && unpack && total && *total > 0) share.exposed_fraction = (*pack + *wait + *unpack) / *total;
  if (!computes_during_exchange(c.parallel.halo))
    share.hidden_fraction = 0.0;
  else if (interior && wait && *interior + *wait > 0)
    share.hidden_fraction = *interior / (*interior + *wait);
  return share;
}

namespace {


}  // namespace

std::optional<JitterSummary> jitter_summary(const RunOutcome& o) {
  if (o.step_times.empty() || o.steps_done < 2) return std::nullopt;
  const std::size_t total = o.step_times.front().phase_index("total");
  JitterSummary j;
  std::vector<double> all;
  for (int step = 1; step < o.steps_done; ++step) {
    std::vector<double> ranks;
    for (const StepTimes& t : o.step_times)
      if (t.recorded(step, total)) ranks.push_back(t.at(step, total));
    if (ranks.empty()) continue;
    all.insert(all.end(), ranks.begin(), ranks.end());
    j.step_max.push_back(*std::max_element(ranks.begin(), ranks.end()));
    j.step_median.push_back(median_of(ranks));
  }
  if (all.empty()) return std::nullopt;
  double sum_max = 0, sum_median = 0;
  for (std::size_t i = 0; i < j.step_max.size(); ++i) {
    sum_max += j.step_max[i];
    sum_median += j.step_median[i];
  }
  j.noise_amplification = sum_median > 0 ? sum_max / sum_median : 1.0;
  std::sort(all.begin(), all.end());
  j.p50 = percentile_nearest_rank(all, 50.0);
  j.p99 = percentile_nearest_rank(all, 99.0);
  j.max = all.back();
  return j;
}

namespace {

// How the halo reaches the folded levels (RunOutcome::halo_route), as the end of the ranks line.
std::string halo_route_text(const std::string& route) {
  if (route == "folded") return ", exchanged in the folded layout";
  if (route == "copied")
    return ", copied between the folded levels and the plain fields around each exchange (deep halos of sweeps, "
           "or cuts along y or z off the folds)";
  return "";
}

}  // namespace

std::string format_summary(const RunConfig& c, const RunOutcome& o) {
  std::string s;
  s += fmt::format("ranks:       {} x {} x {} process grid, halo {} per step over all ranks{}\n", o.process_grid[0],
                   o.process_grid[1], o.process_grid[2], format_bytes(o.halo_bytes_per_step), halo_route_text(o.halo_route));
  const auto spreads = phase_spreads(o);
  if (!spreads.empty()) {
    s += fmt::format("phases:      ms per step, mean over steps after the first, spread over ranks\n");
    s += fmt::format("             {:<14} {:>9} {:>9} {:>9}\n", "phase", "min", "median", "max");
    for (const PhaseSpread& p : spreads)
      s += fmt::format("             {:<14} {:>9.3f} {:>9.3f} {:>9.3f}\n", p.phase, 1e3 * p.min, 1e3 * p.median,
                       1e3 * p.max);
    const HaloShare share = halo_share(c, o);
    if (share.exposed_fraction)
      s += fmt::format("halo:        exposed (pack + wait + unpack) {:.1f} % of the step", 100 * *share.exposed_fraction);
    if (share.hidden_fraction)
      s += fmt::format(", hidden behind the interior {:.1f} %", 100 * *share.hidden_fraction);
    s += "\n";
  }
  if (const auto j = jitter_summary(o))
    s += fmt::format("jitter:      step time p50 {:.3f} ms, p99 {:.3f} ms, max {:.3f} ms; noise amplification {:.3f} "
                     "(mean per-step max over mean per-step median across ranks)\n",
                     1e3 * j->p50, 1e3 * j->p99, 1e3 * j->max, j->noise_amplification);
  s += fmt::format("kernel:      {} (stencil.kernel = {}), blocks {} x {} x {}, {} time step{} per sweep{}{}, {} "
                   "bytes per point assumed\n",
                   o.kernel, enum_name(c.kernel), o.tuning.blocking.size[0], o.tuning.blocking.size[1],
                   o.tuning.blocking.size[2], o.steps_per_sweep, o.steps_per_sweep == 1 ? "" : "s",
                   sweeps_meet_neighbours(o, c) ? fmt::format(" ({} temporal halo)", enum_name(o.temporal_halo))
                                                : "",
                   o.tuning.prefetch_rows() ? ", " + prefetch_text(*o.tuning.prefetch_rows()) : "",
                   o.bytes_per_point);
  s += fmt::format("floats:      {} (stencil.denormals = {})\n", describe_denormals(o.denormals, c.denormals),
                   enum_name(c.denormals));
  s += fmt::format("tuning:      {}\n", o.tuning.summary_line());
  if (const std::string trial = o.tuning.trial_line(); !trial.empty()) s += fmt::format("             {}\n", trial);
  if (!o.tuning.notice.empty()) s += fmt::format("             {}\n", o.tuning.notice);
  if (!o.sweep_notice.empty()) s += fmt::format("temporal:    {}\n", o.sweep_notice);
  if (!o.short_sweeps_notice.empty()) s += fmt::format("temporal:    {}\n", o.short_sweeps_notice);
  if (!o.temporal_halo_notice.empty()) s += fmt::format("temporal:    {}\n", o.temporal_halo_notice);
  if (const std::string levels = sweep_levels_line(o.sweep_levels, o.sweep_threads); !levels.empty())
    s += fmt::format("levels:      {}\n", levels);
  s += fmt::format("time:        {:.4f} s for {} steps\n", o.loop_seconds, o.steps_done);
  if (o.field_io_seconds() > 0)
    s += fmt::format("throughput:  {:.2f} MPoints/s without the {:.4f} s of field files written in the loop; {:.2f} "
                     "MPoints/s with them\n",
                     o.mpoints_per_second(), o.field_io_seconds(), o.mpoints_per_second_with_io());
  else
    s += fmt::format("throughput:  {:.2f} MPoints/s\n", o.mpoints_per_second());
  s += fmt::format("flops:       {:.2f} GFlops ({} flops per point)\n", o.gflops(), o.flops_per_point);
  s += fmt::format("bandwidth:   {:.2f} GB/s effective ({} bytes per point, perfect cache reuse)\n",
                   o.effective_gbytes_per_second(), o.bytes_per_point);
  if (o.peak_rss && o.rss_before_fields) {
    s += fmt::format("memory:      fields {}, peak RSS {} ({} before the fields)\n", format_bytes(o.field_bytes),
                     format_bytes(*o.peak_rss), format_bytes(*o.rss_before_fields));
  }
  s += fmt::format("huge pages:  {} (system THP mode: {}); {} on huge pages after first touch (rank 0)\n",
                   c.memory.huge_pages ? "asked for" : "not asked for (init.huge_pages = false)", o.huge_page_mode,
                   o.huge_page_bytes ? format_bytes(*o.huge_page_bytes) : "unknown");
  static constexpr const char* kFieldNames[] = {"prev", "next", "vel"};
  for (std::size_t i = 0; i < o.page_histograms.size() && i < 3; ++i)
    s += fmt::format("pages:       {} (rank 0): {}\n", kFieldNames[i], describe(o.page_histograms[i]));
  for (const std::string& notice : o.placement_notices) s += fmt::format("notice:      {}\n", notice);
  if (o.counters) s += counters::format_counters_summary(*o.counters, o.effective_gbytes_per_second());
  s += format_field_io(o.field_io);
  s += fmt::format("checksum:    {}   L2 norm {:.9g}\n", checksum_text(o.checksum), o.l2_norm);
  s += fmt::format("result:      {}   {}\n", status_word(o.verification.status), o.verification.detail);
  return s;
}

nlohmann::json run_document(const RunConfig& config, const RunContext& context, const nlohmann::json& binding_map,
                            const RunOutcome& o) {
  nlohmann::json phases = nlohmann::json::array();
  for (std::size_t r = 0; r < o.step_times.size(); ++r) {
    nlohmann::json per_phase = nlohmann::json::object();
    for (const auto& summary : o.step_times[r].summaries(1)) per_phase[summary.phase] = summary;
    phases.push_back({{"rank", r}, {"phases", per_phase}});
  }
  nlohmann::json doc;
  doc["config"] = config_to_json(config);
  doc["parallel"] = {{"ranks", context.ranks},
                     {"threads_per_rank", context.threads_per_rank},
                     {"mpi_thread_level", context.mpi_thread_level},
                     {"progress_thread_cpu_rank0", o.progress_thread_cpu ? nlohmann::json(*o.progress_thread_cpu) : nullptr}};
  doc["binding"] = binding_map;
  doc["kernel"] = {{"name", o.kernel},
                   {"requested", enum_name(config.kernel)},
                   {"denormals", enum_name(o.denormals)},
                   {"denormals_requested", enum_name(config.denormals)},
                   {"blocks", o.tuning.blocking.size},
                   {"blocks_requested", config.tune.size ? nlohmann::json("auto") : nlohmann::json(config.blocking.size)},
                   {"tuning", o.tuning.to_json()},
                   {"steps_per_sweep", o.steps_per_sweep},
                   {"steps_per_sweep_requested", config.tune.steps ? nlohmann::json("auto") : nlohmann::json(config.blocking.steps)},
                   {"temporal_blocking_notice", o.sweep_notice.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.sweep_notice)},
                   {"short_sweeps_notice", o.short_sweeps_notice.empty() ? nlohmann::json(nullptr)
                                                                         : nlohmann::json(o.short_sweeps_notice)},
                   {"temporal_halo", sweeps_meet_neighbours(o, config) ? nlohmann::json(enum_name(o.temporal_halo))
                                                                       : nlohmann::json(nullptr)},
                   {"temporal_halo_notice", o.temporal_halo_notice.empty() ? nlohmann::json(nullptr)
                                                                           : nlohmann::json(o.temporal_halo_notice)},
                   {"prefetch_rows", or_null(o.tuning.prefetch_rows())},
                   {"prefetch_rows_requested", config.tune.prefetch ? nlohmann::json("auto")
                                                                    : nlohmann::json(config.blocking.prefetch_rows)},
                   {"bytes_per_point", o.bytes_per_point},
                   {"sweep_levels", sweep_levels_json(o.sweep_levels, o.sweep_threads)}};
  doc["metrics"] = {{"steps", o.steps_done},
                    {"loop_s", o.loop_seconds},
                    {"updated_points_per_step", o.updated_points},
                    {"field_io_s", o.field_io_seconds()},
                    {"mpoints_per_second", o.mpoints_per_second()},
                    {"mpoints_per_second_with_io", o.mpoints_per_second_with_io()},
                    {"gflop_per_second", o.gflops()},
                    {"effective_gbytes_per_second", o.effective_gbytes_per_second()},
                    {"flops_per_point", o.flops_per_point},
                    {"bytes_per_point", o.bytes_per_point},
                    {"step_phases_after_first_step", phases}};
  nlohmann::json pages = nlohmann::json::object();
  static constexpr const char* kFields[] = {"prev", "next", "vel"};
  for (std::size_t i = 0; i < o.page_histograms.size() && i < 3; ++i) pages[kFields[i]] = to_json(o.page_histograms[i]);
  doc["memory"] = {{"field_bytes", o.field_bytes},
                   {"policy", enum_name(config.memory.policy)},
                   {"rank0_pages_per_numa_node", pages},
                   {"pages_per_numa_node_per_rank", per_rank_pages(o)},
                   {"placement_notices", o.placement_notices},
                   {"rss_before_fields_bytes", optional_json(o.rss_before_fields)},
                   {"peak_rss_bytes", optional_json(o.peak_rss)},
                   {"huge_pages", {{"requested", config.memory.huge_pages},
                                   {"system_mode", o.huge_page_mode},
                                   {"rank0_bytes_after_first_touch", optional_json(o.huge_page_bytes)}}}};
  doc["verification"] = {{"status", status_word(o.verification.status)},
                         {"method", o.verification.method},
                         {"max_error", optional_json(o.verification.max_error)},
                         {"tolerance", optional_json(o.verification.tolerance)},
                         {"detail", o.verification.detail}};
  nlohmann::json spreads = nlohmann::json::object();
  for (const PhaseSpread& p : phase_spreads(o))
    spreads[p.phase] = {{"min_s", p.min}, {"median_s", p.median}, {"max_s", p.max}};
  const HaloShare share = halo_share(config, o);
  doc["decomposition"] = {{"process_grid", o.process_grid},
                          {"halo_bytes_per_step", o.halo_bytes_per_step},
                          {"halo_route", o.halo_route},
                          {"phase_mean_spread_over_ranks", spreads},
                          {"halo_exposed_fraction", optional_json(share.exposed_fraction)},
                          {"halo_hidden_fraction", optional_json(share.hidden_fraction)}};
  if (const auto j = jitter_summary(o)) {
    doc["jitter"] = {{"noise_amplification", j->noise_amplification},
                     {"step_time_p50_s", j->p50},
                     {"step_time_p99_s", j->p99},
                     {"step_time_max_s", j->max},
                     {"per_step_max_s", j->step_max},
                     {"per_step_median_s", j->step_median}};
  }
  doc["field_io"] = field_io_json(o.field_io);
  if (o.counters) doc["counters"] = counters::counters_json(*o.counters, o.effective_gbytes_per_second());
  doc["checksum"] = checksum_text(o.checksum);
  doc["l2_norm"] = o.l2_norm;
  if (o.failure) doc["failure"] = *o.failure;
  return doc;
}

}  // namespace wave3d::engine
