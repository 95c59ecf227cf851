#pragma once
// The configuration schema: one declarative table with every key a run accepts. Parsing, type and
// range checks, defaults, JSON conversion and the help text are all driven by this table, so a key is
// described in exactly one place (config_schema.cpp).
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "config/run_config.hpp"
#include "geometry/box.hpp"

namespace wave3d {

enum class ValueKind {
  integer,  // TOML integer
  real,     // TOML float (an integer is accepted and widened)
  boolean,
  string,
  int3,  // array of exactly 3 TOML integers
};

// A checked value of one key, in the C++ type of its kind.
using ConfigValue = std::variant<std::int64_t, double, bool, std::string, Index3>;

struct KeySpec {
  std::string_view key{};  // dotted TOML name, "section.name"
  ValueKind kind = ValueKind::integer;
  // The default as TOML text, parsed with toml++ like any other value. Empty: the key has no fixed
  // default and the loader derives it (the doc says how).
  std::string_view default_toml{};
  // Range of a numeric value (of each element for int3). integer keys also stop at INT_MAX when
  // their RunConfig field is an int.
  double min = -std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
  double max = std::numeric_limits<double>::infinity();
  std::span<const std::string_view> words{};  // string keys: the allowed words; empty = any string
  std::span<const int> numbers{};           // integer keys: the allowed values; empty = any in range
  bool accepts_auto = false;                // the string "auto" is allowed besides values of `kind`
  std::string_view doc{};                   // one line for the help text
  // Store a checked value into the config / read the current value back. The value always has the
  // alternative that matches `kind`.
  void (*apply)(RunConfig& config, const ConfigValue& value) = nullptr;
  ConfigValue (*read)(const RunConfig& config) = nullptr;
};

// Every key, in the order of the help text.
std::span<const KeySpec> config_schema();

// The spec of `key`, or nullptr when there is no such key.
const KeySpec* find_key_spec(std::string_view key);

// The known key a mistyped `key` most likely meant (a small edit distance, or the same name in
// another section: every such key, joined by " or ", when several sections have it), if any.
std::optional<std::string> closest_key(std::string_view key);

// "integer", "number", "boolean", "string", "array of 3 integers".
std::string_view kind_text(ValueKind kind);

// What a key allows, for messages and help: "1, 2, 4, 8", "\"zero\", \"periodic\"", "> 0",
// "each >= 1", "any string".
std::string allowed_text(const KeySpec& spec);

}  // namespace wave3d
