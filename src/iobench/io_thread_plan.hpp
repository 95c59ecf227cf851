#pragma once
// Which I/O thread writes what, and on which NUMA node it runs: a pure function of where the data
// is (the parts of split_by_node), how many threads there are and how many cores each node has.
//
// The rule (the parallel I/O study's policy): threads go to the nodes holding the data, in
// proportion to the bytes each node holds (at least one per node with data when there are enough
// threads); a node's part is cut into equal pieces, one per thread; a thread runs on the node of its
// data while that node has a free core, otherwise on the nearest node with a free core (so a buffer
// on one node is read remotely by the threads beyond that node's cores, as in the study's
// on-one-node curve). With fewer threads than nodes holding data, each thread takes whole parts,
// largest first to the least loaded thread, and runs on the node of its largest part.
#include <cstdint>
#include <functional>
#include <vector>

#include "iobench/node_split.hpp"
#include "iobench/write_segment.hpp"

namespace wave3d {

struct NodeCores {
  int node = -1;  // OS index
  int cores = 0;  // threads the node takes before it counts as full
};

// Distance between two nodes (OS indices), smaller is nearer; used only to choose where a thread
// spills to. Empty: nodes are taken in the order given.
using NodeDistance = std::function<int(int from, int to)>;

struct IoThreadTask {
  int cpu_node = -1;            // node whose cores the thread is bound to; -1 = not bound
  std::vector<int> data_nodes;  // nodes its memory is on (-1 = unknown), ascending
  std::vector<WriteSegment> segments;
  std::uint64_t bytes = 0;
};

// `threads` >= 1. Threads whose share is empty (more threads than bytes) are left out, so the result
// may be shorter than `threads`; it is never empty for a non-empty write. Every byte of every part is
// in exactly one task. Cuts fall on multiples of `granule` bytes of the file where a segment allows.
std::vector<IoThreadTask> plan_io_threads(const std::vector<NodePart>& parts, int threads,
                                          const std::vector<NodeCores>& nodes, const NodeDistance& distance = {},
                                          std::size_t granule = 4096);

// Cuts `segments` into `pieces` runs of (nearly) equal bytes, in order; cut points are moved back to a
// multiple of `granule` in the file where that stays inside the segment being cut. Empty runs are kept.
std::vector<std::vector<WriteSegment>> cut_evenly(const std::vector<WriteSegment>& segments, int pieces,
                                                 std::size_t granule);

}  // namespace wave3d
