#include "probe/noise_probe.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cerrno>
#include <cstring>
#include <exception>
#include <limits>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace wave3d {
namespace {

using Clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC, as wave3d-noise

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// The fixed work: a chain of dependent multiply-adds (a 64-bit LCG step). Pure core work with no
// memory traffic, so its time depends only on the core being ours; the empty asm keeps the compiler
// from vectorising or folding the chain.
[[gnu::noinline]] std::uint64_t fixed_work(std::uint64_t iterations, std::uint64_t x) {
  for (std::uint64_t i = 0; i < iterations; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    __asm__ volatile("" : "+r"(x));
  }
  return x;
}

std::int64_t time_work(std::uint64_t iterations, std::uint64_t& sink) {
  const std::int64_t start = now_ns();
  sink = fixed_work(iterations, sink);
  return now_ns() - start;
}

// Work iterations for one quantum: double a trial until it takes an eighth of the quantum, then scale
// the best of several trials (the fastest run is the one nothing interrupted).
std::uint64_t calibrate_fwq(std::chrono::nanoseconds quantum) {
  constexpr int trials = 30;
  std::uint64_t sink = 1;
  std::uint64_t iterations = 256;
  while (time_work(iterations, sink) < quantum.count() / 8 && iterations < (std::uint64_t{1} << 40)) iterations *= 2;
  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  for (int t = 0; t < trials; ++t) best = std::min(best, std::max<std::int64_t>(1, time_work(iterations, sink)));
  return fwq_iterations_for(quantum.count(), iterations, best);
}

// Quanta not recorded at the start, so the first recorded one does not pay for cold caches.
constexpr std::uint64_t fwq_warmup_quanta = 100;

void run_fwq(FwqRaw& raw, std::uint64_t iterations, const NoiseProbeOptions& options) {
  raw.iterations = iterations;
  std::uint64_t sink = 1;
  for (std::uint64_t i = 0; i < fwq_warmup_quanta; ++i) sink = fixed_work(iterations, sink);
  // Back to back: each quantum is timed from the end of the previous one, so time lost while storing
  // a sample is charged to a quantum rather than falling between two.
  std::vector<std::int64_t>& out = raw.quantum_ns;
  const std::size_t capacity = out.size();
  const std::int64_t end = now_ns() + options.duration.count();
  const bool by_count = options.fwq_samples.has_value();
  std::size_t n = 0;
  std::int64_t previous = now_ns();
  while (n < capacity) {
    sink = fixed_work(iterations, sink);
    const std::int64_t now = now_ns();
    out[n++] = now - previous;
    previous = now;
    if (!by_count && now >= end) break;
  }
  out.resize(n);
  const volatile std::uint64_t keep = sink;  // the work's result is used
  (void)keep;
}

constexpr int min_gap_reads = 200000;

// The selfish-detour loop: read the clock until the duration is over; a gap above the threshold is a
// detour that started at the reading before it.
void run_selfish(SelfishRaw& raw, std::int64_t origin, const NoiseProbeOptions& options) {
  DetourRecorder& recorder = raw.detours;
  std::uint64_t reads = 1;
  const std::int64_t first = now_ns();
  const std::int64_t end = first + options.duration.count();
  std::int64_t previous = first;
  std::int64_t now = first;
  while (now < end) {
    now = now_ns();
    ++reads;
    if (recorder.observe(previous - origin, now - origin)) {
      // Recording took time of its own: start the next gap after it.
      now = now_ns();
      ++reads;
    }
    previous = now;
  }
  raw.reads = reads;
  raw.elapsed_ns = now - first;
}

std::int64_t min_loop_gap() {
  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  std::int64_t previous = now_ns();
  for (int i = 0; i < min_gap_reads; ++i) {
    const std::int64_t now = now_ns();
    best = std::min(best, now - previous);
    previous = now;
  }
  return std::max<std::int64_t>(best, 1);
}

void validate(const NoiseProbeOptions& o) {
  if (o.cpus.empty()) throw std::invalid_argument("noise probe: no CPUs to probe");
  if (!o.fwq && !o.selfish) throw std::invalid_argument("noise probe: neither FWQ nor selfish detour chosen");
  if (o.duration.count() <= 0) throw std::invalid_argument("noise probe: the duration must be positive");
  if (o.quantum.count() <= 0) throw std::invalid_argument("noise probe: the quantum must be positive");
  if (o.fwq_samples && *o.fwq_samples == 0) throw std::invalid_argument("noise probe: FWQ samples must be positive");
  if (o.threshold_ns && *o.threshold_ns <= 0) throw std::invalid_argument("noise probe: the threshold must be positive");
}

std::size_t fwq_capacity(const NoiseProbeOptions& o) {
  if (o.fwq_samples) return static_cast<std::size_t>(*o.fwq_samples);
  // Twice the quanta the duration should hold: calibration took the fastest trial, so real quanta are
  // rarely faster; should they be, the probe stops early with this many.
  return static_cast<std::size_t>(2 * (o.duration.count() / o.quantum.count()) + 64);
}

// What the threads share. Each thread writes only its own slot of `cores` and `errors`.
struct Team {
  const HwlocTopology& topology;
  const NoiseProbeOptions& options;
  std::int64_t origin = 0;
  std::barrier<> sync;
  std::atomic<bool> failed{false};
  std::atomic<std::uint64_t> fwq_iterations{0};
  std::vector<CoreProbe>& cores;
  std::vector<std::string>& errors;
};

void bind_to(const HwlocTopology& topology, int cpu) {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set == nullptr) throw std::runtime_error("hwloc_bitmap_alloc failed");
  hwloc_bitmap_only(set, static_cast<unsigned>(cpu));
  const int rc = hwloc_set_cpubind(topology.get(), set, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT);
  const int err = errno;
  hwloc_bitmap_free(set);
  if (rc != 0) throw std::runtime_error(fmt::format("cannot bind a probe thread to CPU {}: {}", cpu, std::strerror(err)));
}

