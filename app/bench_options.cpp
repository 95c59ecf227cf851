#include "app/bench_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>

#include "app/thread_list.hpp"

namespace wave3d::app {
namespace {

// A validator from a parser that throws std::invalid_argument with the message to show.
template <typename Parse>
CLI::Validator validator_of(Parse parse, const std::string& description, const std::string& name) {
  return CLI::Validator(
      [parse](std::string& text) {
        try {
          (void)parse(text);
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      },
      description, name);
}

}  // namespace

std::optional<std::array<std::int64_t, 3>> given_blocking(std::string_view text) {
  if (text == "auto") return std::nullopt;
  std::array<std::int64_t, 3> sizes{};
  std::size_t axis = 0;
  const char* p = text.data();
  const char* const end = text.data() + text.size();
  while (axis < sizes.size()) {
    const auto [next, error] = std::from_chars(p, end, sizes[axis]);
    if (error != std::errc() || sizes[axis] < 0 || sizes[axis] > (std::int64_t{1} << 30)) break;
    p = next;
    ++axis;
    if (axis < sizes.size() && (p == end || *p++ != ',')) break;
  }
  if (axis != sizes.size() || p != end)
    throw std::invalid_argument(
        fmt::format("'{}' is neither auto nor three block sizes x,y,z (each 0, the whole axis, to 2^30)", text));
  return sizes;
}

std::vector<int> sweep_step_list(std::string_view text) {
  std::vector<int> steps;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    if (item == "auto") {
      steps.push_back(kTunedSweepSteps);
    } else {
      try {
        for (int t : parse_thread_list(item)) steps.push_back(t);
      } catch (const std::invalid_argument&) {
        throw std::invalid_argument(
            fmt::format("'{}' in '{}' is neither auto nor a positive number of steps or a range of them", item, text));
      }
    }
    start = comma + 1;
  }
  return steps;
}

void set_sweep_steps(RunConfig& config, int steps) {
  config.tune.steps = steps == kTunedSweepSteps;
  config.blocking.steps = config.tune.steps ? 1 : steps;
}

CLI::Validator blocking_validator() { return validator_of(given_blocking, "auto|X,Y,Z", "blocking"); }

CLI::Validator sweep_steps_validator() { return validator_of(sweep_step_list, "LIST", "sweep steps"); }

}  // namespace wave3d::app
