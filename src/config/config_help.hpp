#pragma once
// The documentation of every configuration key, for `wave3d run --help`.
#include <string>

namespace wave3d {

// Every key grouped by section with its type, default, allowed values and description, followed by
// the rules between keys. Generated from the schema, so it cannot fall out of date.
std::string config_help_text();

}  // namespace wave3d
