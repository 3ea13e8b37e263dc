#include "worker/engine.hpp"

#include <utility>

#include "core/error.hpp"

namespace lightning::worker {

Engine::Engine(std::string name, int threads, const WaitPolicy* wait)
    : pool_(std::move(name), threads, wait) {}

Engine::~Engine() = default;

void Engine::execute(Job job, Done done) {
  if (!job) throw Error(ErrorKind::kInvalidArgument, "engine '" + name() + "': empty job");
  Item* item = take_item();
  // Assigning destroys the item's previous functions here, on the submitting thread.
  item->job = std::move(job);
  item->done = std::move(done);
  pool_.submit([this, item] { run(*item); });  // two pointers: kept in the function itself
}

Engine::Item* Engine::take_item() {
  std::lock_guard<std::mutex> lock(items_mutex_);
  if (!spare_.empty()) {
    Item* item = spare_.back();
    spare_.pop_back();
    return item;
  }
  items_.push_back(std::make_unique<Item>());
  return items_.back().get();
}

void Engine::run(Item& item) {
  OpSpan span{std::chrono::steady_clock::now(), {}};
  std::exception_ptr error;
  try {
    item.job();
  } catch (...) {
    error = std::current_exception();
  }
  span.end = std::chrono::steady_clock::now();
  // Moved, not copied: a `done` that moves it on leaves this thread no reference to drop.
  // (libstdc++ counts exception_ptr references in uninstrumented code, so ThreadSanitizer
  // reports a race when the last reference is dropped on another thread than the reads.)
  if (item.done) item.done(std::move(error), span);
  {
    // Kept only while few are spare, decided and done under one lock: at most kKeptFunctions
    // spare items hold a finished job's functions.
    std::lock_guard<std::mutex> lock(items_mutex_);
    if (spare_.size() < kKeptFunctions) return spare_.push_back(&item);
  }
  item.job = nullptr;  // outside the lock: what they hold may submit jobs when released
  item.done = nullptr;
  std::lock_guard<std::mutex> lock(items_mutex_);
  spare_.push_back(&item);
}

}  // namespace lightning::worker
