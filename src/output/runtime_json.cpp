#include "output/runtime_json.hpp"

#include <cmath>
#include <optional>

#include "output/json_optional.hpp"

namespace wave3d {
namespace {

// NaN marks "no samples" in a summary; JSON has no NaN, so say null explicitly.
nlohmann::json seconds_or_null(double seconds) {
  return std::isnan(seconds) ? nlohmann::json(nullptr) : nlohmann::json(seconds);
}

}  // namespace

void to_json(nlohmann::json& j, const CacheLevel& cache) {
  j = {{"level", cache.level}, {"bytes", cache.bytes}, {"instances", cache.instances}};
}

void to_json(nlohmann::json& j, const MachineInfo& info) {
  j = {{"hostname", info.hostname},
       {"packages", info.packages},
       {"numa_nodes", info.numa_nodes},
       {"cores", info.cores},
       {"pus", info.pus},
       {"allowed_pus", info.allowed_pus},
       {"last_level_cache", or_null(info.last_level_cache)},
       {"l1d_cache", or_null(info.l1d)},
       {"l2_cache", or_null(info.l2)},
       {"cpu_model", or_null(info.cpu_model)},
       {"cpu_mhz", or_null(info.cpu_mhz)},
       {"cpu_mhz_source", info.cpu_mhz_source},
       {"simd_isa", or_null(info.simd_isa)},
       {"simd_bytes", or_null(info.simd_bytes)},
       {"summary", topology_summary(info)}};
}

void to_json(nlohmann::json& j, const ThreadPlacement& placement) {
  j = {{"thread", placement.thread},
       {"cpu", or_null(placement.cpu)},
       {"core", or_null(placement.core)},
       {"affinity", placement.affinity},
       {"numa_node", or_null(placement.numa_node)},
       {"place", placement.place}};
}

void to_json(nlohmann::json& j, const ThreadBinding& binding) {
  j = {{"proc_bind", binding.proc_bind},
       {"num_places", binding.num_places},
       {"places", binding.places},
       {"OMP_PROC_BIND", or_null(binding.omp_proc_bind_env)},
       {"OMP_PLACES", or_null(binding.omp_places_env)},
       {"threads", binding.threads}};
}

void to_json(nlohmann::json& j, const MemoryUsage& usage) {
  j = {{"rss_bytes", or_null(usage.rss_bytes)}, {"peak_rss_bytes", or_null(usage.peak_rss_bytes)}};
}

void to_json(nlohmann::json& j, const PhaseSummary& summary) {
  j = {{"phase", summary.phase},
       {"count", summary.count},
       {"min_s", seconds_or_null(summary.min)},
       {"median_s", seconds_or_null(summary.median)},
       {"mean_s", seconds_or_null(summary.mean)},
       {"max_s", seconds_or_null(summary.max)},
       {"p99_s", seconds_or_null(summary.p99)}};
}

}  // namespace wave3d
