#pragma once
// The NUMA-aware parallel write study (SEEDS.md section 3), node level: write bandwidth of one buffer
// written by 1..C I/O threads, with the buffer spread over every NUMA node or held on one, into a
// shared file or one file per thread; and the path matrix of buffer node x thread node x page-cache
// node (on a one-node machine a single case: only the local path exists).
//
// What is measured: each repetition writes a fresh file (created empty, deleted after), timed from
// the release of the bound threads to the end of the last write (plus fsync with `fsync`). On a
// memory file system (tmpfs, ramfs) that is the copy into the page cache, allocation of its pages
// included, as in the study's ramfs runs; on a disk file system without fsync it is the same copy
// (the device is written later by the kernel), with fsync it includes the device. Linux serialises
// buffered writes to one file (every write holds the file's inode lock on tmpfs, ext4 and XFS), so
// only the per-thread files show the copy itself scaling with threads; the shared file is what an
// HDF5 file written in place gets.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "field/page_locations.hpp"
#include "iobench/file_system.hpp"
#include "iobench/io_thread_plan.hpp"
#include "iobench/path_kind.hpp"

namespace wave3d {

enum class BufferPlacement { on_each_node, on_one_node };
enum class FileSharing { shared, per_thread };
std::string_view to_string(BufferPlacement placement);  // "on-each-node", "on-one-node"
std::string_view to_string(FileSharing sharing);        // "shared", "per-thread"

struct IoStudyOptions {
  std::string directory = "/dev/shm";
  std::uint64_t bytes = std::uint64_t{256} << 20;
  std::vector<int> threads;  // thread counts, in the order swept; empty = 1..cores
  std::vector<BufferPlacement> placements{BufferPlacement::on_each_node, BufferPlacement::on_one_node};
  std::vector<FileSharing> sharings{FileSharing::shared, FileSharing::per_thread};
  int repetitions = 3;
  bool fsync = false;
  bool keep = false;  // keep the file(s) of the last write of the sweep
  bool path_matrix = true;
  std::uint64_t path_bytes = std::uint64_t{256} << 20;
  int path_threads = 1;
};

struct IoThreadSummary {
  int cpu_node = -1;
  std::vector<int> data_nodes;
  std::uint64_t bytes = 0;
};

struct BandwidthSummary {
  std::vector<double> seconds;  // every repetition, in order
  double best_gibs = 0.0;       // GiB/s = 2^30 bytes per second
  double median_gibs = 0.0;
};

struct IoCase {
  BufferPlacement placement = BufferPlacement::on_each_node;
  FileSharing sharing = FileSharing::shared;
  int threads = 0;  // asked for; io_threads.size() may be fewer for a tiny buffer
  std::vector<IoThreadSummary> io_threads;
  BandwidthSummary bandwidth;
  std::string check_error;   // empty: the first repetition's file(s) read back equal to the buffer
  PageHistogram destination;  // where the first repetition's page-cache pages are
};

struct PlacementInfo {
  BufferPlacement placement = BufferPlacement::on_each_node;
  std::vector<int> nodes;            // the nodes asked for (block k on nodes[k])
  std::vector<std::string> notices;  // bindings the system refused
  PageHistogram pages;               // where the buffer's pages are (sampled)
  std::vector<std::pair<int, std::uint64_t>> bytes_per_node;  // from the split the threads use (-1: unknown)
  std::string split_unavailable_reason;
};

struct PathCase {
  int buffer_node = -1, thread_node = -1, destination_node = -1;
  PathKind kind = PathKind::local;
  BandwidthSummary bandwidth;
  std::optional<std::uint64_t> distance_read, distance_write;  // firmware distances B->T and T->D
  PageHistogram destination;
};

struct PathMatrix {
  bool measured = false;
  std::string note;  // why not measured, or what the cases are
  int numa_nodes = 0;
  int threads = 1;
  std::uint64_t bytes = 0;
  std::vector<PathKind> kinds_that_exist;  // on this machine's nodes (one node: local only)
  std::vector<PathCase> cases;
};

struct IoStudyContext {
  FileSystemInfo file_system;
  std::vector<NodeCores> nodes;  // NUMA nodes with cores this process may use
  std::vector<int> threads;      // the resolved sweep
  std::size_t page_bytes = 0;
};

struct IoStudyResult {
  IoStudyContext context;
  std::vector<PlacementInfo> placements;
  std::vector<IoCase> cases;
  PathMatrix path_matrix;
  std::vector<std::string> kept_files;
};

// Called as results come, for printing progress on long sweeps.
struct IoStudyObserver {
  std::function<void(const IoStudyContext&)> on_start;
  std::function<void(const PlacementInfo&)> on_placement;
  std::function<void(const IoCase&)> on_case;
  std::function<void(const PathMatrix&)> on_path_matrix_start;
  std::function<void(const PathCase&)> on_path;
};

// Validates the options against this machine first (directory, free space, memory, thread counts,
// repetitions) and throws std::invalid_argument naming the option, its value and what is allowed;
// std::runtime_error when a file cannot be written.
IoStudyResult run_io_study(const IoStudyOptions& options, const IoStudyObserver& observer = {});

// Files of one write: the shared file gets the segments as they are; per-thread files get each
// task's segments packed from offset 0.
std::vector<WriteSegment> packed_from_zero(const std::vector<WriteSegment>& segments);

BandwidthSummary summarize_bandwidth(std::vector<double> seconds, std::uint64_t bytes);

}  // namespace wave3d
