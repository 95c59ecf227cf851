#include "iobench/node_aware_write.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "field/memory_placement.hpp"
#include "iobench/io_threads.hpp"
#include "iobench/node_split.hpp"
#include "iobench/numa_distances.hpp"
#include "runtime/hwloc_topology.hpp"
#include "topology/topology.hpp"

namespace wave3d {

struct NodeAwareWriter::Machine {
  HwlocTopology hwloc;
  std::map<int, std::vector<int>> node_pus;  // each node's PUs within this process's binding
  std::vector<NodeCores> nodes;              // nodes with at least one of those PUs
  NumaDistances distances = NumaDistances::of(hwloc);

  Machine() {
    // A rank bound by the launcher to some cores keeps its I/O threads on them, so ranks sharing a
    // node do not take each other's cores.
    const HwlocBitmap mine = process_cpuset(hwloc.get());
    for (auto& [node, pus] : node_pus_of(Topology::load_this_system())) {
      std::vector<int> usable;
      for (int pu : pus)
        if (hwloc_bitmap_isset(mine.get(), static_cast<unsigned>(pu))) usable.push_back(pu);
      if (usable.empty()) continue;
      nodes.push_back(NodeCores{.node = node, .cores = static_cast<int>(usable.size())});
      node_pus[node] = std::move(usable);
    }
  }
};

NodeAwareWriter::NodeAwareWriter() : machine_(std::make_unique<Machine>()) {}
NodeAwareWriter::~NodeAwareWriter() = default;

NodeAwareWriteResult NodeAwareWriter::write(int fd, const std::string& file, std::span<const WriteSegment> segments,
                                            const NodeAwareWriteOptions& options) const {
  if (options.threads < 0)
    throw std::invalid_argument(fmt::format("I/O threads = {} is not allowed: 0 (one per NUMA node of the data) or "
                                            "more",
                                            options.threads));
  NodeAwareWriteResult result;
  const NodeSplit split = split_by_node(segments, system_page_bytes());
  result.page_locations_unavailable = split.unavailable_reason;
  int threads = options.threads;
  if (threads == 0) threads = std::max<int>(1, static_cast<int>(split.parts.size()));
  NodeDistance distance;
  if (!machine_->distances.empty())
    distance = [this](int from, int to) {
      const auto d = machine_->distances.between(from, to);
      return d ? static_cast<int>(*d) : 1 << 30;
    };
  const std::vector<IoThreadTask> tasks = plan_io_threads(split.parts, threads, machine_->nodes, distance);
  for (const IoThreadTask& t : tasks) {
    result.threads.push_back(IoThreadSummary{.cpu_node = t.cpu_node, .data_nodes = t.data_nodes, .bytes = t.bytes});
    result.bytes += t.bytes;
  }
  if (tasks.empty()) return result;
  IoThreadOptions io;
  if (options.bind) {
    io.topology = &machine_->hwloc;
    io.node_pus = machine_->node_pus;
  }
  const OpenFile target{fd, file};
  result.seconds = run_io_threads(tasks, std::span<const OpenFile>(&target, 1), io).seconds;
  return result;
}

}  // namespace wave3d
