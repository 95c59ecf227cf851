#include "runtime/hostname.hpp"

#include <unistd.h>

#include <array>

namespace wave3d {

std::string hostname() {
  std::array<char, 256> name{};  // POSIX allows 255 bytes plus the terminator
  if (::gethostname(name.data(), name.size() - 1) != 0 || name[0] == '\0') return "unknown-host";
  return std::string(name.data());
}

std::string short_hostname() {
  std::string name = hostname();
  const auto dot = name.find('.');
  if (dot != std::string::npos && dot > 0) name.resize(dot);
  return name;
}

}  // namespace wave3d
