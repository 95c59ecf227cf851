#pragma once
// Settings: the checked value of each key given so far and where it came from. Sources are applied
// in order (file, then each --set override), a later one replacing an earlier value of the same key.
#include <map>
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "config/config_error.hpp"
#include "config/config_schema.hpp"

namespace wave3d {

struct Setting {
  ConfigValue value;
  std::string origin;  // "file.toml:7", "--set", "json" or "default", for messages
};

using Settings = std::map<std::string, Setting, std::less<>>;

// Checks every key of a parsed document (nested tables become dotted keys) and stores it.
// source_name names the document in messages. Throws ConfigError on an unknown key or a bad value.
void add_table_settings(Settings& settings, const toml::table& document, std::string_view source_name);

// The error for a key the schema does not know, suggesting the closest known key when one is close.
ConfigError unknown_key_error(std::string_view key, std::string_view origin);

// Parses TOML text, turning a syntax error into ConfigError "source_name:LINE: TOML syntax error: ...".
toml::table parse_toml_text(std::string_view text, std::string_view source_name);

// Reads and parses a TOML file; a missing or unreadable file is a ConfigError.
toml::table parse_toml_file(const std::string& path);

}  // namespace wave3d
