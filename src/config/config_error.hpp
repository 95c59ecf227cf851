#pragma once
// ConfigError: every problem with a configuration (file, --set override or JSON) is reported as one
// of these, with a single line that names the key, the value given, where it came from and what is
// allowed, so the caller only has to print what() and exit.
#include <stdexcept>

namespace wave3d {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace wave3d
