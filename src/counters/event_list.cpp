#include "counters/event_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace wave3d::counters {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

}  // namespace

std::vector<std::string> parse_event_list(std::string_view text) {
  std::vector<std::string> names;
  if (trim(text).empty()) return names;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = text.find(',', begin);
    const std::string_view name = trim(text.substr(begin, comma == std::string_view::npos ? comma : comma - begin));
    if (name.empty())
      throw std::invalid_argument(fmt::format("event {} of the list is empty", names.size() + 1));
    if (name.find_first_of(" \t") != std::string_view::npos)
      throw std::invalid_argument(fmt::format("\"{}\" is not an event name (names have no spaces)", name));
    if (std::find(names.begin(), names.end(), name) != names.end())
      throw std::invalid_argument(fmt::format("{} is listed twice", name));
    names.emplace_back(name);
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  if (names.size() > kMaxEvents)
    throw std::invalid_argument(fmt::format("{} events are listed, at most {} are counted", names.size(), kMaxEvents));
  return names;
}

}  // namespace wave3d::counters
