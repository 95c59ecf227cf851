#include "config/config_json.hpp"

#include <fmt/format.h>

#include <toml++/toml.h>

#include "config/config_error.hpp"
#include "config/config_resolve.hpp"
#include "config/config_schema.hpp"
#include "config/config_settings.hpp"

namespace wave3d {

namespace {

constexpr std::string_view kJsonOrigin = "json";

nlohmann::json json_value(const ConfigValue& value) {
  return std::visit([](const auto& v) { return nlohmann::json(v); }, value);
}

// JSON -> TOML, so config_from_json reuses the TOML path (unknown keys, type and range checks).
void insert_json(toml::table& table, const std::string& key, const nlohmann::json& value, const std::string& path);

toml::array array_from_json(const nlohmann::json& json, const std::string& path) {
  toml::array array;
  for (const auto& element : json) {
    toml::table holder;  // reuse the scalar conversion, then move the node into the array
    insert_json(holder, "v", element, path);
    array.push_back(std::move(*holder.get("v")));
  }
  return array;
}

void insert_json(toml::table& table, const std::string& key, const nlohmann::json& value, const std::string& path) {
  using Type = nlohmann::json::value_t;
  switch (value.type()) {
    case Type::object: {
      toml::table child;
      for (const auto& [name, element] : value.items()) insert_json(child, name, element, path + "." + name);
      table.insert(key, std::move(child));
      return;
    }
    case Type::array: table.insert(key, array_from_json(value, path)); return;
    case Type::string: table.insert(key, value.get<std::string>()); return;
    case Type::boolean: table.insert(key, value.get<bool>()); return;
    case Type::number_integer:
    case Type::number_unsigned: table.insert(key, value.get<std::int64_t>()); return;
    case Type::number_float: table.insert(key, value.get<double>()); return;
    default: break;
  }
  throw ConfigError(fmt::format("{}: {} = {} has no TOML equivalent", kJsonOrigin, path, value.dump()));
}

}  // namespace

nlohmann::json config_to_json(const RunConfig& config) {
  nlohmann::json json = nlohmann::json::object();
  for (const KeySpec& spec : config_schema()) {
    const auto dot = spec.key.find('.');  // every key is "section.name"
    json[std::string(spec.key.substr(0, dot))][std::string(spec.key.substr(dot + 1))] = json_value(spec.read(config));
  }
  return json;
}

RunConfig config_from_json(const nlohmann::json& json) {
  if (!json.is_object()) throw ConfigError(fmt::format("{}: expected an object of config sections, got {}", kJsonOrigin, json.type_name()));
  toml::table document;
  for (const auto& [name, value] : json.items()) insert_json(document, name, value, name);
  Settings settings;
  add_table_settings(settings, document, kJsonOrigin);
  return resolve_run_config(settings);
}

}  // namespace wave3d
