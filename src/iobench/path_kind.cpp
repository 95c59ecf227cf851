#include "iobench/path_kind.hpp"

#include <algorithm>

namespace wave3d {

PathKind classify_path(int buffer_node, int thread_node, int destination_node) {
  const bool read_local = buffer_node == thread_node;
  const bool write_local = thread_node == destination_node;
  if (read_local && write_local) return PathKind::local;
  if (write_local) return PathKind::pull;
  if (read_local) return PathKind::push;
  return buffer_node == destination_node ? PathKind::round_trip : PathKind::relay;
}

std::string_view to_string(PathKind kind) {
  switch (kind) {
    case PathKind::local: return "local";
    case PathKind::pull: return "pull";
    case PathKind::push: return "push";
    case PathKind::relay: return "relay";
    case PathKind::round_trip: return "round-trip";
  }
  return "?";
}

std::string_view describe(PathKind kind) {
  switch (kind) {
    case PathKind::local: return "buffer, thread and page cache on one node";
    case PathKind::pull: return "thread reads a remote buffer, writes to its own node";
    case PathKind::push: return "thread reads its own node's buffer, writes to a remote node";
    case PathKind::relay: return "thread reads one remote node and writes another";
    case PathKind::round_trip: return "thread reads a remote buffer and writes back to that node";
  }
  return "?";
}

std::vector<PathKind> path_kinds_between(const std::vector<int>& nodes) {
  std::vector<PathKind> kinds;
  for (int b : nodes)
    for (int t : nodes)
      for (int d : nodes) {
        const PathKind kind = classify_path(b, t, d);
        if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
      }
  std::sort(kinds.begin(), kinds.end());
  return kinds;
}

}  // namespace wave3d
