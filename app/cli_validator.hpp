#pragma once
// A CLI11 validator from a parser that throws std::invalid_argument with the message to show, so that
// an option accepts exactly what its parser accepts and says why it refuses the rest.
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

namespace wave3d::app {

template <typename Parse>
CLI::Validator validator_of(Parse parse, const std::string& description, const std::string& name = "") {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        try {
          (void)parse(text);
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      description, name);
}

}  // namespace wave3d::app
