#pragma once
// What a placement plan is asked for, in DESIGN.md's vocabulary, and its spelling on the command line.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wave3d {

// The domain one rank (or group of ranks) is given: the whole node, a socket, a NUMA node, or a single
// core (rank-per-core spreads ranks evenly over the sockets, one core each).
enum class Layout { rank_per_node, rank_per_socket, rank_per_numa, rank_per_core };

std::string_view to_string(Layout layout);                      // "rank-per-socket"
std::optional<Layout> parse_layout(std::string_view text);       // inverse of to_string
inline constexpr Layout all_layouts[] = {Layout::rank_per_node, Layout::rank_per_socket, Layout::rank_per_numa,
                                         Layout::rank_per_core};

// Cores kept out of the compute threads: left idle for system daemons, or given to progress threads.
struct ReservedCores {
  enum class Kind { none, per_socket, per_node, list };
  Kind kind = Kind::none;
  int count = 0;           // per_socket, per_node
  std::vector<int> cores{};  // list: logical core indices, as written

  static ReservedCores none() { return {}; }
  static ReservedCores per_socket(int n) { return {Kind::per_socket, n, {}}; }
  static ReservedCores per_node(int n) { return {Kind::per_node, n, {}}; }
  static ReservedCores list(std::vector<int> c) { return {Kind::list, 0, std::move(c)}; }

  // "none", "per-socket:1", "per-node:2", "list:15,31". Throws std::invalid_argument saying what is
  // accepted.
  static ReservedCores parse(std::string_view text);
  std::string to_string() const;  // the form parse accepts

  friend bool operator==(const ReservedCores&, const ReservedCores&) = default;
};

struct PlacementRequest {
  Layout layout = Layout::rank_per_socket;
  int ranks_per_node = 0;    // 0: one per domain (per core for rank-per-core)
  int threads_per_rank = 0;  // 0: fill the cores (or, with use_smt, hardware threads) the rank gets
  ReservedCores reserve{};
  bool progress_thread = false;  // one per rank, on a reserved core of the rank's socket/NUMA node
  bool use_smt = false;          // OpenMP places are hardware threads instead of cores
};

}  // namespace wave3d
