#include "iobench/file_system.hpp"

#include <sys/statvfs.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace wave3d {
namespace {

// mountinfo writes space, tab, newline and backslash in paths as \ooo octal escapes.
std::string unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      const std::string_view digits = s.substr(i + 1, 3);
      if (digits.find_first_not_of("01234567") == std::string_view::npos) {
        out += static_cast<char>(((digits[0] - '0') << 6) | ((digits[1] - '0') << 3) | (digits[2] - '0'));
        i += 3;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

bool is_prefix_path(std::string_view prefix, std::string_view path) {
  if (prefix == "/") return !path.empty() && path.front() == '/';
  if (path.substr(0, prefix.size()) != prefix) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '/';
}

}  // namespace

std::vector<MountEntry> parse_mountinfo(std::string_view text) {
  std::vector<MountEntry> mounts;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string w; fields >> w;) f.push_back(w);
    // id parent major:minor root mount-point options [optional fields...] - type source super-options
    std::size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (f.size() < 5 || dash + 2 >= f.size()) continue;
    mounts.push_back(MountEntry{.mount_point = unescape(f[4]),
                                .type = f[dash + 1],
                                .source = unescape(f[dash + 2]),
                                .super_options = dash + 3 < f.size() ? f[dash + 3] : std::string()});
  }
  return mounts;
}

std::optional<MountEntry> mount_of(const std::vector<MountEntry>& mounts, std::string_view absolute_path) {
  const MountEntry* best = nullptr;
  for (const MountEntry& m : mounts)
    if (is_prefix_path(m.mount_point, absolute_path) &&
        (best == nullptr || m.mount_point.size() >= best->mount_point.size()))
      best = &m;
  if (best == nullptr) return std::nullopt;
  return *best;
}

bool is_memory_file_system(std::string_view type) { return type == "tmpfs" || type == "ramfs"; }

FileSystemInfo describe_file_system(const std::string& directory) {
  std::error_code ec;
  if (!std::filesystem::is_directory(directory, ec))
    throw std::runtime_error(fmt::format("--path {}: {}", directory,
                                         std::filesystem::exists(directory, ec) ? "not a directory"
                                                                                : "no such directory"));
  FileSystemInfo info;
  info.path = std::filesystem::canonical(directory, ec).string();
  if (ec) info.path = std::filesystem::absolute(directory).string();
  std::ifstream in("/proc/self/mountinfo");
  if (in) {
    std::ostringstream text;
    text << in.rdbuf();
    info.mount = mount_of(parse_mountinfo(text.str()), info.path);
  }
  info.memory_backed = info.mount && is_memory_file_system(info.mount->type);
  struct statvfs vfs {};
  if (::statvfs(info.path.c_str(), &vfs) == 0)
    info.free_bytes = static_cast<std::uint64_t>(vfs.f_bavail) * static_cast<std::uint64_t>(vfs.f_frsize);
  return info;
}

}  // namespace wave3d
