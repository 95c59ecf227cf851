#pragma once
// The values of bench's --blocking and --sweep-steps, which take "auto" beside numbers: auto hands the
// choice to the block tuner, as blocking.size and blocking.steps = "auto" do for a run.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "config/run_config.hpp"

namespace wave3d::app {

// --blocking: nullopt for "auto", else the three block sizes of "x,y,z" (each 0, the whole axis, to
// 2^30). Throws std::invalid_argument naming the value and what is allowed.
std::optional<std::array<std::int64_t, 3>> given_blocking(std::string_view text);

// --sweep-steps: counts as in a thread list ("1,4", "1-4"), with kTunedSweepSteps for each "auto", in
// the order written. Throws std::invalid_argument naming the bad entry.
inline constexpr int kTunedSweepSteps = 0;
std::vector<int> sweep_step_list(std::string_view text);

// A --sweep-steps entry as the JSON documents write it: the count, or "auto" for kTunedSweepSteps.
inline nlohmann::json sweep_steps_json(int steps) {
  return steps == kTunedSweepSteps ? nlohmann::json("auto") : nlohmann::json(steps);
}

// A --sweep-steps entry as the text writes it: the count, or "auto" for kTunedSweepSteps.
inline std::string sweep_steps_text(int steps) {
  return steps == kTunedSweepSteps ? std::string("auto") : std::to_string(steps);
}

// Sets T in `config`: blocking.steps, or blocking.steps = "auto" for kTunedSweepSteps.
void set_sweep_steps(RunConfig& config, int steps);

// CLI11 validators that accept exactly what the parsers above accept.
CLI::Validator blocking_validator();
CLI::Validator sweep_steps_validator();

}  // namespace wave3d::app
