#include "config/config_loader.hpp"

#include "config/config_default_toml.hpp"  // generated from configs/default.toml by sources.cmake
#include "config/config_override.hpp"
#include "config/config_resolve.hpp"
#include "config/config_settings.hpp"

namespace wave3d {

namespace {

// How messages name the embedded file: its origin in the source tree, marked as built in because
// the user's copy of configs/default.toml (if any) is not what was read.
constexpr std::string_view kDefaultSourceName = "built-in configs/default.toml";

}  // namespace

std::string_view default_config_toml() { return generated::kDefaultConfigToml; }

RunConfig load_run_config(const std::optional<std::string>& path, const std::vector<std::string>& overrides) {
  Settings settings;
  if (path)
    add_table_settings(settings, parse_toml_file(*path), *path);
  else
    add_table_settings(settings, parse_toml_text(default_config_toml(), kDefaultSourceName), kDefaultSourceName);
  for (const std::string& text : overrides) add_override(settings, text);
  return resolve_run_config(settings);
}

}  // namespace wave3d
