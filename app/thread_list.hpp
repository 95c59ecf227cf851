#pragma once
// Thread-count lists on the command line: "1,2,4-8" -> {1, 2, 4, 5, 6, 7, 8}.
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace wave3d::app {

// In the order written (a sweep runs in that order). Throws std::invalid_argument naming the bad part.
std::vector<int> parse_thread_list(std::string_view text);

// The comma-separated items of a list, in order, empty ones included (for the parser to refuse).
std::vector<std::string_view> split_list(std::string_view text);

// A CLI11 validator that accepts exactly what parse_thread_list accepts.
CLI::Validator thread_list_validator();

}  // namespace wave3d::app
