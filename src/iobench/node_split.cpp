#include "iobench/node_split.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <stdexcept>
#include <system_error>

namespace wave3d {
namespace {

// Pages per query: bounds the scratch arrays without one system call per page.
constexpr std::size_t kBatch = 4096;

std::uintptr_t page_of(const std::byte* p, std::size_t page_bytes) {
  return reinterpret_cast<std::uintptr_t>(p) / page_bytes * page_bytes;
}

// The node of every page the segments touch, found with as few queries as possible.
class PageMap {
 public:
  PageMap(std::span<const WriteSegment> segments, std::size_t page_bytes, const PageNodeQuery& query)
      : page_bytes_(page_bytes) {
    for (const WriteSegment& s : segments) {
      if (s.bytes == 0) continue;
      const std::uintptr_t last = page_of(s.data + (s.bytes - 1), page_bytes);
      for (std::uintptr_t p = page_of(s.data, page_bytes); p <= last; p += page_bytes) pages_.push_back(p);
    }
    std::sort(pages_.begin(), pages_.end());
    pages_.erase(std::unique(pages_.begin(), pages_.end()), pages_.end());
    nodes_.assign(pages_.size(), -1);
    std::vector<const void*> batch;
    for (std::size_t first = 0; first < pages_.size(); first += kBatch) {
      const std::size_t n = std::min(kBatch, pages_.size() - first);
      batch.assign(n, nullptr);
      for (std::size_t i = 0; i < n; ++i) batch[i] = reinterpret_cast<const void*>(pages_[first + i]);
      const PageNodeAnswer answer = query(batch);
      if (!answer.unavailable_reason.empty() && unavailable_reason_.empty())
        unavailable_reason_ = answer.unavailable_reason;
      if (answer.nodes.size() != n && answer.unavailable_reason.empty())
        throw std::logic_error("split_by_node: the page query answered for a different number of pages");
      for (std::size_t i = 0; i < std::min(n, answer.nodes.size()); ++i) nodes_[first + i] = answer.nodes[i];
    }
  }

  int node_of(const std::byte* p) const {
    const std::uintptr_t page = page_of(p, page_bytes_);
    const auto it = std::lower_bound(pages_.begin(), pages_.end(), page);
    return nodes_[static_cast<std::size_t>(it - pages_.begin())];
  }
  const std::string& unavailable_reason() const { return unavailable_reason_; }

 private:
  std::size_t page_bytes_;
  std::vector<std::uintptr_t> pages_;
  std::vector<int> nodes_;
  std::string unavailable_reason_;
};

void append(NodePart& part, const WriteSegment& piece) {
  part.bytes += piece.bytes;
  if (!part.segments.empty()) {
    WriteSegment& last = part.segments.back();
    if (last.data + last.bytes == piece.data && last.file_offset + last.bytes == piece.file_offset) {
      last.bytes += piece.bytes;
      return;
    }
  }
  part.segments.push_back(piece);
}

}  // namespace

PageNodeAnswer query_page_nodes(std::span<const void* const> pages) {
  PageNodeAnswer answer;
  answer.nodes.assign(pages.size(), -1);
#ifndef SYS_move_pages
  answer.unavailable_reason = "move_pages(2) does not exist on this system";
#else
  if (pages.empty()) return answer;
  std::vector<int> status(pages.size(), 0);
  // nodes = NULL asks where the pages are instead of moving them; pid 0 is this process.
  if (syscall(SYS_move_pages, 0, static_cast<unsigned long>(pages.size()), const_cast<const void**>(pages.data()),
              nullptr, status.data(), 0) != 0) {
    const int err = errno;
    const std::string message = std::generic_category().message(err);
    answer.unavailable_reason = err == EPERM ? "move_pages(2) is not permitted here (" + message +
                                                   "; container seccomp profiles usually block it)"
                                : err == ENOSYS ? "move_pages(2) is not available here (" + message + ")"
                                                : "move_pages(2) failed: " + message;
    return answer;
  }
  for (std::size_t i = 0; i < pages.size(); ++i) answer.nodes[i] = status[i] >= 0 ? status[i] : -1;
#endif
  return answer;
}

NodeSplit split_by_node(std::span<const WriteSegment> segments, std::size_t page_bytes, const PageNodeQuery& query) {
  if (page_bytes == 0) throw std::invalid_argument("split_by_node: page size 0");
  const PageMap map(segments, page_bytes, query);
  std::map<int, NodePart> parts;  // ordered by node, -1 first
  for (const WriteSegment& s : segments) {
    std::size_t done = 0;
    while (done < s.bytes) {
      const std::byte* start = s.data + done;
      const int node = map.node_of(start);
      // Extend the piece page by page while the node stays the same.
      std::size_t end = std::min<std::size_t>(s.bytes, done + (page_of(start, page_bytes) + page_bytes -
                                                                reinterpret_cast<std::uintptr_t>(start)));
      while (end < s.bytes && map.node_of(s.data + end) == node) end = std::min(s.bytes, end + page_bytes);
      NodePart& part = parts[node];
      part.node = node;
      append(part, WriteSegment{start, s.file_offset + done, end - done});
      done = end;
    }
  }
  NodeSplit split;
  split.unavailable_reason = map.unavailable_reason();
  for (auto& [node, part] : parts) split.parts.push_back(std::move(part));
  return split;
}

std::size_t system_page_bytes() {
  const long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? static_cast<std::size_t>(page) : 4096;
}

}  // namespace wave3d
