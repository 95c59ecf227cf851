#include "config/config_value.hpp"

#include <fmt/format.h>

#include <cmath>
#include <sstream>
#include <vector>

#include "config/config_error.hpp"

namespace wave3d {

namespace {

std::string_view type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

[[noreturn]] void reject(const KeySpec& spec, const toml::node& node, std::string_view origin, std::string_view problem) {
  throw ConfigError(fmt::format("{}: {} = {} {}; allowed: {}", origin, spec.key, value_text(node), problem,
                                allowed_text(spec)));
}

// Range check shared by integers, floats and int3 elements. NaN fails every comparison, so the
// conditions are written to reject it.
bool in_range(const KeySpec& spec, double v) {
  const bool above_min = spec.min_exclusive ? v > spec.min : v >= spec.min;
  return above_min && v <= spec.max;
}

std::int64_t check_integer(const KeySpec& spec, const toml::node& node, std::string_view origin) {
  const auto* v = node.as_integer();
  if (v == nullptr) reject(spec, node, origin, fmt::format("is {}, expected an integer", type_name(node)));
  const std::int64_t x = v->get();
  if (!spec.numbers.empty()) {
    for (int allowed : spec.numbers)
      if (x == allowed) return x;
    reject(spec, node, origin, "is not allowed");
  }
  if (!in_range(spec, static_cast<double>(x))) reject(spec, node, origin, "is out of range");
  return x;
}

double check_real(const KeySpec& spec, const toml::node& node, std::string_view origin) {
  // TOML distinguishes 10 from 10.0; a user writing `spacing = 10` means the number, so accept both.
  double x = 0.0;
  if (const auto* f = node.as_floating_point())
    x = f->get();
  else if (const auto* i = node.as_integer())
    x = static_cast<double>(i->get());
  else
    reject(spec, node, origin, fmt::format("is {}, expected a number", type_name(node)));
  if (!std::isfinite(x)) reject(spec, node, origin, "is not a finite number");
  if (!in_range(spec, x)) reject(spec, node, origin, "is out of range");
  return x;
}

std::string check_string(const KeySpec& spec, const toml::node& node, std::string_view origin) {
  const auto* s = node.as_string();
  if (s == nullptr) reject(spec, node, origin, fmt::format("is {}, expected a string", type_name(node)));
  if (spec.words.empty()) return s->get();
  for (std::string_view allowed : spec.words)
    if (s->get() == allowed) return s->get();
  reject(spec, node, origin, "is not allowed");
}

Index3 check_int3(const KeySpec& spec, const toml::node& node, std::string_view origin) {
  const auto* array = node.as_array();
  if (array == nullptr) reject(spec, node, origin, fmt::format("is {}, expected an array of 3 integers", type_name(node)));
  if (array->size() != 3) reject(spec, node, origin, fmt::format("has {} elements, expected 3", array->size()));
  Index3 result{};
  for (std::size_t a = 0; a < 3; ++a) {
    const auto* element = (*array)[a].as_integer();
    if (element == nullptr)
      reject(spec, node, origin, fmt::format("has {} element, expected 3 integers", type_name((*array)[a])));
    if (!in_range(spec, static_cast<double>(element->get()))) reject(spec, node, origin, "is out of range");
    result[a] = element->get();
  }
  return result;
}

}  // namespace

ConfigValue check_value(const KeySpec& spec, const toml::node& node, std::string_view origin) {
  if (spec.accepts_auto && node.is_string()) {
    if (node.as_string()->get() == "auto") return std::string("auto");
    reject(spec, node, origin, "is not allowed");
  }
  switch (spec.kind) {
    case ValueKind::integer: return check_integer(spec, node, origin);
    case ValueKind::real: return check_real(spec, node, origin);
    case ValueKind::string: return check_string(spec, node, origin);
    case ValueKind::int3: return check_int3(spec, node, origin);
    case ValueKind::boolean:
      if (const auto* b = node.as_boolean()) return b->get();
      reject(spec, node, origin, fmt::format("is {}, expected true or false", type_name(node)));
  }
  reject(spec, node, origin, "has an unknown kind");
}

std::string value_text(const toml::node& node) {
  // Arrays and tables are joined here so they stay on one line; scalars use toml++'s own formatting,
  // with literal 'strings' turned off so strings print in the usual "double quotes".
  if (const auto* array = node.as_array()) {
    std::vector<std::string> parts;
    for (const toml::node& element : *array) parts.push_back(value_text(element));
    return fmt::format("[{}]", fmt::join(parts, ", "));
  }
  if (const auto* table = node.as_table()) {
    std::vector<std::string> parts;
    for (const auto& [key, value] : *table) parts.push_back(fmt::format("{} = {}", key.str(), value_text(value)));
    return fmt::format("{{{}}}", fmt::join(parts, ", "));
  }
  std::ostringstream out;
  node.visit([&](const auto& value) { out << toml::toml_formatter{value, toml::format_flags::none}; });
  return out.str();
}

std::string value_text(const ConfigValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, Index3>)
          return value_text(toml::array{v[0], v[1], v[2]});
        else
          return value_text(toml::value<V>(v));
      },
      value);
}

std::string origin_of(std::string_view source_name, const toml::node& node) {
  const auto line = node.source().begin.line;
  return line > 0 ? fmt::format("{}:{}", source_name, line) : std::string(source_name);
}

}  // namespace wave3d
