#pragma once
// What `wave3d noise` prints and writes on rank 0 once every rank's results are in: the header that
// says how the probes were set up, the per-CPU table, notes, the histogram, and the --json document.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probe/noise_probe.hpp"
#include "probe/noise_result.hpp"

namespace wave3d::app {

// The probe settings as the user chose them, the same on every rank.
struct NoiseSettings {
  NoiseProbeOptions probe;                      // cpus left empty: they differ per rank
  std::optional<std::vector<int>> cpus;         // --cpus, if given
  std::optional<std::filesystem::path> trace_dir;
};

// The header, table, notes and histogram, ready to print.
std::string format_noise_report(const NoiseSettings& settings, const std::vector<RankNoise>& ranks);

// The --json document: config, clock and trace format, command line, build, every rank's results.
nlohmann::json noise_json_document(const NoiseSettings& settings, const std::vector<RankNoise>& ranks,
                                   const std::vector<std::string>& command_line);

}  // namespace wave3d::app
