#pragma once
// The NUMA-aware write of one process's data into an open file: its segments are split by the NUMA
// node their memory is on, and I/O threads bound to those nodes (within this process's CPU binding)
// write them with positioned writes. What the HDF5 direct write does on every rank.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "iobench/io_study.hpp"
#include "iobench/write_segment.hpp"

namespace wave3d {

struct NodeAwareWriteOptions {
  int threads = 0;   // I/O threads; 0 = one per NUMA node the data is on
  bool bind = true;  // bind each thread to the cores of its node (false: threads float)
};

struct NodeAwareWriteResult {
  double seconds = 0.0;  // from releasing the threads to the end of the last write
  std::uint64_t bytes = 0;
  std::vector<IoThreadSummary> threads;
  std::string page_locations_unavailable;  // why the data's nodes are unknown, when they are
};

class NodeAwareWriter {
 public:
  // Loads this machine's topology once (a few milliseconds) and the CPUs this process may use.
  NodeAwareWriter();
  ~NodeAwareWriter();
  NodeAwareWriter(const NodeAwareWriter&) = delete;
  NodeAwareWriter& operator=(const NodeAwareWriter&) = delete;

  // Writes every segment to `fd` at its offset. Throws std::runtime_error naming `file`, the thread
  // and the reason when a write fails, std::invalid_argument for threads < 0.
  NodeAwareWriteResult write(int fd, const std::string& file, std::span<const WriteSegment> segments,
                             const NodeAwareWriteOptions& options) const;

 private:
  struct Machine;
  std::unique_ptr<Machine> machine_;
};

}  // namespace wave3d
