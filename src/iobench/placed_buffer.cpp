#include "iobench/placed_buffer.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "field/memory_placement.hpp"
#include "iobench/node_split.hpp"
#include "runtime/cpu_list.hpp"

namespace wave3d {
namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser: every word differs, no zero pages
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::string bind_to_node(const HwlocTopology& topology, const std::vector<int>& pus) {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set == nullptr) return "out of memory";
  for (int pu : pus) hwloc_bitmap_set(set, static_cast<unsigned>(pu));
  const int rc = hwloc_set_cpubind(topology.get(), set, HWLOC_CPUBIND_THREAD);
  const int err = errno;
  hwloc_bitmap_free(set);
  return rc == 0 ? std::string() : std::generic_category().message(err);
}

}  // namespace

void fill_pattern(std::byte* data, std::size_t bytes, std::uint64_t first_byte_index) {
  for (std::size_t i = 0; i < bytes;) {
    const std::uint64_t b = first_byte_index + i;
    const std::uint64_t word = mix(b / 8);
    const std::size_t in_word = static_cast<std::size_t>(b % 8);
    const std::size_t n = std::min<std::size_t>(8 - in_word, bytes - i);
    for (std::size_t k = 0; k < n; ++k) data[i + k] = static_cast<std::byte>(word >> (8 * (in_word + k)));
    i += n;
  }
}

PlacedBuffer make_placed_buffer(std::size_t bytes, const std::vector<int>& nodes, const HwlocTopology* topology,
                                const std::map<int, std::vector<int>>& node_pus) {
  if (nodes.empty()) throw std::invalid_argument("make_placed_buffer: no NUMA node to place the buffer on");
  PlacedBuffer buffer;
  buffer.memory = AlignedBuffer(bytes);
  buffer.nodes = nodes;
  auto* base = static_cast<std::byte*>(buffer.memory.data());
  const std::size_t page = system_page_bytes();
  const std::size_t blocks = nodes.size();
  auto block_start = [&](std::size_t k) {
    return k == blocks ? bytes : std::min(bytes, bytes / page * k / blocks * page);
  };

  if (topology != nullptr) {
    for (std::size_t k = 0; k < blocks; ++k) {
      const std::size_t begin = block_start(k), end = block_start(k + 1);
      if (end <= begin || nodes[k] < 0) continue;  // -1: no NUMA information, the pages fall where touched
      const auto notice = place_memory(base + begin, end - begin,
                                       MemoryPlacement{.policy = MemoryPolicy::node, .node = nodes[k]}, *topology);
      if (notice && (buffer.notices.empty() || buffer.notices.back() != *notice)) buffer.notices.push_back(*notice);
    }
  }

  std::vector<std::string> errors(blocks);
  std::vector<std::thread> fillers;
  for (std::size_t k = 0; k < blocks; ++k) {
    fillers.emplace_back([&, k] {
      const auto pus = node_pus.find(nodes[k]);
      if (topology != nullptr && pus != node_pus.end() && !pus->second.empty()) {
        const std::string why = bind_to_node(*topology, pus->second);
        if (!why.empty()) {
          errors[k] = fmt::format("cannot bind the thread filling the buffer's block on NUMA node {} to CPUs {}: {}",
                                  nodes[k], format_cpu_list(pus->second), why);
          return;
        }
      }
      const std::size_t begin = block_start(k), end = block_start(k + 1);
      if (end > begin) fill_pattern(base + begin, end - begin, begin);
    });
  }
  for (std::thread& t : fillers) t.join();
  for (const std::string& e : errors)
    if (!e.empty()) throw std::runtime_error(e);
  buffer.pages = locate_pages(base, bytes);
  return buffer;
}

}  // namespace wave3d
