#pragma once
// Noise-probe results as JSON (nlohmann's to_json/from_json hooks, found by ADL): the --json file of
// `wave3d noise`, and the form in which every rank sends its results to rank 0. Times are integer ns;
// unknown values are null; a histogram lists only its non-empty bins.
#include <nlohmann/json.hpp>

#include "probe/noise_analysis.hpp"
#include "probe/noise_result.hpp"

namespace wave3d {

void to_json(nlohmann::json& j, const Log2Histogram& h);
void from_json(const nlohmann::json& j, Log2Histogram& h);
void to_json(nlohmann::json& j, const FwqSummary& s);
void from_json(const nlohmann::json& j, FwqSummary& s);
void to_json(nlohmann::json& j, const SelfishSummary& s);
void from_json(const nlohmann::json& j, SelfishSummary& s);
void to_json(nlohmann::json& j, const CoreNoise& c);
void from_json(const nlohmann::json& j, CoreNoise& c);
void to_json(nlohmann::json& j, const RankNoise& r);
void from_json(const nlohmann::json& j, RankNoise& r);

}  // namespace wave3d
