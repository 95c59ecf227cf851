#include "advise/advise_json.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace wave3d::advise {
namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json optional_int(const std::optional<int>& v) { return v ? json(*v) : json(nullptr); }

[[noreturn]] void bad(const std::string& path, std::string_view expected, const json& found) {
  throw std::invalid_argument(fmt::format("{}: expected {}, found {}", path, expected, found.dump()));
}

double number_at(const json& j, const std::string& path) {
  if (!j.is_number()) bad(path, "a number", j);
  return j.get<double>();
}

int threads_at(const json& j, const std::string& path) {
  if (!j.is_number_integer()) bad(path, "a whole number of threads", j);
  const auto v = j.get<long long>();
  if (v < 1 || v > 1 << 20) bad(path, "a thread count of 1 or more", j);
  return static_cast<int>(v);
}

CurvePoint point_from_json(const json& j, const std::string& path) {
  CurvePoint p;
  if (j.is_array()) {
    if (j.size() != 2) bad(path, "[threads, value]", j);
    p.threads = threads_at(j[0], path + "[0]");
    p.value = number_at(j[1], path + "[1]");
    return p;
  }
  if (!j.is_object()) bad(path, "{\"threads\": T, \"value\": V} or [T, V]", j);
  if (!j.contains("threads")) bad(path, "an object with \"threads\"", j);
  if (!j.contains("value")) bad(path, "an object with \"value\"", j);
  p.threads = threads_at(j["threads"], path + ".threads");
  p.value = number_at(j["value"], path + ".value");
  if (j.contains("low") && !j["low"].is_null()) p.low = number_at(j["low"], path + ".low");
  if (j.contains("high") && !j["high"].is_null()) p.high = number_at(j["high"], path + ".high");
  return p;
}

std::optional<Curve> optional_curve(const json& curves, const char* name, const std::string& path) {
  if (!curves.contains(name) || curves[name].is_null()) return std::nullopt;
  return curve_from_json(curves[name], path + "." + name);
}

json domain_advice_json(const DomainAdvice& d) {
  json saturation = json::object();
  saturation["triad"] = d.triad ? to_json(*d.triad) : json(nullptr);
  saturation["stencil"] = d.stencil ? to_json(*d.stencil) : json(nullptr);
  json j = to_json(d.curves);
  j["os_index"] = d.os_index;
  j["cores"] = d.cores;
  j["saturation"] = saturation;
  j["basis"] = d.basis;
  j["compute_cores"] = d.compute_cores;
  j["surplus_cores"] = d.surplus_cores();
  j["compute"] = d.compute;
  j["compute_fraction_of_best"] = optional_number(d.compute_fraction_of_best);
  j["progress_core"] = optional_int(d.progress_core);
  j["daemon_cores"] = d.daemon_cores;
  j["cost_of_one_core"] = optional_number(d.cost_of_one_core);
  j["notes"] = d.notes;
  return j;
}

}  // namespace

json to_json(const Curve& curve) {
  json points = json::array();
  for (const CurvePoint& p : curve.points) {
    json point = {{"threads", p.threads}, {"value", p.value}};
    if (p.low) point["low"] = *p.low;
    if (p.high) point["high"] = *p.high;
    points.push_back(point);
  }
  return {{"unit", curve.unit}, {"points", points}};
}

json to_json(const Saturation& s) {
  return {{"threads", s.threads},         {"value", s.value},
          {"best_threads", s.best_threads}, {"best_value", s.best_value},
          {"fraction_of_best", s.fraction_of_best}, {"tolerance", s.tolerance}};
}

json to_json(const DomainCurves& c) {
  json curves = json::object();
  if (c.triad) curves["triad"] = to_json(*c.triad);
  if (c.stencil) curves["stencil"] = to_json(*c.stencil);
  json j = json::object();
  if (c.numa) j["numa"] = *c.numa;
  j["curves"] = curves;
  return j;
}

Curve curve_from_json(const json& j, const std::string& path) {
  if (!j.is_object()) bad(path, "an object with \"points\"", j);
  if (!j.contains("points") || !j["points"].is_array()) bad(path + ".points", "an array of points", j.value("points", json()));
  Curve c;
  if (j.contains("unit")) {
    if (!j["unit"].is_string()) bad(path + ".unit", "a string", j["unit"]);
    c.unit = j["unit"].get<std::string>();
  }
  const json& points = j["points"];
  for (std::size_t i = 0; i < points.size(); ++i)
    c.points.push_back(point_from_json(points[i], fmt::format("{}.points[{}]", path, i)));
  check_curve(c, path);
  return c;
}

CurvesDocument curves_from_json(const json& doc) {
  if (!doc.is_object()) bad("the document", "an object with \"domains\"", doc);
  CurvesDocument out;
  if (doc.contains("description")) {
    if (!doc["description"].is_string()) bad("description", "a string", doc["description"]);
    out.description = doc["description"].get<std::string>();
  }
  if (!doc.contains("domains") || !doc["domains"].is_array() || doc["domains"].empty())
    bad("domains", "an array of at least one domain", doc.value("domains", json()));
  const json& domains = doc["domains"];
  for (std::size_t i = 0; i < domains.size(); ++i) {
    const std::string path = fmt::format("domains[{}]", i);
    const json& d = domains[i];
    if (!d.is_object() || !d.contains("curves") || !d["curves"].is_object())
      bad(path, "an object with \"curves\": {\"triad\", \"stencil\"}", d);
    DomainCurves c;
    if (d.contains("numa") && !d["numa"].is_null()) {
      if (!d["numa"].is_number_integer() || d["numa"].get<long long>() < 0) bad(path + ".numa", "a NUMA node index", d["numa"]);
      c.numa = d["numa"].get<int>();
    }
    c.triad = optional_curve(d["curves"], "triad", path + ".curves");
    c.stencil = optional_curve(d["curves"], "stencil", path + ".curves");
    if (!c.triad && !c.stencil) bad(path + ".curves", "a \"triad\" or \"stencil\" curve", d["curves"]);
    out.domains.push_back(std::move(c));
  }
  return out;
}

json advice_to_json(const NodeAdvice& a) {
  json domains = json::array();
  for (const DomainAdvice& d : a.domains) domains.push_back(domain_advice_json(d));
  return {{"topology", a.topology_source},
          {"tolerance", a.tolerance},
          {"domains", domains},
          {"node",
           {{"layout", std::string(to_string(a.request.layout))},
            {"ranks_per_node", a.domains.size()},
            {"threads_per_rank", a.threads_per_rank},
            {"compute_cores", a.compute_cores},
            {"surplus_cores", a.surplus_cores},
            {"reserve", a.reserve},
            {"progress_thread", a.request.progress_thread},
            {"run_program", a.run_program},
            {"notes", a.notes}}}};
}

}  // namespace wave3d::advise
