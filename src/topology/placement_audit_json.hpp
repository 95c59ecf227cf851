#pragma once
// JSON forms of the placement audit's inputs and findings: the inputs travel between ranks as JSON
// (gathered to the rank that audits), the findings go to run.json. nlohmann's to_json / from_json
// convention, so `nlohmann::json j = seen_rank;` and `j.get<SeenRank>()` work.
#include <nlohmann/json.hpp>

#include "topology/placement_audit.hpp"

namespace wave3d {

void to_json(nlohmann::json& j, const SeenThread& thread);
void from_json(const nlohmann::json& j, SeenThread& thread);
void to_json(nlohmann::json& j, const SeenRank& rank);
void from_json(const nlohmann::json& j, SeenRank& rank);
void to_json(nlohmann::json& j, const NodeCpus& node);
void from_json(const nlohmann::json& j, NodeCpus& node);
void to_json(nlohmann::json& j, const PlacementProblem& problem);

}  // namespace wave3d
