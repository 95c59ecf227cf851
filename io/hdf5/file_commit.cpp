#include "io/hdf5/file_commit.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace wave3d::io {
namespace {

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& path, int error) {
  throw std::runtime_error(what + " '" + path.string() + "': " + std::strerror(error));
}

void sync_path(const std::filesystem::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) fail("cannot open", path, errno);
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  // Some file systems cannot sync a directory; the rename has still happened.
  if (rc != 0 && !(error == EINVAL && (flags & O_DIRECTORY))) fail("cannot flush", path, error);
}

}  // namespace

std::filesystem::path temporary_path(const std::filesystem::path& final_path) {
  std::filesystem::path p = final_path;
  p += ".tmp";
  return p;
}

void publish_file(const std::filesystem::path& temporary, const std::filesystem::path& final_path,
                  Durability durability) {
  const bool flush = durability == Durability::system_crash;
  if (flush) sync_path(temporary, O_RDONLY);
  if (::rename(temporary.c_str(), final_path.c_str()) != 0)
    fail("cannot rename '" + temporary.string() + "' to", final_path, errno);
  const std::filesystem::path directory = final_path.has_parent_path() ? final_path.parent_path() : ".";
  if (flush) sync_path(directory, O_RDONLY | O_DIRECTORY);
}

}  // namespace wave3d::io
