#include "counters/rank_report.hpp"

namespace wave3d::counters {
namespace {

std::optional<std::string> text_or_none(const nlohmann::json& json) {
  if (json.is_null()) return std::nullopt;
  return json.get<std::string>();
}

}  // namespace

nlohmann::json optional_text(const std::optional<std::string>& text) {
  return text ? nlohmann::json(*text) : nlohmann::json();
}

nlohmann::json rank_report_to_json(const RankReport& report) {
  nlohmann::json events = nlohmann::json::array();
  for (const EventCounts& e : report.regions.events)
    events.push_back(
        {{"name", e.name}, {"problem", optional_text(e.problem)}, {"per_thread", e.per_thread}, {"modes", e.modes},
         {"counted_by", e.counted_by}});
  nlohmann::json json{{"library", report.regions.library},
                      {"unavailable", optional_text(report.regions.unavailable)},
                      {"threads", report.regions.threads},
                      {"events", events},
                      {"dram", nullptr}};
  if (report.dram)
    json["dram"] = {{"problem", optional_text(report.dram->problem)},
                    {"bytes", report.dram->bytes},
                    {"events", report.dram->events}};
  return json;
}

RankReport rank_report_from_json(const nlohmann::json& json) {
  RankReport report;
  report.regions.library = json.at("library").get<std::string>();
  report.regions.unavailable = text_or_none(json.at("unavailable"));
  report.regions.threads = json.at("threads").get<int>();
  for (const nlohmann::json& e : json.at("events"))
    report.regions.events.push_back({e.at("name").get<std::string>(), text_or_none(e.at("problem")),
                                     e.at("per_thread").get<std::vector<RegionCounts>>(),
                                     e.at("modes").get<std::string>(), e.at("counted_by").get<std::string>()});
  if (const nlohmann::json& dram = json.at("dram"); !dram.is_null())
    report.dram = DramCounts{text_or_none(dram.at("problem")), dram.at("bytes").get<double>(),
                             dram.at("events").get<std::vector<std::string>>()};
  return report;
}

}  // namespace wave3d::counters
