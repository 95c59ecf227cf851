#pragma once
// What one rank hands to rank 0 about its counters: the region counts and, on the rank that measured
// its node's DRAM traffic, that measurement. Travels as JSON text (the app gathers the strings).
#include <nlohmann/json.hpp>

#include <optional>

#include "counters/dram_counter.hpp"
#include "counters/region_counters.hpp"

namespace wave3d::counters {

struct RankReport {
  RankCounts regions;
  std::optional<DramCounts> dram;  // only on the rank that measured for its node
};

// A reason in JSON: its text, or null when there is none.
nlohmann::json optional_text(const std::optional<std::string>& text);

nlohmann::json rank_report_to_json(const RankReport& report);
RankReport rank_report_from_json(const nlohmann::json& json);

}  // namespace wave3d::counters
