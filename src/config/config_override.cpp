#include "config/config_override.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "config/config_value.hpp"

namespace wave3d {

namespace {

constexpr std::string_view kOverrideOrigin = "--set";

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// The value of `v = <text>` if that is a valid one-key TOML document.
std::optional<toml::table> try_parse(std::string_view text) {
  toml::table document;
  try {
    document = toml::parse(fmt::format("v = {}", text));
  } catch (const toml::parse_error&) {
    return std::nullopt;
  }
  // A value with a newline could smuggle in more keys; such text is not one value.
  if (document.size() != 1 || !document.contains("v")) return std::nullopt;
  return document;
}

// The override's value as a TOML node (held in the returned one-key table under "v").
toml::table parse_value(const KeySpec& spec, std::string_view text) {
  std::optional<toml::table> parsed = try_parse(text);
  if (!parsed && text.find(',') != std::string_view::npos && !text.starts_with('['))
    parsed = try_parse(fmt::format("[{}]", text));
  // String keys take the text as written unless it is a quoted TOML string: output.name=2024 is a
  // name, not an integer.
  if (parsed && (spec.kind != ValueKind::string || parsed->get("v")->is_string())) return std::move(*parsed);
  const bool looks_structured = !text.empty() && std::string_view("[{\"'").find(text.front()) != std::string_view::npos;
  if (looks_structured) {
    try {
      (void)toml::parse(fmt::format("v = {}", text));
    } catch (const toml::parse_error& e) {
      throw ConfigError(fmt::format("{}: {} = {} is not valid TOML ({}); allowed: {}", kOverrideOrigin, spec.key, text,
                                    e.description(), allowed_text(spec)));
    }
  }
  toml::table bare;
  bare.insert("v", std::string(text));
  return bare;
}

}  // namespace

void add_override(Settings& settings, std::string_view text) {
  const auto equals = text.find('=');
  const std::string_view key = trim(text.substr(0, equals));
  if (equals == std::string_view::npos || key.empty())
    throw ConfigError(fmt::format("{}: malformed override '{}': expected key=value, e.g. grid.n=512,512,256", kOverrideOrigin,
                                  text));
  const KeySpec* spec = find_key_spec(key);
  if (spec == nullptr) throw unknown_key_error(key, kOverrideOrigin);
  const toml::table value = parse_value(*spec, trim(text.substr(equals + 1)));
  settings.insert_or_assign(std::string(key), Setting{check_value(*spec, *value.get("v"), kOverrideOrigin), std::string(kOverrideOrigin)});
}

}  // namespace wave3d
