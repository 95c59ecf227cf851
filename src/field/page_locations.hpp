#pragma once
// Where the pages of an area actually are: the NUMA node of each (sampled) page, asked of the kernel
// with move_pages(2) in query mode. Reports only what the kernel says, or that it cannot be asked.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "field/field.hpp"

namespace wave3d {

struct PageHistogram {
  std::map<int, std::uint64_t> pages_per_node;  // NUMA node OS index -> sampled pages resident there
  std::uint64_t pages_not_present = 0;          // never written, so not yet placed (-ENOENT)
  std::uint64_t pages_other = 0;                // any other status, e.g. -EFAULT for a page only read so far
  std::uint64_t pages_sampled = 0;              // the sum of the three above
  std::size_t page_bytes = 0;                   // the base page size the area was split into
  bool available = false;                       // false: the counts are empty and unavailable_reason says why
  std::string unavailable_reason;
};

// Asks the kernel for the node of the pages of [addr, addr + bytes): every page when there are at most
// `max_samples` of them, otherwise `max_samples` pages spread evenly over the area. Never throws for
// an unavailable system call: available = false and the reason (EPERM under a seccomp profile,
// ENOSYS on a kernel without NUMA support) are returned instead.
PageHistogram locate_pages(const void* addr, std::size_t bytes, std::size_t max_samples = 65536);

template <typename T>
PageHistogram locate_field_pages(const Field<T>& field, std::size_t max_samples = 65536) {
  return locate_pages(field.data(), field.allocated_bytes(), max_samples);
}

// {"available", "page_bytes", "pages_sampled", "pages_per_node": {"0": n, ...}, "pages_not_present",
//  "pages_other"} or {"available": false, "unavailable_reason"}.
nlohmann::json to_json(const PageHistogram& histogram);

// One line for the console: "node 0: 4096 pages (100.0%); 4096 of 4 KiB pages sampled" or the reason.
std::string describe(const PageHistogram& histogram);

}  // namespace wave3d
