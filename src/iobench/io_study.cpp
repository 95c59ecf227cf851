#include "iobench/io_study.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "iobench/file_check.hpp"
#include "iobench/io_threads.hpp"
#include "iobench/node_split.hpp"
#include "iobench/numa_distances.hpp"
#include "iobench/placed_buffer.hpp"
#include "runtime/byte_size.hpp"
#include "runtime/hwloc_topology.hpp"
#include "runtime/memory_usage.hpp"
#include "runtime/statistics.hpp"
#include "topology/topology.hpp"

namespace wave3d {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr int kMaxThreads = 4096;
constexpr int kMaxRepetitions = 1000;

// This machine, loaded once: hwloc for binding, the plain topology for the nodes and their cores.
struct Machine {
  HwlocTopology hwloc;
  Topology topology = Topology::load_this_system();
  std::map<int, std::vector<int>> node_pus = node_pus_of(topology);
  NumaDistances distances = NumaDistances::of(hwloc);

  std::vector<NodeCores> nodes_with_cores() const {
    std::vector<NodeCores> nodes;
    for (const NumaNode& n : topology.numa_nodes)
      if (!n.cores.empty()) nodes.push_back(NodeCores{.node = n.os_index, .cores = static_cast<int>(n.cores.size())});
    return nodes;
  }
  NodeDistance distance() const {
    if (distances.empty()) return {};
    return [this](int from, int to) {
      const auto d = distances.between(from, to);
      return d ? static_cast<int>(*d) : 1 << 30;
    };
  }
  bool can_bind_thread_memory() const {
    const hwloc_topology_support* support = hwloc_topology_get_support(hwloc.get());
    return support->membind->set_thisthread_membind && support->membind->bind_membind;
  }
};

// The files of one write: created empty, closed and deleted when done unless kept.
class FileSet {
 public:
  FileSet(const std::string& directory, std::size_t count) {
    const std::string stem = fmt::format("wave3d-iobench-{}", ::getpid());
    for (std::size_t i = 0; i < count; ++i) {
      const std::string name = (std::filesystem::path(directory) /
                                (count == 1 ? stem + ".dat" : fmt::format("{}-t{}.dat", stem, i)))
                                   .string();
      const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) {
        const int err = errno;
        close_all();
        throw std::runtime_error(fmt::format("cannot create {}: {}", name, std::generic_category().message(err)));
      }
      files_.push_back(OpenFile{fd, name});
    }
  }
  ~FileSet() { close_all(); }
  FileSet(const FileSet&) = delete;
  FileSet& operator=(const FileSet&) = delete;

  std::span<const OpenFile> files() const { return files_; }
  std::vector<std::string> keep() {
    keep_ = true;
    std::vector<std::string> names;
    for (const OpenFile& f : files_) names.push_back(f.name);
    return names;
  }

 private:
  void close_all() {
    for (const OpenFile& f : files_) {
      ::close(f.fd);
      if (!keep_) ::unlink(f.name.c_str());
    }
    files_.clear();
  }
  std::vector<OpenFile> files_;
  bool keep_ = false;
};

struct WriteOutcome {
  double seconds = 0.0;
  std::string check_error;
  PageHistogram destination;
  std::vector<std::string> kept;
};

// One write of `tasks` into fresh files; `inspect` also reads the files back and locates their pages.
WriteOutcome write_once(const std::vector<IoThreadTask>& tasks, FileSharing sharing, const std::string& directory,
                        const IoThreadOptions& io, bool inspect, bool keep) {
  FileSet files(directory, sharing == FileSharing::shared ? 1 : tasks.size());
  WriteOutcome outcome;
  outcome.seconds = run_io_threads(tasks, files.files(), io).seconds;
  if (inspect) {
    bool first = true;
    for (std::size_t i = 0; i < files.files().size(); ++i) {
      const OpenFile& f = files.files()[i];
      std::vector<WriteSegment> written;
      if (sharing == FileSharing::shared) {
        for (const IoThreadTask& t : tasks) written.insert(written.end(), t.segments.begin(), t.segments.end());
      } else {
        written = tasks[i].segments;
      }
      if (outcome.check_error.empty()) outcome.check_error = compare_file_with_segments(f.fd, written, f.name);
      std::uint64_t end = 0;
      for (const WriteSegment& s : written) end = std::max(end, s.file_offset + s.bytes);
      const PageHistogram pages = locate_file_pages(f.fd, end);
      if (first)
        outcome.destination = pages;
      else
        add_histogram(outcome.destination, pages);
      first = false;
    }
  }
  if (keep) outcome.kept = files.keep();
  return outcome;
}

std::vector<IoThreadTask> for_sharing(std::vector<IoThreadTask> tasks, FileSharing sharing) {
  if (sharing == FileSharing::per_thread)
    for (IoThreadTask& t : tasks) t.segments = packed_from_zero(t.segments);
  return tasks;
}

std::vector<IoThreadSummary> summarize_threads(const std::vector<IoThreadTask>& tasks) {
  std::vector<IoThreadSummary> out;
  for (const IoThreadTask& t : tasks)
    out.push_back(IoThreadSummary{.cpu_node = t.cpu_node, .data_nodes = t.data_nodes, .bytes = t.bytes});
  return out;
}

