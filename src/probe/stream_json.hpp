#pragma once
// STREAM results as JSON (nlohmann::json's to_json hooks, found by ADL), shared by `wave3d stream
// --json` and `wave3d bench`. Rates of a run that failed validation are NaN and come out as null.
#include <nlohmann/json.hpp>

#include "probe/stream.hpp"

namespace wave3d {

void to_json(nlohmann::json& j, const KernelBandwidth& k);
void to_json(nlohmann::json& j, const StreamResult& r);
void to_json(nlohmann::json& j, const StreamSweep& s);

}  // namespace wave3d
