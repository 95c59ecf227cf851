#pragma once
// The advisor's curves and advice as JSON. advice_to_json writes the document `wave3d advise --json`
// saves; curves_from_json reads the curves back from such a document, or from a hand-written file with
// only the curves, so advice can be re-derived for a machine one is not on:
//
//   {"description": "...",                          (optional)
//    "domains": [{"numa": 0,                         (optional: the NUMA node's logical index)
//                 "curves": {"triad":   {"unit": "GB/s",      "points": [{"threads": 1, "value": 5.0}, ...]},
//                            "stencil": {"unit": "MPoints/s", "points": [[1, 1.2], [2, 2.3], ...]}}}]}
//
// A point is {"threads", "value", optional "low", "high"} or a pair [threads, value]. One domain applies
// to every NUMA node of the machine; otherwise give one per NUMA node with cores, in order.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "advise/advice.hpp"
#include "advise/curve.hpp"

namespace wave3d::advise {

nlohmann::json to_json(const Curve& curve);
nlohmann::json to_json(const Saturation& saturation);
nlohmann::json to_json(const DomainCurves& curves);  // {"numa"?, "curves": {"triad"?, "stencil"?}}

// Throws std::invalid_argument naming the JSON path of the offending item ("domains[0].curves.stencil.
// points[2].value") and what is expected; `path` is where `j` sits in its document.
Curve curve_from_json(const nlohmann::json& j, const std::string& path);

struct CurvesDocument {
  std::string description;  // empty when the file has none
  std::vector<DomainCurves> domains;
};

// Reads "description" and "domains" (other keys, such as the advice of an earlier run, are ignored).
CurvesDocument curves_from_json(const nlohmann::json& doc);

// Everything the advice holds: per domain its curves, saturation points, compute and surplus cores and
// their roles; for the node the plan's shape and notes. Launcher lines and measurement settings are the
// caller's to add.
nlohmann::json advice_to_json(const NodeAdvice& advice);

}  // namespace wave3d::advise
