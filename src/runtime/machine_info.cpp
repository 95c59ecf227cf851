#include "runtime/machine_info.hpp"

#include <array>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "runtime/byte_size.hpp"
#include "runtime/hostname.hpp"
#include "runtime/hwloc_topology.hpp"

namespace wave3d {
namespace {

std::optional<std::string> read_text_file(const char* path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  return std::string{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

// The value of the first "key : value" line of /proc/cpuinfo whose key is `key`.
std::optional<std::string> cpuinfo_value(std::string_view cpuinfo, std::string_view key) {
  std::size_t pos = 0;
  while (pos < cpuinfo.size()) {
    std::size_t end = cpuinfo.find('\n', pos);
    if (end == std::string_view::npos) end = cpuinfo.size();
    const std::string_view line = cpuinfo.substr(pos, end - pos);
    pos = end + 1;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || trim(line.substr(0, colon)) != key) continue;
    const std::string_view value = trim(line.substr(colon + 1));
    if (value.empty()) return std::nullopt;
    return std::string(value);
  }
  return std::nullopt;
}

std::optional<double> positive_number(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !(value > 0)) return std::nullopt;
  return value;
}

std::optional<CacheLevel> cache_level(hwloc_topology_t topology, hwloc_obj_type_t type, int level) {
  const int count = hwloc_get_nbobjs_by_type(topology, type);
  if (count <= 0) return std::nullopt;
  const hwloc_obj_t first = hwloc_get_obj_by_type(topology, type, 0);
  if (first == nullptr || first->attr == nullptr || first->attr->cache.size == 0) return std::nullopt;
  return CacheLevel{level, static_cast<std::uint64_t>(first->attr->cache.size), count};
}

std::optional<CacheLevel> last_level_cache(hwloc_topology_t topology) {
  // Data/unified caches only: instruction caches do not hold the wavefields.
  static constexpr std::array<std::pair<hwloc_obj_type_t, int>, 5> kLevels = {{
      {HWLOC_OBJ_L5CACHE, 5}, {HWLOC_OBJ_L4CACHE, 4}, {HWLOC_OBJ_L3CACHE, 3},
      {HWLOC_OBJ_L2CACHE, 2}, {HWLOC_OBJ_L1CACHE, 1}}};
  for (const auto& [type, level] : kLevels)
    if (auto cache = cache_level(topology, type, level)) return cache;
  return std::nullopt;
}

std::optional<std::string> cpu_model(hwloc_topology_t topology, std::string_view cpuinfo) {
  // hwloc puts CPUModel on packages (x86) or on the root object, depending on the platform.
  const hwloc_obj_t package = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PACKAGE, 0);
  for (hwloc_obj_t obj : {package, hwloc_get_root_obj(topology)}) {
    if (obj == nullptr) continue;
    if (const char* model = hwloc_obj_get_info_by_name(obj, "CPUModel"); model != nullptr && *model != '\0')
      return std::string(model);
  }
  return cpuinfo_value(cpuinfo, "model name");
}

void fill_cpu_mhz(MachineInfo& info, std::string_view cpuinfo) {
  // The nominal (base) frequency, where the cpufreq driver publishes it (intel_pstate, amd-pstate).
  if (const auto base = read_text_file("/sys/devices/system/cpu/cpu0/cpufreq/base_frequency")) {
    if (const auto khz = positive_number(*base)) {
      info.cpu_mhz = *khz / 1000.0;
      info.cpu_mhz_source = "cpufreq base_frequency";
      return;
    }
  }
  // Otherwise the kernel's current reading of CPU 0, which moves with turbo and power saving.
  if (const auto mhz = cpuinfo_value(cpuinfo, "cpu MHz")) {
    if (const auto value = positive_number(*mhz)) {
      info.cpu_mhz = *value;
      info.cpu_mhz_source = "/proc/cpuinfo cpu MHz (current frequency of CPU 0, not nominal)";
    }
  }
}

std::string plural(int count, std::string_view singular, std::string_view plural_form) {
  return fmt::format("{} {}", count, count == 1 ? singular : plural_form);
}

}  // namespace

std::optional<int> compiled_simd_bytes() {
#if defined(__AVX512F__)
  return 64;
#elif defined(__AVX__)  // AVX and AVX2 both have 256-bit vectors
  return 32;
#elif defined(__SSE2__) || defined(__ARM_NEON)
  return 16;
#else
  return std::nullopt;
#endif
}

std::optional<std::string> compiled_simd_isa() {
#if defined(__AVX512F__)
  return "AVX-512F";
#elif defined(__AVX2__)
  return "AVX2";
#elif defined(__AVX__)
  return "AVX";
#elif defined(__SSE2__)
  return "SSE2";
#elif defined(__ARM_NEON)
  return "NEON";
#else
  return std::nullopt;
#endif
}

MachineInfo collect_machine_info() {
  const HwlocTopology topology;
  const hwloc_topology_t topo = topology.get();
  const std::string cpuinfo = read_text_file("/proc/cpuinfo").value_or("");

  MachineInfo info;
  info.hostname = hostname();
  info.packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
  info.numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  info.cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  info.pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  const int allowed = hwloc_bitmap_weight(hwloc_topology_get_allowed_cpuset(topo));
  info.allowed_pus = allowed >= 0 ? allowed : info.pus;  // -1 means infinite: no restriction
  info.last_level_cache = last_level_cache(topo);
  info.l1d = cache_level(topo, HWLOC_OBJ_L1CACHE, 1);
  info.l2 = cache_level(topo, HWLOC_OBJ_L2CACHE, 2);
  info.cpu_model = cpu_model(topo, cpuinfo);
  fill_cpu_mhz(info, cpuinfo);
  info.simd_bytes = compiled_simd_bytes();
  info.simd_isa = compiled_simd_isa();
  return info;
}

std::string topology_summary(const MachineInfo& info) {
  std::string out = fmt::format("{}, {}, {}, {}", plural(info.packages, "package", "packages"),
                                plural(info.numa_nodes, "NUMA node", "NUMA nodes"),
                                plural(info.cores, "core", "cores"), plural(info.pus, "PU", "PUs"));
  if (info.allowed_pus > 0 && info.allowed_pus < info.pus) out += fmt::format(" ({} allowed)", info.allowed_pus);
  if (const auto& llc = info.last_level_cache) {
    out += fmt::format(", L{} ", llc->level);
    if (llc->instances > 1) out += fmt::format("{}x ", llc->instances);
    out += format_bytes(llc->bytes);
  }
  return out;
}

std::optional<std::uint64_t> total_last_level_cache_bytes(const MachineInfo& info) {
  if (!info.last_level_cache) return std::nullopt;
  return info.last_level_cache->bytes * static_cast<std::uint64_t>(info.last_level_cache->instances);
}

}  // namespace wave3d