void validate(const IoStudyOptions& o, const IoStudyContext& context) {
  if (o.bytes < 4096)
    throw std::invalid_argument(fmt::format("--size {} bytes is too small: at least 4 KiB", o.bytes));
  if (o.repetitions < 1 || o.repetitions > kMaxRepetitions)
    throw std::invalid_argument(
        fmt::format("--repetitions {} is not allowed: 1 to {}", o.repetitions, kMaxRepetitions));
  for (int t : context.threads)
    if (t < 1 || t > kMaxThreads)
      throw std::invalid_argument(fmt::format("--threads: {} is not allowed: 1 to {}", t, kMaxThreads));
  if (o.placements.empty() || o.sharings.empty())
    throw std::invalid_argument("iobench: nothing to measure (no placement or no file sharing mode)");
  if (o.path_threads < 1 || o.path_threads > kMaxThreads)
    throw std::invalid_argument(fmt::format("--path-threads {} is not allowed: 1 to {}", o.path_threads, kMaxThreads));

  const bool matrix = o.path_matrix && !context.nodes.empty();
  const std::uint64_t largest = std::max(o.bytes, matrix ? o.path_bytes : 0);
  const FileSystemInfo& fs = context.file_system;
  if (fs.free_bytes && *fs.free_bytes < largest)
    throw std::invalid_argument(fmt::format("--size {}: {} has only {} free", format_bytes(largest), fs.path,
                                            format_bytes(*fs.free_bytes)));
  // The buffer, and on a memory file system the file too, must fit in memory without swapping.
  const std::uint64_t memory = largest * (fs.memory_backed ? 2 : 1);
  if (const auto available = available_memory_bytes(); available && *available < memory)
    throw std::invalid_argument(fmt::format("--size {} needs {} of memory ({}), but only {} is available",
                                            format_bytes(largest), format_bytes(memory),
                                            fs.memory_backed ? "the buffer and the file, which a memory file system "
                                                               "keeps in memory"
                                                             : "the buffer",
                                            format_bytes(*available)));
}

PathMatrix measure_path_matrix(const IoStudyOptions& o, const Machine& machine, const IoStudyContext& context,
                               const IoStudyObserver& observer) {
  PathMatrix m;
  m.numa_nodes = static_cast<int>(context.nodes.size());
  m.threads = o.path_threads;
  m.bytes = o.path_bytes;
  std::vector<int> node_ids;
  for (const NodeCores& n : context.nodes) node_ids.push_back(n.node);
  m.kinds_that_exist = path_kinds_between(node_ids);
  const std::string one_node =
      context.nodes.size() == 1
          ? fmt::format("this machine has one NUMA node ({}): the buffer, the I/O thread and the page cache are "
                        "always on it, so only the local path exists",
                        context.nodes.front().node)
          : std::string();
  if (context.nodes.empty()) {
    m.note = "not measured: hwloc reports no NUMA node with cores";
    return m;
  }
  if (!o.path_matrix) {
    m.note = one_node.empty() ? "not measured (--no-path-matrix)" : one_node + "; not measured (--no-path-matrix)";
    return m;
  }
  if (!machine.can_bind_thread_memory()) {
    m.note = (one_node.empty() ? std::string() : one_node + "; ") +
             "not measured: hwloc reports that a thread's memory cannot be bound to a node here, so the page "
             "cache's node cannot be chosen";
    return m;
  }
  m.note = !one_node.empty()
               ? one_node + " (measured once below)"
               : "every buffer node x thread node x page-cache node; the page cache's node is chosen by binding the "
                 "I/O threads' own memory policy, which the new pages of the file follow";
  if (observer.on_path_matrix_start) observer.on_path_matrix_start(m);
  for (const NodeCores& b : context.nodes) {
    const PlacedBuffer buffer = make_placed_buffer(o.path_bytes, {b.node}, &machine.hwloc, machine.node_pus);
    const std::vector<WriteSegment> all{buffer.as_segment()};
    for (const NodeCores& t : context.nodes) {
      std::vector<IoThreadTask> tasks;
      for (std::vector<WriteSegment>& piece : cut_evenly(all, o.path_threads, context.page_bytes)) {
        const std::uint64_t bytes = total_bytes(piece);
        if (bytes > 0)
          tasks.push_back(IoThreadTask{.cpu_node = t.node, .data_nodes = {b.node}, .segments = std::move(piece),
                                       .bytes = bytes});
      }
      for (const NodeCores& d : context.nodes) {
        PathCase c;
        c.buffer_node = b.node;
        c.thread_node = t.node;
        c.destination_node = d.node;
        c.kind = classify_path(b.node, t.node, d.node);
        c.distance_read = machine.distances.between(b.node, t.node);
        c.distance_write = machine.distances.between(t.node, d.node);
        const IoThreadOptions io{.topology = &machine.hwloc, .node_pus = machine.node_pus,
                                 .destination_node = d.node, .fsync = o.fsync};
        std::vector<double> seconds;
        for (int r = 0; r < o.repetitions; ++r) {
          WriteOutcome w = write_once(tasks, FileSharing::shared, o.directory, io, r == 0, false);
          if (!w.check_error.empty()) throw std::runtime_error(w.check_error);
          if (r == 0) c.destination = std::move(w.destination);
          seconds.push_back(w.seconds);
        }
        c.bandwidth = summarize_bandwidth(std::move(seconds), o.path_bytes);
        if (observer.on_path) observer.on_path(c);
        m.cases.push_back(std::move(c));
      }
    }
  }
  m.measured = true;
  return m;
}

}  // namespace

