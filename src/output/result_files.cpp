#include "output/result_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "output/timestamps.hpp"
#include "runtime/hostname.hpp"

namespace wave3d {
namespace {

std::string errno_text(int err) { return std::generic_category().message(err); }

// Closes the descriptor on every path out of write_file_atomically.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }
  // close() can report a deferred write error (NFS), so its result matters for the data file.
  int close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

[[noreturn]] void fail(std::string_view what, const std::filesystem::path& path, int err) {
  throw std::runtime_error(fmt::format("cannot {} {}: {}", what, path.string(), errno_text(err)));
}

void write_all(int fd, std::string_view data, const std::filesystem::path& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write", path, errno);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

void sync_directory(const std::filesystem::path& dir) {
  // Makes the rename itself durable. Some file systems refuse fsync on a directory; the file's data
  // is already synced then, so that is not worth failing the run for.
  const FileDescriptor fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() >= 0) (void)::fsync(fd.get());
}

void check_run_name(std::string_view name) {
  if (name == "." || name == ".." || name.find('/') != std::string_view::npos || name.find('\0') != std::string_view::npos)
    throw std::invalid_argument(
        fmt::format("output.name = '{}' is not allowed; allowed: a single directory name, without '/'", name));
}

// An earlier run's results are never overwritten.
void check_not_taken(const std::filesystem::path& dir) {
  std::error_code ec;
  const bool taken = std::filesystem::exists(dir / kRunJsonName, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot inspect run directory {}: {}", dir.string(), ec.message()));
  if (taken)
    throw std::runtime_error(fmt::format(
        "run directory {} already holds {} from an earlier run; choose another run name or move it away",
        dir.string(), kRunJsonName));
}

}  // namespace

std::string default_run_name(std::chrono::system_clock::time_point started, std::string_view host, long pid) {
  std::string safe_host(host.empty() ? std::string_view("unknown-host") : host);
  for (char& c : safe_host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return fmt::format("{}-{}-{}", compact_utc(started), safe_host, pid);
}

std::filesystem::path create_run_directory(const std::filesystem::path& parent, std::string_view name,
                                           std::chrono::system_clock::time_point started) {
  const std::string run_name =
      name.empty() ? default_run_name(started, short_hostname(), static_cast<long>(::getpid())) : std::string(name);
  check_run_name(run_name);
  const std::filesystem::path dir = parent / run_name;

  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create run directory {}: {}", dir.string(), ec.message()));
  if (!std::filesystem::is_directory(dir, ec))
    throw std::runtime_error(fmt::format("run directory {} exists and is not a directory", dir.string()));
  check_not_taken(dir);
  return dir;
}

void check_directory_can_be_created(const std::filesystem::path& dir, std::string_view setting) {
  std::error_code ec;
  std::filesystem::path existing = std::filesystem::absolute(dir, ec);
  if (ec) existing = dir;
  while (!std::filesystem::exists(existing, ec) && existing.has_relative_path()) existing = existing.parent_path();
  if (!std::filesystem::is_directory(existing, ec))
    throw std::runtime_error(fmt::format("{} = '{}': cannot create it: {} is not a directory", setting, dir.string(),
                                         existing.string()));
  if (::access(existing.c_str(), W_OK | X_OK) != 0)
    throw std::runtime_error(fmt::format("{} = '{}': cannot create or write in it: {}: {}", setting, dir.string(),
                                         existing.string(), errno_text(errno)));
}

void check_run_directory_can_be_created(const std::filesystem::path& parent, std::string_view name) {
  if (!name.empty()) check_run_name(name);
  check_directory_can_be_created(name.empty() ? parent : parent / name, "output.directory");
  if (!name.empty()) check_not_taken(parent / name);
}

void remove_if_empty(const std::filesystem::path& dir) noexcept {
  std::error_code ec;
  if (!dir.empty() && std::filesystem::is_empty(dir, ec) && !ec) std::filesystem::remove(dir, ec);
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  // Same directory as the target, so the rename stays within one file system and is atomic.
  std::filesystem::path tmp = path;
  tmp += fmt::format(".tmp.{}", static_cast<long>(::getpid()));

  FileDescriptor fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) fail("create", path, errno);  // nothing to clean up yet
  try {
    write_all(fd.get(), contents, path);
    if (::fsync(fd.get()) != 0) fail("fsync", path, errno);
    if (fd.close() != 0) fail("close", path, errno);
    if (::rename(tmp.c_str(), path.c_str()) != 0) fail("rename temporary file onto", path, errno);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  sync_directory(path.has_parent_path() ? path.parent_path() : std::filesystem::path("."));
}

void write_json_atomically(const std::filesystem::path& path, const nlohmann::json& document) {
  std::string text = document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  text += '\n';
  write_file_atomically(path, text);
}

std::string format_steps_csv(const std::vector<StepTimes>& per_rank, int first_step) {
  if (per_rank.empty()) throw std::invalid_argument("steps.csv needs the times of at least one rank");
  const std::vector<std::string>& phases = per_rank.front().phases();
  for (std::size_t r = 1; r < per_rank.size(); ++r)
    if (per_rank[r].phases() != phases)
      throw std::invalid_argument(fmt::format("steps.csv: rank {} has other phases than rank 0", r));

  std::string csv = fmt::format("rank,step,{}\n", fmt::join(phases, ","));
  auto out = std::back_inserter(csv);
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    const StepTimes& times = per_rank[r];
    for (int step = 0; step < times.steps(); ++step) {
      fmt::format_to(out, "{},{}", r, first_step + step);
      for (std::size_t p = 0; p < phases.size(); ++p) {
        const double seconds = times.at(step, p);
        if (std::isnan(seconds))
          csv += ',';
        else
          fmt::format_to(out, ",{:.9g}", seconds);
      }
      csv += '\n';
    }
  }
  return csv;
}

void write_steps_csv(const std::filesystem::path& path, const std::vector<StepTimes>& per_rank, int first_step) {
  write_file_atomically(path, format_steps_csv(per_rank, first_step));
}

}  // namespace wave3d
