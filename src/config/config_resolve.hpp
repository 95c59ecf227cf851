#pragma once
// The last step of loading: checked settings become a RunConfig. Keys nobody set take the schema's
// default, source.position defaults to the grid centre, and the rules that involve several keys
// (which no single value check can see) are enforced.
#include <span>
#include <string_view>

#include "config/config_settings.hpp"
#include "config/run_config.hpp"

namespace wave3d {

// Throws ConfigError naming every key involved, with its value and origin, when a rule is broken.
RunConfig resolve_run_config(const Settings& settings);

// A rule between keys: a one-line summary for the help text, and its check, which throws
// ConfigError. `settings` holds every key (defaults filled in) and `config` the result.
struct CrossKeyRule {
  std::string_view summary;
  void (*check)(const RunConfig& config, const Settings& settings);
};

// The rules in the order they are checked.
std::span<const CrossKeyRule> cross_key_rules();

}  // namespace wave3d
