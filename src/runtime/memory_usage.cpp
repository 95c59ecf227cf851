#include "runtime/memory_usage.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <fstream>
#include <iterator>
#include <string>

namespace wave3d {
namespace {

// The value of a "Name:   1234 kB" line, in bytes.
std::optional<std::uint64_t> field_bytes(std::string_view text, std::string_view name) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.size() <= name.size() || line.substr(0, name.size()) != name || line[name.size()] != ':')
      continue;
    line.remove_prefix(name.size() + 1);
    const std::size_t digits = line.find_first_not_of(" \t");
    if (digits == std::string_view::npos) return std::nullopt;
    line.remove_prefix(digits);
    std::uint64_t value = 0;
    const auto [rest, ec] = std::from_chars(line.data(), line.data() + line.size(), value);
    if (ec != std::errc{}) return std::nullopt;
    std::string_view unit(rest, static_cast<std::size_t>(line.data() + line.size() - rest));
    unit.remove_prefix(std::min(unit.find_first_not_of(" \t"), unit.size()));
    // The kernel's "kB" means KiB. Any other unit would be a format we do not know: report nothing.
    if (unit.substr(0, 2) != "kB") return std::nullopt;
    return value * 1024;
  }
  return std::nullopt;
}

std::optional<std::string> read_proc_file(const char* path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return std::nullopt;
  return text;
}

}  // namespace

MemoryUsage parse_proc_status(std::string_view status_text) {
  return {field_bytes(status_text, "VmRSS"), field_bytes(status_text, "VmHWM")};
}

MemoryUsage read_memory_usage() {
  const auto text = read_proc_file("/proc/self/status");
  if (!text) return {};
  return parse_proc_status(*text);
}

std::optional<std::uint64_t> available_memory_bytes() {
  const auto text = read_proc_file("/proc/meminfo");
  if (!text) return std::nullopt;
  return field_bytes(*text, "MemAvailable");
}

std::optional<std::uint64_t> current_rss_bytes() { return read_memory_usage().rss_bytes; }
std::optional<std::uint64_t> peak_rss_bytes() { return read_memory_usage().peak_rss_bytes; }

bool reset_peak_rss() {
  const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t written = 0;
  do {
    written = ::write(fd, "5", 1);
  } while (written < 0 && errno == EINTR);
  const bool closed = ::close(fd) == 0;
  return written == 1 && closed;
}

}  // namespace wave3d
