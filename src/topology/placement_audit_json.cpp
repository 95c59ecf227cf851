#include "topology/placement_audit_json.hpp"

#include "output/json_optional.hpp"

namespace wave3d {

void to_json(nlohmann::json& j, const SeenThread& t) {
  j = {{"thread", t.thread}, {"progress", t.progress}, {"cpu", or_null(t.cpu)}, {"allowed", t.allowed},
       {"planned", t.planned}};
}

void from_json(const nlohmann::json& j, SeenThread& t) {
  t.thread = j.at("thread").get<int>();
  t.progress = j.at("progress").get<bool>();
  t.cpu = optional_at<int>(j, "cpu");
  t.allowed = j.at("allowed").get<std::vector<int>>();
  t.planned = j.at("planned").get<std::vector<int>>();
}

void to_json(nlohmann::json& j, const SeenRank& r) {
  j = {{"rank", r.rank},           {"host", r.host},       {"launch_cpus", r.launch_cpus},
       {"proc_bind", r.proc_bind}, {"num_places", r.num_places}, {"planned", r.planned},
       {"threads", r.threads},     {"work_blocks", or_null(r.work_blocks)}};
}

void from_json(const nlohmann::json& j, SeenRank& r) {
  r.rank = j.at("rank").get<int>();
  r.host = j.at("host").get<std::string>();
  r.launch_cpus = j.at("launch_cpus").get<std::vector<int>>();
  r.proc_bind = j.at("proc_bind").get<std::string>();
  r.num_places = j.at("num_places").get<int>();
  r.planned = j.at("planned").get<bool>();
  r.threads = j.at("threads").get<std::vector<SeenThread>>();
  r.work_blocks = optional_at<long long>(j, "work_blocks");
}

void to_json(nlohmann::json& j, const NodeCpus& n) {
  j = {{"allowed", n.allowed}, {"machine_pus", n.machine_pus}, {"core_of_pu", n.core_of_pu}};
}

void from_json(const nlohmann::json& j, NodeCpus& n) {
  n.allowed = j.at("allowed").get<std::vector<int>>();
  n.machine_pus = j.at("machine_pus").get<int>();
  n.core_of_pu = j.at("core_of_pu").get<std::vector<int>>();
}

void to_json(nlohmann::json& j, const PlacementProblem& p) {
  j = {{"kind", p.kind}, {"cause", p.cause}, {"host", p.host}, {"ranks", p.ranks}, {"message", p.message}};
}

}  // namespace wave3d
