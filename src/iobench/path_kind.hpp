#pragma once
// The kinds of path a buffered write can take between three NUMA nodes: where the user buffer is (B),
// where the I/O thread runs (T) and where the page cache receives the data (D). The thread reads B and
// writes D, so each of B != T and T != D is one crossing of the interconnect.
#include <string_view>
#include <vector>

namespace wave3d {

enum class PathKind {
  local,       // B = T = D: no crossing
  pull,        // T = D != B: the thread reads a remote buffer and writes locally
  push,        // B = T != D: the thread reads locally and writes to a remote node
  relay,       // B, T, D all different: read from one remote node, write to another
  round_trip,  // B = D != T: the data goes out to the thread's node and comes back
};

PathKind classify_path(int buffer_node, int thread_node, int destination_node);
std::string_view to_string(PathKind kind);     // "local", "pull", "push", "relay", "round-trip"
std::string_view describe(PathKind kind);      // one phrase for the legend

// The kinds some buffer x thread x destination combination of `nodes` gives, in enum order: local
// only on one node; no relay on two (it needs three distinct nodes).
std::vector<PathKind> path_kinds_between(const std::vector<int>& nodes);

}  // namespace wave3d