std::string_view to_string(BufferPlacement placement) {
  return placement == BufferPlacement::on_each_node ? "on-each-node" : "on-one-node";
}

std::string_view to_string(FileSharing sharing) { return sharing == FileSharing::shared ? "shared" : "per-thread"; }

std::vector<WriteSegment> packed_from_zero(const std::vector<WriteSegment>& segments) {
  std::vector<WriteSegment> out = segments;
  std::uint64_t offset = 0;
  for (WriteSegment& s : out) {
    s.file_offset = offset;
    offset += s.bytes;
  }
  return out;
}

BandwidthSummary summarize_bandwidth(std::vector<double> seconds, std::uint64_t bytes) {
  BandwidthSummary s;
  s.seconds = std::move(seconds);
  if (s.seconds.empty()) return s;
  const double best = *std::min_element(s.seconds.begin(), s.seconds.end());
  const double median = median_of(s.seconds);
  s.best_gibs = best > 0 ? static_cast<double>(bytes) / best / kGiB : 0.0;
  s.median_gibs = median > 0 ? static_cast<double>(bytes) / median / kGiB : 0.0;
  return s;
}

IoStudyResult run_io_study(const IoStudyOptions& o, const IoStudyObserver& observer) {
  const Machine machine;
  IoStudyResult result;
  IoStudyContext& context = result.context;
  context.file_system = describe_file_system(o.directory);
  context.nodes = machine.nodes_with_cores();
  context.page_bytes = system_page_bytes();
  context.threads = o.threads;
  if (context.threads.empty())
    for (int t = 1; t <= std::max<int>(1, static_cast<int>(machine.topology.cores.size())); ++t)
      context.threads.push_back(t);
  validate(o, context);
  if (observer.on_start) observer.on_start(context);

  const NodeDistance distance = machine.distance();
  for (std::size_t p = 0; p < o.placements.size(); ++p) {
    const BufferPlacement placement = o.placements[p];
    std::vector<int> nodes;
    for (const NodeCores& n : context.nodes) nodes.push_back(n.node);
    if (nodes.empty()) nodes.push_back(-1);  // no NUMA information: the buffer is left where it falls
    if (placement == BufferPlacement::on_one_node) nodes.resize(1);

    const PlacedBuffer buffer = make_placed_buffer(o.bytes, nodes, &machine.hwloc, machine.node_pus);
    const std::vector<WriteSegment> all{buffer.as_segment()};
    const NodeSplit split = split_by_node(all, context.page_bytes);
    PlacementInfo info{.placement = placement, .nodes = nodes, .notices = buffer.notices, .pages = buffer.pages,
                       .bytes_per_node = {}, .split_unavailable_reason = split.unavailable_reason};
    for (const NodePart& part : split.parts) info.bytes_per_node.emplace_back(part.node, part.bytes);
    if (observer.on_placement) observer.on_placement(info);
    result.placements.push_back(std::move(info));

    for (std::size_t ti = 0; ti < context.threads.size(); ++ti) {
      const int threads = context.threads[ti];
      const std::vector<IoThreadTask> plan =
          plan_io_threads(split.parts, threads, context.nodes, distance, context.page_bytes);
      for (std::size_t s = 0; s < o.sharings.size(); ++s) {
        const FileSharing sharing = o.sharings[s];
        const std::vector<IoThreadTask> tasks = for_sharing(plan, sharing);
        const IoThreadOptions io{.topology = &machine.hwloc, .node_pus = machine.node_pus,
                                 .destination_node = std::nullopt, .fsync = o.fsync};
        IoCase c;
        c.placement = placement;
        c.sharing = sharing;
        c.threads = threads;
        c.io_threads = summarize_threads(tasks);
        const bool last_write =
            p + 1 == o.placements.size() && ti + 1 == context.threads.size() && s + 1 == o.sharings.size();
        std::vector<double> seconds;
        for (int r = 0; r < o.repetitions; ++r) {
          const bool keep = o.keep && last_write && r + 1 == o.repetitions;
          WriteOutcome w = write_once(tasks, sharing, o.directory, io, r == 0, keep);
          if (r == 0) {
            c.check_error = w.check_error;
            c.destination = std::move(w.destination);
          }
          if (keep) result.kept_files = w.kept;
          seconds.push_back(w.seconds);
        }
        c.bandwidth = summarize_bandwidth(std::move(seconds), o.bytes);
        if (observer.on_case) observer.on_case(c);
        result.cases.push_back(std::move(c));
      }
    }
  }
  result.path_matrix = measure_path_matrix(o, machine, context, observer);
  return result;
}

}  // namespace wave3d
