#include "worker/engine.hpp"

#include <utility>

#include "core/error.hpp"

namespace lightning::worker {

Engine::Engine(std::string name, int threads) : pool_(std::move(name), threads) {}

void Engine::execute(Job job, Done done) {
  if (!job) throw Error(ErrorKind::kInvalidArgument, "engine '" + name() + "': empty job");
  pool_.submit([job = std::move(job), done = std::move(done)] {
    std::exception_ptr error;
    try {
      job();
    } catch (...) {
      error = std::current_exception();
    }
    // Moved, not copied: a `done` that moves it on leaves this thread no reference to drop.
    // (libstdc++ counts exception_ptr references in uninstrumented code, so ThreadSanitizer
    // reports a race when the last reference is dropped on another thread than the reads.)
    if (done) done(std::move(error));
  });
}

}  // namespace lightning::worker
