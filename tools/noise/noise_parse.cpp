#include "noise_parse.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace wave3d::noise {

std::optional<std::chrono::nanoseconds> parse_duration(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    double ns;
  };
  // Longest suffixes first, so "ms" is not taken for "s".
  static constexpr Unit units[] = {{"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  for (const Unit& unit : units) {
    if (text.size() <= unit.suffix.size() || !text.ends_with(unit.suffix)) {
      continue;
    }
    std::string_view number = text.substr(0, text.size() - unit.suffix.size());
    // Only plain decimals: digits with at most one '.', no sign, exponent, "inf" or "nan".
    if (!std::all_of(number.begin(), number.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; }) ||
        std::count(number.begin(), number.end(), '.') > 1 || number == ".") {
      return std::nullopt;
    }
    double value = 0.0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc() || end != number.data() + number.size()) {
      return std::nullopt;
    }
    const double ns = std::round(value * unit.ns);
    // At least 1 ns, and at most about 290 years (int64 nanoseconds).
    if (!(ns >= 1.0) || ns > 9.0e18) {
      return std::nullopt;
    }
    return std::chrono::nanoseconds(static_cast<std::int64_t>(ns));
  }
  return std::nullopt;
}

namespace {

std::optional<int> parse_cpu(std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  if (text.empty()) {
    return std::nullopt;
  }
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const std::size_t dash = item.find('-');
    const auto first = parse_cpu(item.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : parse_cpu(item.substr(dash + 1));
    if (!first || !last || *last < *first || *last - *first > 65536) {
      return std::nullopt;
    }
    for (int cpu = *first; cpu <= *last; ++cpu) {
      cpus.push_back(cpu);
    }
    if (comma == std::string_view::npos) {
      break;
    }
    text.remove_prefix(comma + 1);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) {
      ++j;
    }
    if (!out.empty()) {
      out += ',';
    }
    out += std::to_string(cpus[i]);
    if (j > i) {
      out += '-' + std::to_string(cpus[j]);
    }
    i = j + 1;
  }
  return out;
}

}  // namespace wave3d::noise
