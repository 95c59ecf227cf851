#include "iobench/io_study_report.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "iobench/file_check.hpp"
#include "runtime/byte_size.hpp"

namespace wave3d {
namespace {

std::string join(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += fmt::format("{}{}", s.empty() ? "" : ",", x < 0 ? std::string("?") : std::to_string(x));
  return s;
}

// "2 on node 0, 1 on node 1; 1 reads remote memory"
std::string thread_nodes(const IoCase& c) {
  std::map<int, int> per_node;
  int remote = 0;
  for (const IoThreadSummary& t : c.io_threads) {
    ++per_node[t.cpu_node];
    if (t.data_nodes.size() != 1 || t.data_nodes.front() != t.cpu_node) ++remote;
  }
  std::string s;
  for (const auto& [node, count] : per_node)
    s += fmt::format("{}{} on {}", s.empty() ? "" : ", ", count, node < 0 ? "no node" : fmt::format("node {}", node));
  if (remote > 0) s += fmt::format("; {} read{} remote memory", remote, remote == 1 ? "s" : "");
  return s;
}

}  // namespace

std::string describe_study(const IoStudyOptions& o, const IoStudyContext& c) {
  const FileSystemInfo& fs = c.file_system;
  std::string out;
  std::string nodes;
  for (const NodeCores& n : c.nodes)
    nodes += fmt::format("{}node {} ({} cores)", nodes.empty() ? "" : ", ", n.node, n.cores);
  out += fmt::format("NUMA nodes with cores: {}\n", nodes.empty() ? std::string("none reported") : nodes);
  if (fs.mount) {
    out += fmt::format("path: {}: file system {} mounted at {} from {}{}, {} free\n", fs.path, fs.mount->type,
                       fs.mount->mount_point, fs.mount->source,
                       fs.mount->super_options.find("mpol=") != std::string::npos
                           ? fmt::format(", mounted with {}: its pages follow that policy", fs.mount->super_options)
                           : std::string(),
                       fs.free_bytes ? format_bytes(*fs.free_bytes) : std::string("unknown"));
  } else {
    out += fmt::format("path: {} (file system type unknown: /proc/self/mountinfo unreadable)\n", fs.path);
  }
  out += fs.memory_backed
             ? "the file system keeps files in memory: a write is the copy into the page cache (page allocation "
               "included), no device is involved\n"
             : o.fsync ? "disk-backed file system: the time includes fsync, so it covers writing the device\n"
                       : "disk-backed file system without --fsync: the time is the copy into the page cache; the "
                         "kernel writes the device later (add --fsync to include it)\n";
  out += fmt::format("{} buffer, {} repetition{} per case, each into a fresh file deleted afterwards; time from "
                     "releasing the bound threads to the end of the last write{}; GiB/s = 2^30 B/s, best (median)\n",
                     format_bytes(o.bytes), o.repetitions, o.repetitions == 1 ? "" : "s",
                     o.fsync ? " and fsync" : "");
  out += "files: 'shared' = one file written at offsets by all threads (as the HDF5 direct write); 'per-thread' = "
         "a file each. Linux serialises buffered writes to one file (inode lock), so only per-thread files show "
         "the copy scaling\n";
  return out;
}

std::string placement_header(const PlacementInfo& p, const std::vector<FileSharing>& sharings) {
  std::string out = fmt::format("\nbuffer {} (asked: node{} {}): {}\n", to_string(p.placement),
                                p.nodes.size() == 1 ? "" : "s", join(p.nodes), describe(p.pages));
  for (const std::string& n : p.notices) out += fmt::format("  note: {}\n", n);
  if (!p.split_unavailable_reason.empty())
    out += fmt::format("  note: the threads cannot be matched to the buffer's nodes: {}\n", p.split_unavailable_reason);
  out += fmt::format("{:>7}", "threads");
  for (FileSharing s : sharings) out += fmt::format("  {:>10} {:>8}", fmt::format("{} GiB/s", to_string(s)), "median");
  out += "  I/O threads\n";
  return out;
}

std::string case_row(const std::vector<IoCase>& cases) {
  if (cases.empty()) return {};
  std::string out = fmt::format("{:>7}", cases.front().threads);
  for (const IoCase& c : cases)
    out += fmt::format("  {:>16.2f} {:>8.2f}", c.bandwidth.best_gibs, c.bandwidth.median_gibs);
  out += fmt::format("  {}\n", thread_nodes(cases.back()));
  for (const IoCase& c : cases)
    if (!c.check_error.empty())
      out += fmt::format("        FILE CHECK FAILED ({}): {}\n", to_string(c.sharing), c.check_error);
  return out;
}

std::string page_cache_line(const std::vector<IoCase>& cases) {
  if (cases.empty()) return {};
  PageHistogram all = cases.front().destination;
  for (std::size_t i = 1; i < cases.size(); ++i) add_histogram(all, cases[i].destination);
  return fmt::format("page cache of the written files: {}\n", describe(all));
}

std::string path_matrix_header(const PathMatrix& m) {
  return fmt::format("\npath matrix: {} per case, {} I/O thread{}; {}\n{:>6} {:>6} {:>6}  {:<10} {:>8} {:>8}  {:>8}  "
                     "{}\n",
                     format_bytes(m.bytes), m.threads, m.threads == 1 ? "" : "s", m.note, "buffer", "thread", "cache",
                     "kind", "GiB/s", "median", "distance", "page cache");
}

std::string path_row(const PathCase& c) {
  const std::string distance = c.distance_read && c.distance_write
                                   ? fmt::format("{}+{}", *c.distance_read, *c.distance_write)
                                   : std::string("-");
  return fmt::format("{:>6} {:>6} {:>6}  {:<10} {:>8.2f} {:>8.2f}  {:>8}  {}\n", c.buffer_node, c.thread_node,
                     c.destination_node, to_string(c.kind), c.bandwidth.best_gibs, c.bandwidth.median_gibs, distance,
                     describe(c.destination));
}

std::string path_matrix_summary(const PathMatrix& m) {
  if (!m.measured) return fmt::format("\npath matrix: {}\n", m.note);
  std::map<PathKind, double> best;
  for (const PathCase& c : m.cases) best[c.kind] = std::max(best[c.kind], c.bandwidth.best_gibs);
  std::string out = "path kinds, best GiB/s (share of local):\n";
  const double local = best.count(PathKind::local) ? best[PathKind::local] : 0.0;
  for (const auto& [kind, gibs] : best)
    out += fmt::format("  {:<10} {:>8.2f} ({:>3.0f} %)  {}\n", to_string(kind), gibs,
                       local > 0 ? 100.0 * gibs / local : 0.0, describe(kind));
  return out;
}

}  // namespace wave3d
