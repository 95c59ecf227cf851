#include "app/python_script.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

extern char** environ;

namespace wave3d::app {
namespace {

// The last non-empty line: for a Python failure, the exception and its message.
std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last;
}

}  // namespace

std::filesystem::path python_tool(std::string_view name) {
  if (const char* dir = std::getenv("WAVE3D_PYTHON_TOOLS"); dir != nullptr && *dir != '\0')
    return std::filesystem::path(dir) / name;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::filesystem::path("share/wave3d/python/tools") / name;  // reported missing by the caller
  return (exe.parent_path() / ".." / "share" / "wave3d" / "python" / "tools" / name).lexically_normal();
}

ScriptOutcome run_python_script(const std::string& interpreter, const std::string& script,
                                const std::vector<std::string>& args) {
  ScriptOutcome out;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(script, ec)) {
    out.failure = fmt::format("the script {} does not exist", script);
    return out;
  }
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    out.failure = fmt::format("cannot create a pipe: {}", std::strerror(errno));
    return out;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);

  std::vector<std::string> argv_text{interpreter, script};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);

  // posix_spawn rather than fork: it does not copy the address space of a process that may hold large
  // fields and MPI's registered memory.
  pid_t pid = 0;
  const int spawn_error = posix_spawn(&pid, interpreter.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawn_error != 0) {
    close(pipe_fds[0]);
    out.failure = fmt::format("cannot start {}: {}", interpreter, std::strerror(spawn_error));
    return out;
  }
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
    if (n > 0) {
      out.output.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    out.ok = true;
  } else if (WIFEXITED(status)) {
    const std::string why = last_line(out.output);
    out.failure = fmt::format("{} exited with status {}{}", script, WEXITSTATUS(status), why.empty() ? "" : ": " + why);
  } else {
    out.failure = fmt::format("{} was killed by signal {}", script, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  }
  return out;
}

}  // namespace wave3d::app
