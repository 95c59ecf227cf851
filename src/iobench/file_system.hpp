#pragma once
// What a benchmark file is written to: the mount holding a directory, its file-system type, whether
// that keeps files in memory (tmpfs, ramfs: a write is then only the copy into the page cache), and
// the free space.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wave3d {

struct MountEntry {
  std::string mount_point;
  std::string type;           // "tmpfs", "ext4", "lustre", ...
  std::string source;         // device or server
  std::string super_options;  // e.g. "rw,size=24684096k" (a tmpfs mpol= here decides where its pages go)
};

struct FileSystemInfo {
  std::string path;  // the directory asked about, made absolute
  std::optional<MountEntry> mount;  // nullopt when /proc/self/mountinfo cannot be read
  bool memory_backed = false;       // tmpfs or ramfs
  std::optional<std::uint64_t> free_bytes;  // for an unprivileged writer (statvfs f_bavail)
};

// Parses the text of /proc/self/mountinfo (proc(5)), unescaping \040-style octal escapes.
std::vector<MountEntry> parse_mountinfo(std::string_view text);

// The entry whose mount point is the longest path prefix of `absolute_path` (by whole components; the
// later of equal ones, as it hides the earlier), or nullopt.
std::optional<MountEntry> mount_of(const std::vector<MountEntry>& mounts, std::string_view absolute_path);

bool is_memory_file_system(std::string_view type);

// Throws std::runtime_error when `directory` does not exist or is not a directory.
FileSystemInfo describe_file_system(const std::string& directory);

}  // namespace wave3d
