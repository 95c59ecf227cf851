#pragma once
// The user buffer of the I/O study: one allocation cut into page-aligned blocks, block k bound to NUMA
// node nodes[k] (hwloc area binding) and first written by a thread running on that node, so the
// pages land there even where memory binding is not permitted. Filled with a pattern that depends on
// the byte position, so a file written from it can be checked.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "field/aligned_buffer.hpp"
#include "field/page_locations.hpp"
#include "iobench/write_segment.hpp"
#include "runtime/hwloc_topology.hpp"

namespace wave3d {

struct PlacedBuffer {
  AlignedBuffer memory;
  std::vector<int> nodes;            // block k was asked to be on nodes[k] (OS indices)
  std::vector<std::string> notices;  // why a binding could not be applied (pages then follow first touch)
  PageHistogram pages;               // where the pages are, as the kernel says (sampled)

  const std::byte* data() const { return static_cast<const std::byte*>(memory.data()); }
  std::size_t bytes() const { return memory.bytes(); }
  // The whole buffer as one segment written at file offset `offset`.
  WriteSegment as_segment(std::uint64_t offset = 0) const { return {data(), offset, bytes()}; }
};

// `nodes` non-empty. With a topology, binds each block and the thread that fills it (node_pus gives the
// PUs of each node); without one (nullptr), the blocks are filled unbound. Throws std::runtime_error
// when the memory cannot be had or a filling thread cannot be bound.
PlacedBuffer make_placed_buffer(std::size_t bytes, const std::vector<int>& nodes, const HwlocTopology* topology,
                                const std::map<int, std::vector<int>>& node_pus);

// The pattern: byte b of the buffer holds byte (b % 8) of a 64-bit hash of b / 8 (little end first).
void fill_pattern(std::byte* data, std::size_t bytes, std::uint64_t first_byte_index);

}  // namespace wave3d
