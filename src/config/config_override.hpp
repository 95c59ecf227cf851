#pragma once
// Command-line overrides: `--set key=value`, e.g. grid.n=512,512,256 or stencil.precision=double.
#include <string_view>

#include "config/config_settings.hpp"

namespace wave3d {

// Checks one override and stores it in settings (replacing any earlier value of the key). The value
// is TOML, parsed by toml++, with two conveniences for the shell: a comma-separated list may leave
// out its brackets, and a bare word that is not valid TOML is taken as a string (so
// stencil.precision=double needs no quotes). Throws ConfigError naming "--set" as the origin.
void add_override(Settings& settings, std::string_view text);

}  // namespace wave3d
