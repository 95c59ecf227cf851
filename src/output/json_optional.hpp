#pragma once
// Optional values in JSON documents: an unknown value is written as null, and a null or missing key
// reads back as nullopt.
#include <nlohmann/json.hpp>

#include <optional>

namespace wave3d {

template <typename T>
nlohmann::json or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

template <typename T>
std::optional<T> optional_at(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<T>();
}

}  // namespace wave3d
