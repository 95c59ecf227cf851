#pragma once
// Loading a run's configuration: a TOML file (or the built-in default) plus command-line overrides,
// checked against the schema and turned into a RunConfig. Call it on one rank and broadcast the
// result with config_to_json / config_from_json.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_error.hpp"
#include "config/run_config.hpp"

namespace wave3d {

// path: a TOML file; nullopt = the built-in configs/default.toml. Keys the file leaves out take
// the schema's defaults. overrides: "key=value" strings (from --set), applied in order after the
// file; they may set keys the file does not have. Throws ConfigError with a one-line message.
RunConfig load_run_config(const std::optional<std::string>& path, const std::vector<std::string>& overrides);

// The text of configs/default.toml as embedded at build time.
std::string_view default_config_toml();

}  // namespace wave3d
