#include "field/page_locations.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "runtime/byte_size.hpp"

namespace wave3d {
namespace {

// Pages per move_pages call: bounds the two scratch arrays without one system call per page.
constexpr std::size_t kChunk = 4096;

std::string why_unavailable(int err) {
  const std::string message = std::generic_category().message(err);
  if (err == EPERM)
    return "move_pages(2) is not permitted here (" + message +
           "; container seccomp profiles usually block it without CAP_SYS_NICE)";
  if (err == ENOSYS) return "move_pages(2) is not available here (" + message + "; kernel without NUMA support?)";
  return "move_pages(2) failed: " + message;
}

}  // namespace

PageHistogram locate_pages(const void* addr, std::size_t bytes, std::size_t max_samples) {
  PageHistogram h;
  const long page = sysconf(_SC_PAGESIZE);
  h.page_bytes = page > 0 ? static_cast<std::size_t>(page) : 4096;
#ifndef SYS_move_pages
  h.unavailable_reason = "move_pages(2) does not exist on this system";
  return h;
#else
  h.available = true;
  if (addr == nullptr || bytes == 0 || max_samples == 0) return h;

  const auto begin = reinterpret_cast<std::uintptr_t>(addr) / h.page_bytes;
  const auto end = (reinterpret_cast<std::uintptr_t>(addr) + bytes - 1) / h.page_bytes + 1;
  const std::uint64_t pages = end - begin;
  // Capped so that i * (pages % samples) below cannot overflow 64 bits.
  const std::uint64_t samples = std::min<std::uint64_t>({pages, max_samples, std::uint64_t{1} << 31});
  const std::uint64_t step = pages / samples, extra = pages % samples;

  std::vector<void*> addresses(std::min<std::uint64_t>(samples, kChunk));
  std::vector<int> status(addresses.size());
  for (std::uint64_t first = 0; first < samples; first += addresses.size()) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(addresses.size(), samples - first));
    for (std::size_t j = 0; j < n; ++j) {
      const std::uint64_t i = first + j;
      // Sample i is page floor(i * pages / samples): evenly spread, first page included.
      const std::uint64_t index = i * step + i * extra / samples;
      addresses[j] = reinterpret_cast<void*>((begin + index) * h.page_bytes);
    }
    // nodes = NULL asks where the pages are instead of moving them; pid 0 is this process.
    if (syscall(SYS_move_pages, 0, static_cast<unsigned long>(n), addresses.data(), nullptr, status.data(), 0) != 0) {
      const int err = errno;
      PageHistogram none;
      none.page_bytes = h.page_bytes;
      none.unavailable_reason = why_unavailable(err);
      return none;
    }
    for (std::size_t j = 0; j < n; ++j) {
      if (status[j] >= 0)
        ++h.pages_per_node[status[j]];
      else if (status[j] == -ENOENT)
        ++h.pages_not_present;
      else
        ++h.pages_other;
    }
    h.pages_sampled += n;
  }
  return h;
#endif
}

nlohmann::json to_json(const PageHistogram& h) {
  if (!h.available) return {{"available", false}, {"unavailable_reason", h.unavailable_reason}};
  nlohmann::json per_node = nlohmann::json::object();
  for (const auto& [node, count] : h.pages_per_node) per_node[std::to_string(node)] = count;
  return {{"available", true},
          {"page_bytes", h.page_bytes},
          {"pages_sampled", h.pages_sampled},
          {"pages_per_node", per_node},
          {"pages_not_present", h.pages_not_present},
          {"pages_other", h.pages_other}};
}

std::string describe(const PageHistogram& h) {
  if (!h.available) return "page locations unavailable: " + h.unavailable_reason;
  auto share = [&](std::uint64_t count) {
    return h.pages_sampled == 0 ? 0.0 : 100.0 * static_cast<double>(count) / static_cast<double>(h.pages_sampled);
  };
  std::string s;
  for (const auto& [node, count] : h.pages_per_node)
    s += fmt::format("node {}: {} ({:.1f}%), ", node, count, share(count));
  if (h.pages_not_present > 0)
    s += fmt::format("not yet placed: {} ({:.1f}%), ", h.pages_not_present, share(h.pages_not_present));
  if (h.pages_other > 0) s += fmt::format("unknown: {} ({:.1f}%), ", h.pages_other, share(h.pages_other));
  return s + fmt::format("of {} sampled {} pages", h.pages_sampled, format_bytes(h.page_bytes));
}

}  // namespace wave3d
