#pragma once
// Helpers for the config tests: throw-away TOML files and checks on ConfigError messages.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

#include "config/config_error.hpp"

namespace wave3d::testing {

// A TOML file in the temp directory, named after the running test so parallel tests cannot collide;
// removed again when it goes out of scope.
class TempToml {
 public:
  explicit TempToml(std::string_view text) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            (std::string("wave3d_") + info->test_suite_name() + "_" + info->name() + "_" + std::to_string(::getpid()) +
             ".toml");
    std::ofstream(path_) << text;
  }
  ~TempToml() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  TempToml(const TempToml&) = delete;
  TempToml& operator=(const TempToml&) = delete;

  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// Runs `action`, which must throw ConfigError, and returns its message.
inline std::string config_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a ConfigError";
  return {};
}

// The message is one line and contains every part.
inline void expect_message(const std::string& message, std::initializer_list<std::string_view> parts) {
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  for (std::string_view part : parts) EXPECT_NE(message.find(part), std::string::npos) << "missing '" << part << "' in: " << message;
}

}  // namespace wave3d::testing
