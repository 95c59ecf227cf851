#pragma once
// What machine a run happened on, from the hwloc topology and the kernel: enough to tell two result
// files from different hardware apart and to put bandwidth and cache-blocking numbers in context.
// Anything that cannot be determined is std::nullopt, never a made-up default.
#include <cstdint>
#include <optional>
#include <string>

namespace wave3d {

struct CacheLevel {
  int level = 0;             // 1 for L1, 2 for L2, ...
  std::uint64_t bytes = 0;   // size of one instance
  int instances = 0;         // how many such caches the machine has
};

struct MachineInfo {
  std::string hostname;
  int packages = 0;
  int numa_nodes = 0;
  int cores = 0;
  int pus = 0;          // hardware threads of the whole machine
  int allowed_pus = 0;  // of those, the ones this process may run on (cgroup, cpuset, batch system)
  std::optional<CacheLevel> last_level_cache;  // data or unified, highest level present
  std::optional<CacheLevel> l1d;
  std::optional<CacheLevel> l2;
  std::optional<std::string> cpu_model;
  std::optional<double> cpu_mhz;
  std::string cpu_mhz_source = "unknown";  // where cpu_mhz came from, or "unknown"
  // Vector width the binary was compiled for, from the target macros (__AVX512F__, __AVX2__, ...).
  // With AVX-512 compilers may still prefer 256-bit vectors (-mprefer-vector-width); this is the
  // widest instruction set enabled, not a measurement of the generated code.
  std::optional<int> simd_bytes;
  std::optional<std::string> simd_isa;
};

// Loads the hwloc topology (a few milliseconds): call once per run, not per step.
// Throws std::runtime_error if hwloc cannot load a topology at all.
MachineInfo collect_machine_info();

// All last-level cache instances together (what STREAM's "4x the cache" rule and the bench's "8x the
// cache" grid are measured against), or nullopt when unknown.
std::optional<std::uint64_t> total_last_level_cache_bytes(const MachineInfo& info);

// One line for logs: "1 package, 1 NUMA node, 2 cores, 2 PUs, L3 32 MiB".
std::string topology_summary(const MachineInfo& info);

// The compiled-for vector instruction set of this translation unit, as in MachineInfo.
std::optional<int> compiled_simd_bytes();
std::optional<std::string> compiled_simd_isa();

}  // namespace wave3d
