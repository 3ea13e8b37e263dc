#include "worker/thread_pool.hpp"

#include <pthread.h>

#include <cstdio>
#include <exception>
#include <utility>

#include "core/error.hpp"

namespace lightning::worker {
namespace {

/// The OS name of thread `index` of a pool: Linux keeps 15 characters.
std::string thread_name(const std::string& pool, int index, int count) {
  constexpr size_t kMax = 15;
  const std::string suffix = count == 1 ? "" : "#" + std::to_string(index);
  if (suffix.size() >= kMax) return suffix.substr(0, kMax);
  return pool.substr(0, kMax - suffix.size()) + suffix;
}

}  // namespace

ThreadPool::ThreadPool(std::string name, int threads, const WaitPolicy* wait)
    : name_(std::move(name)), count_(threads), wait_(wait) {
  if (threads < 1)
    throw Error(ErrorKind::kInvalidArgument, "thread pool '" + name_ +
                                                 "': " + std::to_string(threads) +
                                                 " threads requested, at least 1 needed");
  threads_.reserve(static_cast<size_t>(threads));
  try {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this, i] { run(i); });
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
    throw;
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::submit(std::function<void()> job) {
  if (!job) throw Error(ErrorKind::kInvalidArgument, "thread pool '" + name_ + "': empty job");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(job));
    queued_.store(queue_.size(), std::memory_order_release);
  }
  wake_.notify_one();
}

void ThreadPool::run(int index) {
  name_current_thread(thread_name(name_, index, count_));
  for (;;) {
    std::function<void()> job;
    // As MessageQueue::pop: the next job of a chain of small ones comes within microseconds.
    WaitPolicy::poll(wait_, [this] {
      return queued_.load(std::memory_order_acquire) != 0 ||
             stopping_.load(std::memory_order_acquire);
    });
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to do
      job = queue_.pop_front();
      queued_.store(queue_.size(), std::memory_order_release);
    }
    try {
      job();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "lightning: thread pool '%s': a job threw: %s\n", name_.c_str(),
                   e.what());
      std::terminate();
    } catch (...) {
      std::fprintf(stderr, "lightning: thread pool '%s': a job threw a non-std exception\n",
                   name_.c_str());
      std::terminate();
    }
  }
}

void name_current_thread(const std::string& name) {
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

std::string current_thread_name() {
  char name[16] = {};  // the system's limit: 15 characters and the terminator
  pthread_getname_np(pthread_self(), name, sizeof name);
  return name;
}

}  // namespace lightning::worker