void probe_thread(Team& team, std::size_t index) {
  CoreProbe& core = team.cores[index];
  const NoiseProbeOptions& o = team.options;
  // Bind, then allocate and touch the buffers on the CPU's own memory, before anyone measures.
  try {
    bind_to(team.topology, core.cpu);
    if (o.fwq) {
      core.fwq.emplace();
      core.fwq->quantum_ns.assign(fwq_capacity(o), 0);
    }
    // The threshold is settled after calibrating on this CPU; the storage is allocated now.
    if (o.selfish)
      core.selfish.emplace(SelfishRaw{.reads = 0,
                                      .elapsed_ns = 0,
                                      .min_gap_ns = 0,
                                      .threshold_rule = {},
                                      .detours = DetourRecorder(1, detour_trace_capacity(o.duration))});
  } catch (const std::exception& e) {
    team.errors[index] = e.what();
    team.failed = true;
  }
  team.sync.arrive_and_wait();
  if (team.failed) return;  // every thread sees the same verdict after the barrier

  if (o.fwq) {
    if (index == 0) team.fwq_iterations = calibrate_fwq(o.quantum);
    team.sync.arrive_and_wait();
    run_fwq(*core.fwq, team.fwq_iterations, o);
    team.sync.arrive_and_wait();
  }
  if (o.selfish) {
    SelfishRaw& raw = *core.selfish;
    raw.min_gap_ns = min_loop_gap();
    std::int64_t threshold = 0;
    if (o.threshold_ns) {
      threshold = *o.threshold_ns;
      raw.threshold_rule = "--threshold-ns";
    } else {
      threshold = default_detour_threshold_ns(raw.min_gap_ns);
      raw.threshold_rule = default_detour_threshold_rule(raw.min_gap_ns);
    }
    raw.detours.set_threshold_ns(threshold);
    team.sync.arrive_and_wait();
    run_selfish(raw, team.origin, o);
  }
  const int cpu = sched_getcpu();
  if (cpu >= 0) core.ran_on = cpu;
}

}  // namespace

std::size_t detour_trace_capacity(std::chrono::nanoseconds duration) {
  const double per_second = 20000.0;
  const double wanted = per_second * std::chrono::duration<double>(duration).count();
  return static_cast<std::size_t>(std::clamp(wanted, 65536.0, 1048576.0));
}

NoiseProbeRun run_noise_probes(const HwlocTopology& topology, const NoiseProbeOptions& options) {
  validate(options);
  if (!hwloc_topology_is_thissystem(topology.get()))
    throw std::logic_error("run_noise_probes: the topology does not describe this machine");
  NoiseProbeRun run;
  run.cores.resize(options.cpus.size());
  for (std::size_t i = 0; i < options.cpus.size(); ++i) run.cores[i].cpu = options.cpus[i];
  std::vector<std::string> errors(options.cpus.size());
  run.time_origin_monotonic_ns = now_ns();
  Team team{.topology = topology,
            .options = options,
            .origin = run.time_origin_monotonic_ns,
            .sync = std::barrier<>(static_cast<std::ptrdiff_t>(options.cpus.size())),
            .cores = run.cores,
            .errors = errors};
  {
    std::vector<std::jthread> threads;
    threads.reserve(options.cpus.size());
    for (std::size_t i = 0; i < options.cpus.size(); ++i) {
      try {
        threads.emplace_back(probe_thread, std::ref(team), i);
      } catch (const std::system_error& e) {
        // The threads already started wait at the first barrier for all of them: arrive for the
        // missing ones so they see the failure and return.
        errors[i] = fmt::format("cannot start a probe thread for CPU {}: {}", options.cpus[i], e.what());
        team.failed = true;
        for (std::size_t missing = i; missing < options.cpus.size(); ++missing) (void)team.sync.arrive_and_drop();
        break;
      }
    }
  }  // joined here
  for (const std::string& e : errors)
    if (!e.empty()) throw std::runtime_error(e);
  run.fwq_iterations = team.fwq_iterations;
  run.fwq_calibration_cpu = options.fwq ? options.cpus.front() : -1;
  return run;
}

}  // namespace wave3d
