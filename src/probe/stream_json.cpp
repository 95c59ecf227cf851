#include "probe/stream_json.hpp"

#include <string>

namespace wave3d {

void to_json(nlohmann::json& j, const KernelBandwidth& k) {
  j = nlohmann::json{{"kernel", std::string(to_string(k.kernel))},
                     {"bytes_per_element", k.bytes_per_element},
                     {"best_gbytes_per_second", k.best_gbs},
                     {"median_gbytes_per_second", k.median_gbs},
                     {"worst_gbytes_per_second", k.worst_gbs},
                     {"repetitions_s", k.seconds}};
}

void to_json(nlohmann::json& j, const StreamResult& r) {
  j = nlohmann::json{{"threads_requested", r.options.threads},
                     {"threads", r.threads},
                     {"init", std::string(stream_policy_name(r.options.policy))},
                     {"elements", r.options.elements},
                     {"bytes_per_array", r.bytes_per_array},
                     {"repetitions", r.options.repetitions},
                     {"warmup_dropped", 1},
                     // Written out so a reader never has to guess how bytes were counted.
                     {"byte_model", "STREAM: each array read or written once, write-allocate not counted"},
                     {"gb", 1e9},
                     {"valid", r.valid},
                     {"kernels", r.kernels}};
  if (!r.valid) j["error"] = r.error;
}

void to_json(nlohmann::json& j, const StreamSweep& s) {
  j = nlohmann::json::array();
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    nlohmann::json run = s.runs[i];
    const auto speedup = s.triad_speedup(i);
    run["triad_speedup"] = speedup ? nlohmann::json(*speedup) : nlohmann::json(nullptr);
    j.push_back(std::move(run));
  }
}

}  // namespace wave3d
