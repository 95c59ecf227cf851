#include "app/thread_list.hpp"

#include "app/cli_validator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>

namespace wave3d::app {
namespace {

int parse_positive(std::string_view text, std::string_view whole) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < 1)
    throw std::invalid_argument(fmt::format("'{}' in '{}' is not a positive thread count", text, whole));
  return value;
}

}  // namespace

std::vector<std::string_view> split_list(std::string_view text) {
  std::vector<std::string_view> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

std::vector<int> parse_thread_list(std::string_view text) {
  std::vector<int> counts;
  for (const std::string_view item : split_list(text)) {
    const std::size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      counts.push_back(parse_positive(item, text));
    } else {
      const int lo = parse_positive(item.substr(0, dash), text);
      const int hi = parse_positive(item.substr(dash + 1), text);
      if (hi < lo) throw std::invalid_argument(fmt::format("range '{}' in '{}' is descending", item, text));
      for (int t = lo; t <= hi; ++t) counts.push_back(t);
    }
  }
  return counts;
}

CLI::Validator thread_list_validator() { return validator_of(parse_thread_list, "LIST", "thread list"); }

}  // namespace wave3d::app
