#include "iobench/io_thread_plan.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <stdexcept>

namespace wave3d {
namespace {

// Threads per part in proportion to its bytes (largest remainder), then at least one each, taken
// from the part with the most (seats >= count).
std::vector<int> apportion(const std::vector<std::uint64_t>& weights, int seats) {
  const std::size_t n = weights.size();
  std::vector<int> result(n, 0);
  const long double total = std::accumulate(weights.begin(), weights.end(), 0.0L);
  std::vector<long double> remainder(n, 0.0L);
  int given = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const long double quota = total > 0 ? seats * (static_cast<long double>(weights[i]) / total) : 0.0L;
    result[i] = static_cast<int>(quota);
    given += result[i];
    remainder[i] = quota - result[i];
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  for (std::size_t k = 0; given < seats; k = (k + 1) % n, ++given) ++result[order[k]];
  for (std::size_t i = 0; i < n; ++i) {
    if (result[i] > 0) continue;
    *std::max_element(result.begin(), result.end()) -= 1;
    result[i] = 1;
  }
  return result;
}

// Hands out cores: the data's own node while it has one free, else the nearest node with one free,
// else (every core taken) the data's own node again.
class CoreLedger {
 public:
  CoreLedger(const std::vector<NodeCores>& nodes, const NodeDistance& distance) : nodes_(nodes), distance_(distance) {
    for (const NodeCores& n : nodes_) free_.push_back(std::max(n.cores, 0));
  }

  // A free core of `node` itself, if it has one.
  std::optional<int> take_own(int node) {
    const std::size_t own = index_of(node);
    if (own < nodes_.size() && free_[own] > 0) return take_at(own);
    return std::nullopt;
  }

  int take(int wanted) {
    if (nodes_.empty()) return -1;
    const std::size_t own = index_of(wanted);
    if (own < nodes_.size() && free_[own] > 0) return take_at(own);
    std::size_t best = nodes_.size();
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (free_[i] == 0) continue;
      if (best == nodes_.size()) {
        best = i;
      } else if (wanted < 0) {  // data of unknown place: the node with the most free cores
        if (free_[i] > free_[best]) best = i;
      } else if (distance_ && distance_(wanted, nodes_[i].node) < distance_(wanted, nodes_[best].node)) {
        best = i;
      }
    }
    if (best < nodes_.size()) return take_at(best);
    if (own < nodes_.size()) return nodes_[own].node;
    return nodes_[next_++ % nodes_.size()].node;  // unknown data, no cores left: round-robin
  }

 private:
  std::size_t index_of(int node) const {
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      if (nodes_[i].node == node) return i;
    return nodes_.size();
  }
  int take_at(std::size_t i) {
    --free_[i];
    return nodes_[i].node;
  }

  std::vector<NodeCores> nodes_;
  NodeDistance distance_;
  std::vector<int> free_;
  std::size_t next_ = 0;
};

}  // namespace

std::vector<std::vector<WriteSegment>> cut_evenly(const std::vector<WriteSegment>& segments, int pieces,
                                                 std::size_t granule) {
  if (pieces < 1) throw std::invalid_argument("cut_evenly: pieces must be at least 1");
  if (granule == 0) granule = 1;
  std::vector<std::vector<WriteSegment>> out(static_cast<std::size_t>(pieces));
  const std::uint64_t total = total_bytes(segments);
  std::size_t seg = 0;       // segment being consumed
  std::size_t used = 0;      // bytes of it already handed out
  std::uint64_t handed = 0;  // bytes handed out so far
  for (int k = 0; k < pieces; ++k) {
    // Where piece k ends, as a byte count from the start of the write.
    std::uint64_t target = k + 1 == pieces ? total : total * static_cast<std::uint64_t>(k + 1) / pieces;
    auto& piece = out[static_cast<std::size_t>(k)];
    while (handed < target && seg < segments.size()) {
      const WriteSegment& s = segments[seg];
      std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(s.bytes - used, target - handed));
      if (take < s.bytes - used && k + 1 < pieces) {
        // The cut falls inside this segment: move it back to a granule boundary of the file if it can.
        const std::uint64_t cut = s.file_offset + used + take;
        const std::uint64_t back = cut % granule;
        if (back < take) take -= static_cast<std::size_t>(back);
        target = handed + take;
      }
      if (take > 0) piece.push_back(WriteSegment{s.data + used, s.file_offset + used, take});
      used += take;
      handed += take;
      if (used == s.bytes) {
        ++seg;
        used = 0;
      }
    }
  }
  return out;
}

std::vector<IoThreadTask> plan_io_threads(const std::vector<NodePart>& parts, int threads,
                                          const std::vector<NodeCores>& nodes, const NodeDistance& distance,
                                          std::size_t granule) {
  if (threads < 1) throw std::invalid_argument("plan_io_threads: at least one I/O thread is needed");
  std::vector<const NodePart*> data;
  for (const NodePart& p : parts)
    if (p.bytes > 0) data.push_back(&p);
  CoreLedger cores(nodes, distance);
  std::vector<IoThreadTask> tasks;

  if (static_cast<std::size_t>(threads) < data.size()) {
    // Whole parts per thread, largest first to the least loaded thread.
    std::vector<const NodePart*> order = data;
    std::stable_sort(order.begin(), order.end(),
                     [](const NodePart* a, const NodePart* b) { return a->bytes > b->bytes; });
    tasks.resize(static_cast<std::size_t>(threads));
    for (const NodePart* p : order) {
      auto least = std::min_element(tasks.begin(), tasks.end(),
                                    [](const IoThreadTask& a, const IoThreadTask& b) { return a.bytes < b.bytes; });
      least->data_nodes.push_back(p->node);
      least->segments.insert(least->segments.end(), p->segments.begin(), p->segments.end());
      least->bytes += p->bytes;
    }
    // Each thread runs where its first (largest) part is; keep every thread's segments in file order.
    for (IoThreadTask& t : tasks) {
      t.cpu_node = cores.take(t.data_nodes.front());
      std::sort(t.data_nodes.begin(), t.data_nodes.end());
      std::stable_sort(t.segments.begin(), t.segments.end(),
                       [](const WriteSegment& a, const WriteSegment& b) { return a.file_offset < b.file_offset; });
    }
    return tasks;
  }

  std::vector<std::uint64_t> weights;
  for (const NodePart* p : data) weights.push_back(p->bytes);
  const std::vector<int> per_part = apportion(weights, threads);
  for (std::size_t i = 0; i < data.size(); ++i) {
    for (std::vector<WriteSegment>& piece : cut_evenly(data[i]->segments, per_part[i], granule)) {
      const std::uint64_t bytes = total_bytes(piece);
      if (bytes == 0) continue;
      tasks.push_back(IoThreadTask{.cpu_node = -1, .data_nodes = {data[i]->node}, .segments = std::move(piece),
                                   .bytes = bytes});
    }
  }
  // First every node's own cores go to the threads of its own data; only then do the others spill, so
  // a thread never takes a core that a later node's local thread needs.
  std::vector<bool> placed(tasks.size(), false);
  for (std::size_t i = 0; i < tasks.size(); ++i)
    if (const auto own = cores.take_own(tasks[i].data_nodes.front())) {
      tasks[i].cpu_node = *own;
      placed[i] = true;
    }
  for (std::size_t i = 0; i < tasks.size(); ++i)
    if (!placed[i]) tasks[i].cpu_node = cores.take(tasks[i].data_nodes.front());
  return tasks;
}

}  // namespace wave3d
