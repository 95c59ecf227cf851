#pragma once
// Splitting a write by where its source memory actually is: every segment is cut at the page
// boundaries where the NUMA node of the pages changes, and the pieces are grouped per node. An I/O
// thread bound to a node can then copy only memory local to it (the NUMA-aware write of the parallel
// I/O study). The node of each page comes from a query, so tests can supply a synthetic page map.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "iobench/write_segment.hpp"

namespace wave3d {

// The node of each page (OS index), -1 where unknown (a page never written, or the system would not
// say); unavailable_reason is set when the system could not be asked at all.
struct PageNodeAnswer {
  std::vector<int> nodes;
  std::string unavailable_reason;
};
// Asked with page-aligned addresses, ascending, in batches.
using PageNodeQuery = std::function<PageNodeAnswer(std::span<const void* const> pages)>;

// Asks the kernel (move_pages(2) in query mode). Never throws for an unavailable system call: all
// pages are -1 and the reason says why (EPERM under a container's seccomp profile, ENOSYS without NUMA).
PageNodeAnswer query_page_nodes(std::span<const void* const> pages);

struct NodePart {
  int node = -1;  // OS index of the NUMA node holding this memory; -1 = unknown
  std::vector<WriteSegment> segments;  // in the order of the input, cut at node changes
  std::uint64_t bytes = 0;
};

struct NodeSplit {
  std::vector<NodePart> parts;     // ascending node, the unknown part (-1) first; no empty parts
  std::string unavailable_reason;  // from the query, when the page locations could not be asked for
};

// Cuts `segments` (memory may be in any order and pages may be shared between segments) at the
// boundaries of `page_bytes` pages whose node differs, and groups the pieces by node. Pieces that
// follow each other both in memory and in the file are merged again. Every input byte is in exactly
// one output segment.
NodeSplit split_by_node(std::span<const WriteSegment> segments, std::size_t page_bytes,
                        const PageNodeQuery& query = query_page_nodes);

// The system's page size.
std::size_t system_page_bytes();

}  // namespace wave3d
