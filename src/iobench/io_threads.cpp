#include "iobench/io_threads.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <latch>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "iobench/segment_writer.hpp"
#include "runtime/cpu_list.hpp"
#include "topology/topology.hpp"

namespace wave3d {
namespace {

using Clock = std::chrono::steady_clock;

struct Bitmap {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  ~Bitmap() { hwloc_bitmap_free(set); }
  Bitmap() {
    if (set == nullptr) throw std::bad_alloc();
  }
  Bitmap(const Bitmap&) = delete;
  Bitmap& operator=(const Bitmap&) = delete;
};

// Binds the calling thread; returns an error message, empty on success.
std::string bind_this_thread(const IoThreadTask& task, const IoThreadOptions& options) {
  if (options.topology != nullptr && task.cpu_node >= 0) {
    const auto pus = options.node_pus.find(task.cpu_node);
    if (pus != options.node_pus.end() && !pus->second.empty()) {
      Bitmap cpus;
      for (int pu : pus->second) hwloc_bitmap_set(cpus.set, static_cast<unsigned>(pu));
      if (hwloc_set_cpubind(options.topology->get(), cpus.set, HWLOC_CPUBIND_THREAD) != 0)
        return fmt::format("cannot bind to the CPUs {} of NUMA node {}: {}", format_cpu_list(pus->second),
                           task.cpu_node, std::generic_category().message(errno));
    }
  }
  if (options.destination_node && options.topology != nullptr) {
    Bitmap nodes;
    hwloc_bitmap_only(nodes.set, static_cast<unsigned>(*options.destination_node));
    if (hwloc_set_membind(options.topology->get(), nodes.set, HWLOC_MEMBIND_BIND,
                          HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET) != 0)
      return fmt::format("cannot bind the memory it allocates to NUMA node {}: {}", *options.destination_node,
                         std::generic_category().message(errno));
  }
  return {};
}

}  // namespace

IoThreadsTiming run_io_threads(std::span<const IoThreadTask> tasks, std::span<const OpenFile> files,
                               const IoThreadOptions& options) {
  if (files.empty() || (files.size() != 1 && files.size() != tasks.size()))
    throw std::invalid_argument(fmt::format("run_io_threads: {} files for {} threads (give one, or one per thread)",
                                            files.size(), tasks.size()));
  const std::size_t n = tasks.size();
  // Each thread's results on their own cache line: the threads write them while others run.
  struct alignas(64) Slot {
    Clock::time_point end{};
    double seconds = 0.0;
    std::string error;
  };
  std::vector<Slot> slots(n);
  std::latch ready(static_cast<std::ptrdiff_t>(n));
  std::latch go(1);
  std::vector<std::thread> threads;
  threads.reserve(n);
  // Should a thread fail to start, the ones started must not wait for it forever.
  auto release_and_join = [&] {
    ready.count_down(static_cast<std::ptrdiff_t>(n - threads.size()));
    go.count_down();
    for (std::thread& t : threads) t.join();
  };
  try {
    for (std::size_t i = 0; i < n; ++i) threads.emplace_back([&, i] {
      Slot& slot = slots[i];
      slot.error = bind_this_thread(tasks[i], options);
      ready.count_down();
      go.wait();
      if (!slot.error.empty()) return;
      const OpenFile& file = files.size() == 1 ? files[0] : files[i];
      const Clock::time_point start = Clock::now();
      try {
        write_segments(file.fd, tasks[i].segments, file.name);
      } catch (const std::exception& e) {
        slot.error = e.what();
      }
      slot.end = Clock::now();
      slot.seconds = std::chrono::duration<double>(slot.end - start).count();
    });
  } catch (...) {
    release_and_join();
    throw;
  }
  ready.wait();
  const Clock::time_point start = Clock::now();
  go.count_down();
  for (std::thread& t : threads) t.join();

  std::string errors;
  for (std::size_t i = 0; i < n; ++i)
    if (!slots[i].error.empty())
      errors += fmt::format("{}I/O thread {}: {}", errors.empty() ? "" : "; ", i, slots[i].error);
  if (!errors.empty()) throw std::runtime_error(errors);

  Clock::time_point end = start;
  for (const Slot& s : slots) end = std::max(end, s.end);
  if (options.fsync) {
    for (const OpenFile& f : files)
      if (::fsync(f.fd) != 0)
        throw std::runtime_error(fmt::format("fsync of {}: {}", f.name, std::generic_category().message(errno)));
    end = Clock::now();
  }
  IoThreadsTiming timing;
  timing.seconds = std::chrono::duration<double>(end - start).count();
  for (const Slot& s : slots) timing.thread_seconds.push_back(s.seconds);
  return timing;
}

std::map<int, std::vector<int>> node_pus_of(const Topology& topology) {
  std::map<int, std::vector<int>> pus;
  for (const NumaNode& node : topology.numa_nodes) {
    std::vector<int>& list = pus[node.os_index];
    for (int c : node.cores) {
      const Core& core = topology.cores[static_cast<std::size_t>(c)];
      list.insert(list.end(), core.pus.begin(), core.pus.end());
    }
    std::sort(list.begin(), list.end());
  }
  return pus;
}

}  // namespace wave3d
