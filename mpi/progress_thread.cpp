#include "mpi/progress_thread.hpp"

#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <stdexcept>
#include <string>

namespace wave3d::mpi {
namespace {

bool process_may_run_on(int cpu) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  return cpu >= 0 && cpu < CPU_SETSIZE && sched_getaffinity(0, sizeof allowed, &allowed) == 0 &&
         CPU_ISSET(cpu, &allowed);
}

}  // namespace

ProgressThread::ProgressThread(int cpu) : cpu_(cpu) {
  if (cpu >= 0 && !process_may_run_on(cpu))
    throw std::invalid_argument("parallel.progress_core = " + std::to_string(cpu) +
                                " is not a CPU this process may run on; allowed: -1 (unbound) or a CPU in the "
                                "process's affinity mask (see the binding report)");
  thread_ = std::thread([this] { run(); });
  if (cpu >= 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (pthread_setaffinity_np(thread_.native_handle(), sizeof one, &one) != 0) {
      shutdown();  // a joinable thread must not outlive a failed constructor
      throw std::runtime_error("cannot bind the progress thread to CPU " + std::to_string(cpu));
    }
  }
}

ProgressThread::~ProgressThread() { shutdown(); }

void ProgressThread::shutdown() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
  }
  stop_requested_ = true;
  wake_.notify_all();
  thread_.join();
}

void ProgressThread::start(std::function<bool()> poll) {
  {
    std::lock_guard lock(mutex_);
    poll_ = std::move(poll);
    busy_ = true;
    completed_after_.reset();
    stop_requested_ = false;
  }
  wake_.notify_all();
}

std::optional<double> ProgressThread::stop() {
  stop_requested_ = true;
  std::unique_lock lock(mutex_);
  wake_.wait(lock, [this] { return !busy_; });
  return completed_after_;
}

void ProgressThread::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return quit_ || busy_; });
    if (quit_) return;
    const std::function<bool()> poll = poll_;
    lock.unlock();
    // Busy polling is the point: the thread has a core of its own when placement reserves one.
    const auto started = std::chrono::steady_clock::now();
    bool done = false;
    while (!done && !stop_requested_.load(std::memory_order_relaxed)) done = poll();
    const double after = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    lock.lock();
    if (done) completed_after_ = after;
    busy_ = false;
    poll_ = nullptr;
    wake_.notify_all();
  }
}

}  // namespace wave3d::mpi
