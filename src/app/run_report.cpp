#include "app/run_report.hpp"

#include <fmt/format.h>

#include "config/config_json.hpp"
#include "config/enum_names.hpp"
#include "output/runtime_json.hpp"
#include "runtime/byte_size.hpp"
#include "stencil/coefficients.hpp"

namespace wave3d::app {
namespace {

double courant_number(const RunConfig& c) { return c.physics.velocity * c.physics.dt / c.grid.spacing; }

std::string binding_lines(const ThreadBinding& binding) {
  std::string s = fmt::format("  binding   OMP_PROC_BIND {} ({} places)\n", binding.proc_bind, binding.num_places);
  for (const auto& t : binding.threads) {
    s += fmt::format("    thread {:3d}  cpu {:>3}  allowed {:<12} numa {}\n", t.thread,
                     t.cpu ? std::to_string(*t.cpu) : "?", t.affinity,
                     t.numa_node ? std::to_string(*t.numa_node) : "?");
  }
  return s;
}

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }
nlohmann::json optional_json(const std::optional<std::uint64_t>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

}  // namespace

std::string checksum_text(std::uint64_t checksum) { return fmt::format("0x{:016x}", checksum); }

std::string format_header(const RunConfig& c, const RunContext& context, const ThreadBinding& binding) {
  std::string s;
  s += fmt::format("wave3d: isotropic acoustic wave, order 2 in time, order {} in space (R = {})\n",
                   2 * c.grid.radius, c.grid.radius);
  s += fmt::format("  grid      {} x {} x {} points, spacing {} m, {} boundaries, {} precision\n", c.grid.n[0],
                   c.grid.n[1], c.grid.n[2], c.grid.spacing, enum_name(c.grid.boundary), enum_name(c.precision));
  s += fmt::format("  physics   v = {} m/s, dt = {} s, Courant number {:.4f} (stability limit {:.4f})\n",
                   c.physics.velocity, c.physics.dt, courant_number(c),
                   courant_limit(second_derivative_weights(c.grid.radius)));
  s += fmt::format("  run       {} steps, initial condition {}, init policy {}, blocks {} x {} x {}\n", c.steps,
                   enum_name(c.initial.kind), enum_name(c.init_policy), c.blocking.size[0], c.blocking.size[1],
                   c.blocking.size[2]);
  s += fmt::format("  parallel  {} MPI rank(s) x {} OpenMP thread(s), {}\n", context.ranks, context.threads_per_rank,
                   context.mpi_thread_level);
  s += fmt::format("  machine   {}\n", context.topology_summary);
  s += binding_lines(binding);
  return s;
}

std::string format_summary(const RunConfig& c, const RunOutcome& o) {
  std::string s;
  s += fmt::format("time:        {:.4f} s for {} steps\n", o.loop_seconds, o.steps_done);
  s += fmt::format("throughput:  {:.2f} MPoints/s\n", o.mpoints_per_second());
  s += fmt::format("flops:       {:.2f} GFlops ({} flops per point)\n", o.gflops(), o.flops_per_point);
  s += fmt::format("bandwidth:   {:.2f} GB/s effective ({} bytes per point, perfect cache reuse)\n",
                   o.effective_gbytes_per_second(), o.bytes_per_point);
  if (o.peak_rss && o.rss_before_fields) {
    s += fmt::format("memory:      fields {}, peak RSS {} ({} before the fields)\n", format_bytes(o.field_bytes),
                     format_bytes(*o.peak_rss), format_bytes(*o.rss_before_fields));
  }
  s += fmt::format("checksum:    {}   L2 norm {:.9g}\n", checksum_text(o.checksum), o.l2_norm);
  s += fmt::format("result:      {}   {}\n", status_word(o.verification.status), o.verification.detail);
  (void)c;
  return s;
}

nlohmann::json run_document(const RunConfig& config, const RunContext& context, const ThreadBinding& binding,
                            const RunOutcome& o, const nlohmann::json& provenance) {
  nlohmann::json phases = nlohmann::json::array();
  for (std::size_t r = 0; r < o.step_times.size(); ++r) {
    nlohmann::json per_phase = nlohmann::json::object();
    for (const auto& summary : o.step_times[r].summaries(1)) per_phase[summary.phase] = summary;
    phases.push_back({{"rank", r}, {"phases", per_phase}});
  }
  nlohmann::json doc;
  doc["config"] = config_to_json(config);
  doc["provenance"] = provenance;
  doc["parallel"] = {{"ranks", context.ranks},
                     {"threads_per_rank", context.threads_per_rank},
                     {"mpi_thread_level", context.mpi_thread_level}};
  doc["binding"] = {{"rank", 0}, {"threads", binding}};
  doc["metrics"] = {{"steps", o.steps_done},
                    {"seconds", o.loop_seconds},
                    {"updated_points_per_step", o.updated_points},
                    {"mpoints_per_second", o.mpoints_per_second()},
                    {"gflops", o.gflops()},
                    {"effective_gbytes_per_second", o.effective_gbytes_per_second()},
                    {"flops_per_point", o.flops_per_point},
                    {"bytes_per_point", o.bytes_per_point},
                    {"step_phases_after_first_step", phases}};
  doc["memory"] = {{"field_bytes", o.field_bytes},
                   {"rss_before_fields_bytes", optional_json(o.rss_before_fields)},
                   {"peak_rss_bytes", optional_json(o.peak_rss)}};
  doc["verification"] = {{"status", status_word(o.verification.status)},
                         {"method", o.verification.method},
                         {"max_error", optional_json(o.verification.max_error)},
                         {"tolerance", optional_json(o.verification.tolerance)},
                         {"detail", o.verification.detail}};
  doc["checksum"] = checksum_text(o.checksum);
  doc["l2_norm"] = o.l2_norm;
  if (o.failure) doc["failure"] = *o.failure;
  return doc;
}

}  // namespace wave3d::app
