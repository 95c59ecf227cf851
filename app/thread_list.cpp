#include "app/thread_list.hpp"

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

std::vector<int> parse_thread_list(std::string_view text) {
  std::vector<int> counts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    const std::size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      counts.push_back(parse_positive(item, text));
    } else {
      const int lo = parse_positive(item.substr(0, dash), text);
      const int hi = parse_positive(item.substr(dash + 1), text);
      if (hi < lo) throw std::invalid_argument(fmt::format("range '{}' in '{}' is descending", item, text));
      for (int t = lo; t <= hi; ++t) counts.push_back(t);
    }
    start = comma + 1;
  }
  return counts;
}


CLI::Validator thread_list_validator() {
  return CLI::Validator(
      [](std::string& text) {
        try {
          parse_thread_list(text);
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      },
      "LIST", "thread list");
}

}  // namespace wave3d::app
