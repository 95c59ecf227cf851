#include "io/hdf5/file_commit.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "runtime/byte_size.hpp"

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

void check_room_for(const std::filesystem::path& path, std::uint64_t bytes) {
  const std::filesystem::path directory = path.has_parent_path() ? path.parent_path() : ".";
  std::error_code error;
  const std::filesystem::space_info space = std::filesystem::space(directory, error);
  if (error) return;  // nothing known: the write itself will tell
  if (space.available < bytes)
    throw std::runtime_error(fmt::format("'{}' needs about {} and its file system has {} free",
                                         path.string(), format_bytes(bytes), format_bytes(space.available)));
}

void discard_temporary(const std::filesystem::path& temporary) noexcept {
  std::error_code ignored;
  std::filesystem::remove(temporary, ignored);
}

std::filesystem::path temporary_path(const std::filesystem::path& final_path) {
  std::filesystem::path p = final_path;
  p += ".tmp";
  return p;
}

bool is_temporary_path(const std::filesystem::path& path) { return path.extension() == ".tmp"; }

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
