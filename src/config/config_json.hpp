#pragma once
// The resolved configuration as JSON, with the TOML layout: {"grid": {"n": [..], ...}, ...} and
// enumerations as their TOML words. Used to record run.json and to send the config from rank 0 to
// the other ranks.
#include <nlohmann/json.hpp>

#include "config/run_config.hpp"

namespace wave3d {

nlohmann::json config_to_json(const RunConfig& config);

// The inverse of config_to_json. The JSON goes through the same checks as a TOML file (origin
// "json" in messages); keys it lacks take their defaults. Throws ConfigError.
RunConfig config_from_json(const nlohmann::json& json);

}  // namespace wave3d
