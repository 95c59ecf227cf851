#include "engine/binding_map.hpp"

#include <fmt/format.h>

namespace wave3d::engine {
namespace {

std::string or_question_mark(const nlohmann::json& value) {
  return value.is_null() ? "?" : std::to_string(value.get<int>());
}

// One line of the map: an OpenMP thread (its number) or the progress thread ("progress").
std::string thread_line(const nlohmann::json& rank, const std::string& thread, const nlohmann::json& t) {
  return fmt::format("    rank {:4} host {:<12} thread {:>8}  core {:>4}  cpu {:>4}  allowed {:<12} numa {}\n",
                     rank["rank"].get<int>(), rank["host"].get<std::string>(), thread, or_question_mark(t["core"]),
                     or_question_mark(t["cpu"]), t["affinity"].get<std::string>(), or_question_mark(t["numa_node"]));
}

}  // namespace

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
    for (const nlohmann::json& t : rank["binding"]["threads"])
      s += thread_line(rank, std::to_string(t["thread"].get<int>()), t);
    if (rank.contains("progress_thread") && !rank["progress_thread"].is_null())
      s += thread_line(rank, "progress", rank["progress_thread"]);
  }
  return s;
}

}  // namespace wave3d::engine
