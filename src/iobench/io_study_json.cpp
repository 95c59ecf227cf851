#include "iobench/io_study_json.hpp"

#include <string>

namespace wave3d {
namespace {

nlohmann::json optional_value(const std::optional<std::uint64_t>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

}  // namespace

void to_json(nlohmann::json& j, const FileSystemInfo& fs) {
  j = {{"path", fs.path}, {"memory_backed", fs.memory_backed}, {"free_bytes", optional_value(fs.free_bytes)}};
  if (fs.mount) {
    j["mount_point"] = fs.mount->mount_point;
    j["type"] = fs.mount->type;
    j["source"] = fs.mount->source;
    j["options"] = fs.mount->super_options;
  } else {
    j["type"] = nullptr;  // /proc/self/mountinfo could not be read
  }
}

void to_json(nlohmann::json& j, const BandwidthSummary& b) {
  j = {{"repetitions_s", b.seconds}, {"best_gibytes_per_second", b.best_gibs}, {"median_gibytes_per_second", b.median_gibs}};
}

void to_json(nlohmann::json& j, const IoCase& c) {
  nlohmann::json threads = nlohmann::json::array();
  for (const IoThreadSummary& t : c.io_threads)
    threads.push_back({{"cpu_node", t.cpu_node}, {"data_nodes", t.data_nodes}, {"bytes", t.bytes}});
  j = {{"placement", std::string(to_string(c.placement))},
       {"files", std::string(to_string(c.sharing))},
       {"threads", c.threads},
       {"io_threads", threads},
       {"bandwidth", c.bandwidth},
       {"file_check", c.check_error.empty() ? std::string("equal to the buffer") : c.check_error},
       {"file_check_ok", c.check_error.empty()},
       {"page_cache_pages", to_json(c.destination)}};
}

void to_json(nlohmann::json& j, const PlacementInfo& p) {
  nlohmann::json per_node = nlohmann::json::object();
  for (const auto& [node, bytes] : p.bytes_per_node) per_node[node < 0 ? "unknown" : std::to_string(node)] = bytes;
  j = {{"placement", std::string(to_string(p.placement))},
       {"nodes_asked", p.nodes},
       {"notices", p.notices},
       {"buffer_pages", to_json(p.pages)},
       {"bytes_per_node", per_node}};
  if (!p.split_unavailable_reason.empty()) j["page_locations_unavailable"] = p.split_unavailable_reason;
}

void to_json(nlohmann::json& j, const PathCase& c) {
  j = {{"buffer_node", c.buffer_node},
       {"thread_node", c.thread_node},
       {"destination_node", c.destination_node},
       {"kind", std::string(to_string(c.kind))},
       {"bandwidth", c.bandwidth},
       {"distance_buffer_to_thread", optional_value(c.distance_read)},
       {"distance_thread_to_destination", optional_value(c.distance_write)},
       {"page_cache_pages", to_json(c.destination)}};
}

void to_json(nlohmann::json& j, const PathMatrix& m) {
  nlohmann::json kinds = nlohmann::json::array();
  for (PathKind k : m.kinds_that_exist) kinds.push_back(std::string(to_string(k)));
  j = {{"measured", m.measured}, {"note", m.note},   {"numa_nodes", m.numa_nodes},       {"threads", m.threads},
       {"bytes", m.bytes},       {"cases", m.cases}, {"paths_that_exist", kinds}};
}

void to_json(nlohmann::json& j, const IoStudyResult& r) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeCores& n : r.context.nodes) nodes.push_back({{"node", n.node}, {"cores", n.cores}});
  j = {{"file_system", r.context.file_system},
       {"numa_nodes", nodes},
       {"threads", r.context.threads},
       {"page_bytes", r.context.page_bytes},
       {"placements", r.placements},
       {"sweep", r.cases},
       {"path_matrix", r.path_matrix},
       {"kept_files", r.kept_files}};
}

}  // namespace wave3d
