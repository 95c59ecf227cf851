#pragma once
// Running one of the project's Python tools (python/tools) from a command, with the interpreter CMake
// found, e.g. to draw a plot. A tool that cannot run is reported, never fatal to the caller.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace wave3d::app {

struct ScriptOutcome {
  bool ok = false;
  std::string output;   // what the script printed (stdout and stderr together)
  std::string failure;  // why it did not succeed, in one line; empty when ok
};

// Where the tool `name` (e.g. "plot_advise.py") is: $WAVE3D_PYTHON_TOOLS/name when that is set, else
// <directory of this executable>/../share/wave3d/python/tools/name. The build tree links
// <build>/share/wave3d/python to the source's python/, an installation has it under <prefix>/share,
// so the binary finds its tools wherever it was built or installed, without a path compiled in.
std::filesystem::path python_tool(std::string_view name);

// Runs `interpreter script args...` and waits for it. Never throws for a missing interpreter or script,
// a script that fails, or one killed by a signal: the outcome says which.
ScriptOutcome run_python_script(const std::string& interpreter, const std::string& script,
                                const std::vector<std::string>& args);

}  // namespace wave3d::app
