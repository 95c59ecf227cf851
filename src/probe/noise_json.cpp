#include "probe/noise_json.hpp"

#include <optional>
#include <string>

#include "output/json_optional.hpp"

namespace wave3d {

void to_json(nlohmann::json& j, const Log2Histogram& h) {
  nlohmann::json bins = nlohmann::json::array();
  for (int k = 0; k < Log2Histogram::bin_count; ++k) {
    const std::uint64_t count = h.bins[static_cast<std::size_t>(k)];
    if (count > 0) bins.push_back({{"from_ns", log2_bin_floor(k)}, {"to_ns", log2_bin_ceiling(k)}, {"count", count}});
  }
  j = {{"zero", h.zero}, {"bins", bins}};
}

void from_json(const nlohmann::json& j, Log2Histogram& h) {
  h = Log2Histogram{};
  h.zero = j.at("zero").get<std::uint64_t>();
  for (const nlohmann::json& bin : j.at("bins"))
    h.bins[static_cast<std::size_t>(log2_bin(bin.at("from_ns").get<std::int64_t>()))] = bin.at("count").get<std::uint64_t>();
}

void to_json(nlohmann::json& j, const FwqSummary& s) {
  j = {{"samples", s.samples},
       {"baseline_ns", s.baseline_ns},
       {"mean_ns", s.mean_ns},
       {"total_ns", s.total_ns},
       {"detour_ns", s.detour_ns},
       {"noise_fraction", s.noise_fraction},
       {"largest_detour_ns", s.largest_detour_ns},
       {"p50_detour_ns", s.p50_detour_ns},
       {"p99_detour_ns", s.p99_detour_ns},
       {"histogram", s.histogram}};
}

void from_json(const nlohmann::json& j, FwqSummary& s) {
  j.at("samples").get_to(s.samples);
  j.at("baseline_ns").get_to(s.baseline_ns);
  j.at("mean_ns").get_to(s.mean_ns);
  j.at("total_ns").get_to(s.total_ns);
  j.at("detour_ns").get_to(s.detour_ns);
  j.at("noise_fraction").get_to(s.noise_fraction);
  j.at("largest_detour_ns").get_to(s.largest_detour_ns);
  j.at("p50_detour_ns").get_to(s.p50_detour_ns);
  j.at("p99_detour_ns").get_to(s.p99_detour_ns);
  j.at("histogram").get_to(s.histogram);
}

void to_json(nlohmann::json& j, const SelfishSummary& s) {
  j = {{"reads", s.reads},
       {"elapsed_ns", s.elapsed_ns},
       {"min_gap_ns", s.min_gap_ns},
       {"threshold_ns", s.threshold_ns},
       {"threshold_rule", s.threshold_rule},
       {"detours", s.detours},
       {"detour_ns", s.detour_ns},
       {"noise_fraction", s.noise_fraction},
       {"largest_detour_ns", s.largest_detour_ns},
       {"p99_detour_ns", s.p99_detour_ns},
       {"dropped_from_trace", s.dropped},
       {"histogram", s.histogram}};
}

void from_json(const nlohmann::json& j, SelfishSummary& s) {
  j.at("reads").get_to(s.reads);
  j.at("elapsed_ns").get_to(s.elapsed_ns);
  j.at("min_gap_ns").get_to(s.min_gap_ns);
  j.at("threshold_ns").get_to(s.threshold_ns);
  j.at("threshold_rule").get_to(s.threshold_rule);
  j.at("detours").get_to(s.detours);
  j.at("detour_ns").get_to(s.detour_ns);
  j.at("noise_fraction").get_to(s.noise_fraction);
  j.at("largest_detour_ns").get_to(s.largest_detour_ns);
  j.at("p99_detour_ns").get_to(s.p99_detour_ns);
  j.at("dropped_from_trace").get_to(s.dropped);
  j.at("histogram").get_to(s.histogram);
}

void to_json(nlohmann::json& j, const CoreNoise& c) {
  j = {{"cpu", c.cpu},
       {"ran_on_cpu", or_null(c.ran_on)},
       {"core", or_null(c.core)},
       {"numa_node", or_null(c.numa_node)},
       {"fwq", or_null(c.fwq)},
       {"selfish", or_null(c.selfish)},
       {"trace_file", c.trace_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.trace_file)}};
}

void from_json(const nlohmann::json& j, CoreNoise& c) {
  j.at("cpu").get_to(c.cpu);
  c.ran_on = optional_at<int>(j, "ran_on_cpu");
  c.core = optional_at<int>(j, "core");
  c.numa_node = optional_at<int>(j, "numa_node");
  c.fwq = optional_at<FwqSummary>(j, "fwq");
  c.selfish = optional_at<SelfishSummary>(j, "selfish");
  c.trace_file = optional_at<std::string>(j, "trace_file").value_or("");
}

void to_json(nlohmann::json& j, const RankNoise& r) {
  j = {{"rank", r.rank},
       {"host", r.host},
       {"allowed_cpus", r.allowed_cpus},
       {"probed_cpus", r.probed_cpus},
       {"time_origin_monotonic_ns", r.time_origin_monotonic_ns},
       {"fwq_iterations", r.fwq_iterations},
       {"fwq_calibration_cpu", r.fwq_calibration_cpu < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.fwq_calibration_cpu)},
       {"cores", r.cores},
       {"machine", r.machine}};
}

void from_json(const nlohmann::json& j, RankNoise& r) {
  j.at("rank").get_to(r.rank);
  j.at("host").get_to(r.host);
  j.at("allowed_cpus").get_to(r.allowed_cpus);
  j.at("probed_cpus").get_to(r.probed_cpus);
  j.at("time_origin_monotonic_ns").get_to(r.time_origin_monotonic_ns);
  j.at("fwq_iterations").get_to(r.fwq_iterations);
  r.fwq_calibration_cpu = optional_at<int>(j, "fwq_calibration_cpu").value_or(-1);
  j.at("cores").get_to(r.cores);
  r.machine = j.at("machine");
}

}  // namespace wave3d
