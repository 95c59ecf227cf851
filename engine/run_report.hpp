#pragma once
// What a run tells its user: the header before the time loop, the summary after it, and the
// run.json document. Printing happens on rank 0 only; these functions just format.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/run_outcome.hpp"
#include "config/run_config.hpp"

namespace wave3d::engine {

struct RunContext {
  int ranks = 1;
  int threads_per_rank = 1;
  std::string mpi_thread_level;
  std::string mpi_library;
  std::string topology_summary;
};

std::string format_header(const RunConfig& config, const RunContext& context, const nlohmann::json& binding_map);
std::string format_summary(const RunConfig& config, const RunOutcome& outcome);

// The body of run.json (its header, provenance included, comes with output/json_document.hpp):
// resolved config, parallel set-up, binding, metrics, memory,
// verification and checksum.
nlohmann::json run_document(const RunConfig& config, const RunContext& context, const nlohmann::json& binding_map,
                            const RunOutcome& outcome);

// The mean time per step of one phase (after the first step) on each rank: min, median, max over ranks.
struct PhaseSpread {
  std::string phase;
  double min = 0, median = 0, max = 0;
};
std::vector<PhaseSpread> phase_spreads(const RunOutcome& outcome);

// How much of the step the halo exchange costs (pack + wait + unpack over the step, median rank),
// and in overlap mode the share of the time the messages were in flight that was spent computing the
// interior rather than waiting: interior / (interior + wait). Bulk mode hides nothing.
struct HaloShare {
  std::optional<double> exposed_fraction;
  std::optional<double> hidden_fraction;
};
HaloShare halo_share(const RunConfig& config, const RunOutcome& outcome);

// Jitter seen in the step times (the "total" phase), skipping the first step: per step the slowest
// and the median rank, the noise amplification (mean of the per-step maximum over the mean of the
// per-step median: 1 when no rank is ever late), and percentiles of all ranks' step times.
struct JitterSummary {
  std::vector<double> step_max, step_median;  // seconds, one per step after the first
  double noise_amplification = 1.0;
  double p50 = 0, p99 = 0, max = 0;  // seconds, over every rank's every step after the first
};
std::optional<JitterSummary> jitter_summary(const RunOutcome& outcome);

// "0x" followed by 16 hex digits.
std::string checksum_text(std::uint64_t checksum);

}  // namespace wave3d::engine
