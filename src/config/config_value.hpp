#pragma once
// Checking one TOML value against its key's spec, and printing values the way a user writes them.
// Every source (file, --set override, JSON, the schema's defaults) goes through check_value, so all
// of them accept and reject exactly the same values with the same messages.
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "config/config_schema.hpp"

namespace wave3d {

// `node` as the spec's C++ value, or ConfigError with one line naming origin, key, the value given,
// the problem and what is allowed, e.g.
//   configs/x.toml:7: stencil.radius = 3 is not allowed; allowed: 1, 2, 4, 8
ConfigValue check_value(const KeySpec& spec, const toml::node& node, std::string_view origin);

// A value as one line of TOML: 3, 0.001, "zero", [64, 64, 64].
std::string value_text(const toml::node& node);
std::string value_text(const ConfigValue& value);

// "name:LINE" for a node parsed from text, or just "name" for one built in memory (from JSON).
std::string origin_of(std::string_view source_name, const toml::node& node);

}  // namespace wave3d
