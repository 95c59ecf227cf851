#include "engine/restart_match.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "config/config_json.hpp"
#include "config/enum_names.hpp"

namespace wave3d::engine {
namespace {

// A config value as the user would write it with --set: 128,128,128 / single / 0.001.
std::string value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::vector<std::string> parts;
    for (const auto& e : v) parts.push_back(value_text(e));
    return fmt::format("{}", fmt::join(parts, ","));
  }
  return v.dump();
}

const nlohmann::json* find_dotted(const nlohmann::json& doc, const std::string& key) {
  const nlohmann::json* node = &doc;
  std::size_t begin = 0;
  while (begin <= key.size()) {
    const std::size_t dot = std::min(key.find('.', begin), key.size());
    const std::string part = key.substr(begin, dot - begin);
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
    begin = dot + 1;
  }
  return node;
}

std::string precision_of(std::size_t value_bytes) {
  return value_bytes == 4 ? "single" : value_bytes == 8 ? "double" : fmt::format("{}-byte", value_bytes);
}

}  // namespace

std::vector<std::string> continuation_keys(InitialKind condition) {
  std::vector<std::string> keys{"grid.spacing", "grid.boundary", "physics.velocity", "physics.dt", "init.condition"};
  switch (condition) {
    case InitialKind::ricker: keys.insert(keys.end(), {"source.position", "source.frequency", "init.amplitude"}); break;
    case InitialKind::mode: keys.insert(keys.end(), {"init.wave", "init.amplitude"}); break;
    case InitialKind::seed_cube: break;
  }
  return keys;
}

std::vector<std::string> checkpoint_mismatches(const io::FieldFileHeader& header, const io::GridDatasetShape& shape,
                                               const RunConfig& config) {
  std::vector<std::string> m;
  const Index3& n = config.grid.n;
  if (shape.n != n)
    m.push_back(fmt::format("grid {}x{}x{} does not match grid.n = {},{},{}", shape.n[0], shape.n[1], shape.n[2], n[0],
                            n[1], n[2]));
  if (header.stencil_radius != config.grid.radius)
    m.push_back(fmt::format("stencil radius {} does not match stencil.radius = {}", header.stencil_radius,
                            config.grid.radius));
  const std::size_t run_bytes = config.precision == Precision::single ? 4 : 8;
  if (shape.value_bytes != run_bytes)
    m.push_back(fmt::format("{}-precision values do not match stencil.precision = {}", precision_of(shape.value_bytes),
                            enum_name(config.precision)));

  nlohmann::json recorded;
  try {
    recorded = nlohmann::json::parse(header.config_json);
  } catch (const nlohmann::json::exception&) {
    m.push_back("its 'config' attribute is not JSON, so its settings cannot be compared");
    return m;
  }
  const nlohmann::json mine = config_to_json(config);
  for (const std::string& key : continuation_keys(config.initial.kind)) {
    const nlohmann::json* theirs = find_dotted(recorded, key);
    const nlohmann::json* ours = find_dotted(mine, key);
    if (theirs == nullptr) {
      m.push_back(fmt::format("its configuration has no {}", key));
      continue;
    }
    if (ours != nullptr && *theirs != *ours)
      m.push_back(fmt::format("{} = {} in the checkpoint does not match {} = {}", key, value_text(*theirs), key,
                              value_text(*ours)));
  }
  if (header.step < 0 || header.step > config.steps)
    m.push_back(fmt::format("its step {} is {} run.steps = {}", header.step, header.step < 0 ? "not within" : "beyond",
                            config.steps));
  return m;
}

}  // namespace wave3d::engine
