#include "app/binding_map.hpp"

#include <fmt/format.h>

#include <map>

#include "mpi/collective.hpp"
#include "output/runtime_json.hpp"
#include "runtime/hostname.hpp"

namespace wave3d::app {

nlohmann::json gather_binding_map(MPI_Comm comm, const ThreadBinding& mine, const std::vector<std::string>& warnings) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const nlohmann::json entry = {{"rank", rank}, {"host", hostname()}, {"binding", mine}, {"warnings", warnings}};
  const std::vector<std::string> all = mpi::gather_strings(comm, entry.dump(), 0);
  if (rank != 0) return nullptr;
  nlohmann::json map = nlohmann::json::array();
  for (const std::string& text : all) map.push_back(nlohmann::json::parse(text));
  return map;
}

std::string format_binding_map(const nlohmann::json& map, int max_ranks) {
  std::string s;
  if (!map.is_array() || map.empty()) return s;
  const nlohmann::json& first = map.front()["binding"];
  s += fmt::format("  binding   OMP_PROC_BIND {}, {} places{}\n", first["proc_bind"].get<std::string>(),
                   first["num_places"].get<int>(),
                   first["places"].get<std::string>().empty() ? "" : " " + first["places"].get<std::string>());
  int listed = 0;
  for (const nlohmann::json& rank : map) {
    if (listed++ == max_ranks) {
      s += fmt::format("    ... {} more ranks in run.json\n", map.size() - static_cast<std::size_t>(max_ranks));
      break;
    }
    for (const nlohmann::json& t : rank["binding"]["threads"]) {
      s += fmt::format("    rank {:4} host {:<12} thread {:3}  core {:>4}  cpu {:>4}  allowed {:<12} numa {}\n",
                       rank["rank"].get<int>(), rank["host"].get<std::string>(), t["thread"].get<int>(),
                       t["core"].is_null() ? "?" : std::to_string(t["core"].get<int>()),
                       t["cpu"].is_null() ? "?" : std::to_string(t["cpu"].get<int>()),
                       t["affinity"].get<std::string>(),
                       t["numa_node"].is_null() ? "?" : std::to_string(t["numa_node"].get<int>()));
    }
  }
  return s;
}

std::string format_binding_warnings(const nlohmann::json& map) {
  std::string s;
  if (!map.is_array()) return s;
  // The same warning from many ranks is printed once, naming the ranks.
  std::map<std::string, std::vector<int>> ranks_by_warning;
  for (const nlohmann::json& rank : map)
    for (const nlohmann::json& w : rank["warnings"]) ranks_by_warning[w.get<std::string>()].push_back(rank["rank"]);
  for (const auto& [warning, ranks] : ranks_by_warning)
    s += fmt::format("wave3d: WARNING (rank{} {}): {}\n", ranks.size() > 1 ? "s" : "", fmt::join(ranks, ","), warning);
  return s;
}

}  // namespace wave3d::app
