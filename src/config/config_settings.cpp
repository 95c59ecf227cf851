#include "config/config_settings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/config_value.hpp"

namespace wave3d {

namespace {

// True when some key lives below `prefix` (e.g. "grid"): an empty table of that name is a section
// with every key left at its default, not an unknown key.
bool is_section(std::string_view prefix) {
  for (const KeySpec& spec : config_schema())
    if (spec.key.size() > prefix.size() && spec.key.starts_with(prefix) && spec.key[prefix.size()] == '.') return true;
  return false;
}

// What a TOML value is, as an error message names it.
std::string what_value_is(const toml::node& node) {
  if (const auto* array = node.as_array()) return array->is_array_of_tables() ? "an array of tables" : "an array";
  switch (node.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    default: return "a date or time";
  }
}

// The first few keys of section `prefix`: "n, spacing, boundary, ..." (or "grid.n, ..." with the prefix).
std::string section_keys_text(std::string_view prefix, bool with_prefix = true) {
  std::vector<std::string_view> names;
  for (const KeySpec& spec : config_schema())
    if (spec.key.size() > prefix.size() && spec.key.starts_with(prefix) && spec.key[prefix.size()] == '.')
      names.push_back(with_prefix ? std::string_view(spec.key) : std::string_view(spec.key).substr(prefix.size() + 1));
  constexpr std::size_t kShown = 4;
  return fmt::format("{}{}", fmt::join(names.begin(), names.begin() + std::min(names.size(), kShown), ", "),
                     names.size() > kShown ? ", ..." : "");
}

// A section written as something else (grid = 5, [[grid]]): say what was expected there.
ConfigError not_a_section_error(std::string_view key, const toml::node& node, std::string_view origin) {
  return ConfigError(fmt::format("{}: {} is a section, a table written [{}] with keys such as {} beneath it; here it is {}",
                                 origin, key, key, section_keys_text(key, false), what_value_is(node)));
}

void add_node(Settings& settings, const std::string& key, const toml::node& node, std::string_view source_name) {
  const std::string origin = origin_of(source_name, node);
  if (const KeySpec* spec = find_key_spec(key)) {
    settings.insert_or_assign(key, Setting{check_value(*spec, node, origin), origin});
    return;
  }
  if (!node.is_table() && is_section(key)) throw not_a_section_error(key, node, origin);
  // Walk into any table, known section or not: a misspelt [gird] then reports gird.n, for which
  // grid.n is the obvious suggestion.
  const auto* table = node.as_table();
  if (table == nullptr || (table->empty() && !is_section(key))) throw unknown_key_error(key, origin);
  for (const auto& [name, child] : *table) add_node(settings, key + "." + std::string(name.str()), child, source_name);
}

}  // namespace

ConfigError unknown_key_error(std::string_view key, std::string_view origin) {
  if (is_section(key))
    return ConfigError(fmt::format("{}: {} is a section, not a setting; set one of its keys ({})", origin, key,
                                   section_keys_text(key)));
  const auto suggestion = closest_key(key);
  return ConfigError(suggestion ? fmt::format("{}: unknown key {}; did you mean {}?", origin, key, *suggestion)
                                : fmt::format("{}: unknown key {}; `wave3d run --help` lists every key", origin, key));
}

void add_table_settings(Settings& settings, const toml::table& document, std::string_view source_name) {
  for (const auto& [name, node] : document) add_node(settings, std::string(name.str()), node, source_name);
}

toml::table parse_toml_text(std::string_view text, std::string_view source_name) {
  try {
    return toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    throw ConfigError(fmt::format("{}:{}: TOML syntax error: {} (column {})", source_name, e.source().begin.line,
                                  e.description(), e.source().begin.column));
  }
}

toml::table parse_toml_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw ConfigError(fmt::format("{}: config file not found", path));
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError(fmt::format("{}: is a directory, expected a TOML config file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(fmt::format("{}: cannot open config file: {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_toml_text(text.str(), path);
}

}  // namespace wave3d
