#include "app/bench_options.hpp"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>
#include <string>

#include "app/cli_validator.hpp"
#include "app/thread_list.hpp"

namespace wave3d::app {

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
  for (const std::string_view item : split_list(text)) {
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
