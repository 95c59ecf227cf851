#pragma once
// Running a plan of I/O threads: one std::thread per task, bound to the cores of its node with hwloc,
// all released together once every thread is bound, each writing its segments with positioned writes.
// The time is from the release to the end of the last thread's writes (plus fsync when asked).
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "iobench/io_thread_plan.hpp"
#include "runtime/hwloc_topology.hpp"
#include "topology/topology.hpp"

namespace wave3d {

struct OpenFile {
  int fd = -1;
  std::string name;  // for messages
};

struct IoThreadOptions {
  // Binding: thread i runs on node_pus[tasks[i].cpu_node] (PU OS indices). No topology, or a task
  // without a node (-1) or a node missing from the map: that thread is not bound.
  const HwlocTopology* topology = nullptr;
  std::map<int, std::vector<int>> node_pus;
  // Binds the memory the threads allocate (the page-cache pages of the file) to this node, with the
  // threads' own memory policy: the destination of the path matrix. None: the default local policy.
  std::optional<int> destination_node;
  bool fsync = false;  // include fsync(2) of the file(s) in the time
};

struct IoThreadsTiming {
  double seconds = 0.0;                // release to the end of the last write (and fsync)
  std::vector<double> thread_seconds;  // each thread's own write time, in task order
};

// `files` has one entry shared by all tasks, or one per task (each task then writes its own file, at
// the offsets its segments name). Throws std::runtime_error naming the thread(s) that failed to bind
// or write, after all threads have ended; std::invalid_argument for a files/tasks mismatch.
IoThreadsTiming run_io_threads(std::span<const IoThreadTask> tasks, std::span<const OpenFile> files,
                               const IoThreadOptions& options);

// Per-node PU lists of a machine (the allowed PUs of each NUMA node's cores), for IoThreadOptions.
std::map<int, std::vector<int>> node_pus_of(const Topology& topology);

}  // namespace wave3d
