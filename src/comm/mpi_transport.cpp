#include "comm/mpi_transport.hpp"

#include <condition_variable>
#include <future>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <variant>

#include "comm/buffer_pool.hpp"
#include "comm/clock.hpp"
#include "comm/frame.hpp"
#include "comm/handler_registry.hpp"
#include "comm/incoming_payloads.hpp"
#include "comm/mpi_communicator.hpp"
#include "comm/peer_monitor.hpp"
#include "comm/pending_sends.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/ring_queue.hpp"

namespace lightning::comm {

// The communication thread and what it drives: the outbox callers fill, the frames it sends
// and receives, and the pieces that hold each protocol's state (pending sends, announced
// payloads, peer liveness). Every failed call for a peer ends in lose().
class MpiTransport::Engine {
 public:
  Engine(Options options, ControlHandler on_control, PeerLostHandler on_peer_lost)
      : options_(std::move(options)),
        on_control_(std::move(on_control)),
        on_peer_lost_(std::move(on_peer_lost)),
        buffers_(options_.inline_limit) {}

  // Starts the thread and waits until it has set up its communicator.
  void start(int* rank, int* size) {
    std::promise<void> ready;
    auto started = ready.get_future();
    thread_ = std::thread([this, &ready] {
      try {
        setup();
        ready.set_value();
      } catch (...) {
        ready.set_exception(std::current_exception());
        return;
      }
      loop();
    });
    try {
      started.get();
    } catch (...) {
      thread_.join();
      throw;
    }
    *rank = rank_;
    *size = size_;
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      wake_.notify_one();
    }
    if (thread_.joinable()) thread_.join();
  }

  void set_handler(WorkerId w, Handler handler) { handlers_.set(w, std::move(handler)); }

  // Hands a message to the handler of its (local) worker; one that arrives before its
  // worker exists (a session's first messages may overtake its start) waits for it.
  void deliver(DataMessage message) { handlers_.deliver(std::move(message)); }

  // A receive() of an announced payload, for the communication thread.
  struct ReceiveRequest {
    WorkerId to;
    uint64_t tag = 0;
    void* destination = nullptr;
    ReceiveDone done;
  };
  using Outgoing = std::variant<DataMessage, ControlMessage, ReceiveRequest>;

  void post(Outgoing message) {
    std::lock_guard<std::mutex> lock(mutex_);
    outbox_.push_back(std::move(message));
    wake_.notify_one();
  }

  ~Engine() { stop(); }

 private:
  // Runs `call` with a list for the peers whose calls fail, then loses them, and returns
  // what `call` returned. Losing a peer changes the tables `call` walks: it comes after.
  template <class Call>
  auto lose_failed(Call call) {
    PeerFailures failed;
    if constexpr (std::is_void_v<decltype(call(failed))>) {
      call(failed);
      for (const PeerFailure& f : failed) lose(f.rank, f.reason);
    } else {
      auto result = call(failed);
      for (const PeerFailure& f : failed) lose(f.rank, f.reason);
      return result;
    }
  }

  // On the communication thread: everything that makes MPI calls is made here (and destroyed
  // in shutdown(), here too). The communicator is held in a local until nothing can throw, so
  // that a throw frees it on this thread.
  void setup() {
    auto comm = std::make_unique<MpiCommunicator>();
    peers_.emplace(comm->rank(), comm->size(), options_.watched, options_.heartbeat_interval,
                   options_.peer_timeout, clock_);
    rank_ = comm->rank();
    size_ = comm->size();
    comm_ = std::move(comm);
    sends_.emplace(*comm_, buffers_);
    incoming_.emplace(*comm_, buffers_, clock_, options_.direct_receive_wait);
  }

  void loop() {
    auto last_busy = clock_.now();
    RingQueue<Outgoing> batch;  // kept: the loop polls, and must not allocate each round
    for (;;) {
      bool stopping = false;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        batch.swap(outbox_);
        stopping = stopping_;
      }
      bool busy = !batch.empty();
      while (!batch.empty()) {
        Outgoing m = batch.pop_front();
        std::visit([&](auto& x) { send_now(std::move(x)); }, m);
      }
      busy |= receive(/*deliver=*/true);
      busy |= test_pending();
      busy |= lose_failed([&](PeerFailures& f) { return incoming_->buffer_overdue(f); });
      heartbeat();
      if (stopping) break;
      const auto now = clock_.now();
      if (busy) last_busy = now;
      // Transfers under way progress only while this thread calls into MPI: poll without
      // pause (a yield on a loaded machine can cost a whole time slice per fragment). Idle,
      // yield for `idle_poll` after the last message, then back off to short sleeps, woken at
      // once by anything queued.
      if (!sends_->empty() || incoming_->receiving()) continue;
      if (now - last_busy < options_.idle_poll) {
        std::this_thread::yield();
      } else {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait_for(lock, std::chrono::microseconds(50),
                       [&] { return !outbox_.empty() || stopping_; });
      }
    }
    shutdown();
  }

  void send_frame(int to, std::vector<uint8_t> frame) {
    lose_failed([&](PeerFailures& f) { sends_->send_frame(to, std::move(frame), f); });
  }

  void send_now(ControlMessage message) {
    if (message.to == rank_) {
      if (on_control_) on_control_(std::move(message));
      return;
    }
    if (!peers_->alive(message.to)) return;  // reported already; the sender learns from that
    send_frame(message.to, control_frame(message.bytes));
  }

  void send_now(DataMessage message) {
    const int to = static_cast<int>(message.to.value());
    if (to == rank_) {
      deliver(std::move(message));
      return;
    }
    if (!peers_->alive(to)) return;
    const bool lent = message.lent.data != nullptr;
    const size_t size = lent ? message.lent.size : message.payload.size();
    DataHeader h;
    h.tag = message.tag;
    h.from = message.from.value();
    h.to = message.to.value();
    h.size = size;
    h.failed_task = message.failed_task.value();
    const bool separate = size > options_.inline_limit;
    if (separate) {
      h.payload_tag = sends_->payload_tag(to);
    } else {
      copy_lent_bytes(message);  // small lent bytes travel in the header, given back at once
      h.inline_payload = std::move(message.payload);
    }
    send_frame(to, data_frame(h));
    if (!separate) return;
    // The payload goes from the message's own buffer, or the bytes it lends: no copy here.
    lose_failed(
        [&](PeerFailures& f) { sends_->send_payload(to, h.payload_tag, std::move(message), f); });
  }

  // The receive() of an announced payload: into its destination if the payload is not on its
  // way yet, otherwise it is handed over in a buffer once there.
  void send_now(ReceiveRequest request) {
    lose_failed([&](PeerFailures& f) {
      incoming_->receive(request.to, request.tag, request.destination, std::move(request.done), f);
    });
  }

  // Receives every control frame that has arrived; returns whether there was one.
  bool receive(bool deliver_frames) {
    bool any = false;
    for (;;) {
      int from = -1;
      std::vector<uint8_t> frame;
      if (!comm_->receive_any(kControlTag, &from, &frame)) return any;
      any = true;
      peers_->heard_from(from);
      if (frame.empty() || !deliver_frames) continue;
      try {
        handle_frame(from, std::move(frame));
      } catch (const std::exception& e) {
        log().error("MPI transport: dropped a malformed message from rank {}: {}", from, e.what());
      }
    }
  }

  void handle_frame(int from, std::vector<uint8_t> frame) {
    switch (static_cast<FrameKind>(frame[0])) {
      case FrameKind::kHeartbeat:
        return;
      case FrameKind::kGoodbye:
        peers_->said_goodbye(from);
        return;
      case FrameKind::kControl:
        frame.erase(frame.begin());
        if (on_control_) on_control_({from, rank_, std::move(frame)});
        return;
      case FrameKind::kData:
        break;
      default:
        throw Error(ErrorKind::kCommunication,
                    "unknown frame kind " + std::to_string(static_cast<int>(frame[0])));
    }
    DataHeader h = read_data_frame(frame);
    DataMessage m;
    m.from = WorkerId(h.from);
    m.to = WorkerId(h.to);
    m.tag = h.tag;
    m.failed_task = TaskId(h.failed_task);
    if (h.payload_tag == 0) {
      m.payload = std::move(h.inline_payload);
      deliver(std::move(m));
      return;
    }
    // Announced: the payload waits at the sender for the receiver to say where it goes.
    lose_failed([&](PeerFailures& f) {
      incoming_->announce(from, m.to, h.tag, h.payload_tag, static_cast<size_t>(h.size), f);
    });
    m.pending_size = static_cast<size_t>(h.size);
    deliver(std::move(m));
  }

  // Completes finished sends and receives; returns whether any finished.
  bool test_pending() {
    const bool sent = lose_failed([&](PeerFailures& f) { return sends_->test(f); });
    const bool received = lose_failed([&](PeerFailures& f) { return incoming_->test(f); });
    return sent || received;
  }

  // Sends the heartbeats that are due, and loses the ranks that fell silent.
  void heartbeat() {
    PeerMonitor::Due due = peers_->poll();
    for (const PeerFailure& f : due.timed_out) forget(f.rank, f.reason);
    for (int r : due.heartbeats) send_frame(r, signal_frame(FrameKind::kHeartbeat));
  }

  // A call for `r` failed: it is lost (once).
  void lose(int r, const std::string& reason) {
    if (peers_->mark_lost(r)) forget(r, reason);
  }

  // Lost rank `r` (marked so already): whatever was on its way to or from it will not
  // complete; its announced payloads never come, so their receive() gets the error.
  void forget(int r, const std::string& reason) {
    sends_->drop_to(r);
    incoming_->fail_from(r, reason);
    log().error("MPI transport: lost rank {}: {}", r, reason);
    if (on_peer_lost_ && !stopped_delivering_) on_peer_lost_(r, reason);
  }

  // Says goodbye to the watched ranks, finishes sends to live ranks (bounded by the peer
  // timeout), drops what still arrives, and frees the communicator.
  void shutdown() {
    stopped_delivering_ = true;
    sends_->stop_releasing();
    incoming_->stop_delivering();
    for (int r : peers_->watched())
      if (peers_->alive(r)) send_frame(r, signal_frame(FrameKind::kGoodbye));
    const auto deadline = clock_.now() + options_.peer_timeout;
    while (!sends_->empty() && clock_.now() < deadline) {
      receive(/*deliver=*/false);
      test_pending();
      std::this_thread::yield();
    }
    sends_->abandon();
    incoming_->abandon();
    incoming_.reset();
    sends_.reset();
    comm_.reset();
  }

  Options options_;
  ControlHandler on_control_;
  PeerLostHandler on_peer_lost_;
  std::thread thread_;

  // Shared with the callers.
  std::mutex mutex_;
  std::condition_variable wake_;
  RingQueue<Outgoing> outbox_;
  bool stopping_ = false;
  HandlerRegistry handlers_;  // thread-safe itself

  // Owned by the communication thread (rank_ and size_ are set before start() returns).
  SteadyClock clock_;
  int rank_ = 0;
  int size_ = 1;
  std::unique_ptr<Communicator> comm_;
  BufferPool buffers_;  // buffers of finished sends, for receives into buffers
  std::optional<PeerMonitor> peers_;
  std::optional<PendingSends> sends_;
  std::optional<IncomingPayloads> incoming_;
  bool stopped_delivering_ = false;
};

MpiTransport::MpiTransport(Options options, ControlHandler on_control, PeerLostHandler on_peer_lost)
    : engine_(std::make_unique<Engine>(std::move(options), std::move(on_control),
                                       std::move(on_peer_lost))) {
  engine_->start(&rank_, &size_);
}

MpiTransport::~MpiTransport() {
  engine_->stop();
}

void MpiTransport::set_handler(WorkerId w, Handler handler) {
  engine_->set_handler(w, std::move(handler));
}

void MpiTransport::send(DataMessage message) {
  const uint64_t to = message.to.value();
  if (!message.to.valid() || to >= static_cast<uint64_t>(size_))
    throw Error(ErrorKind::kCommunication, "message with tag " + std::to_string(message.tag) +
                                               " for worker " + message.to.to_string() +
                                               ", which does not exist: the run has " +
                                               std::to_string(size_) + " rank(s), one worker each");
  const size_t size = message.lent.data ? message.lent.size : message.payload.size();
  if (size > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw Error(ErrorKind::kCommunication,
                "message with tag " + std::to_string(message.tag) + " from worker " +
                    message.from.to_string() + " to " + message.to.to_string() + " holds " +
                    std::to_string(size) +
                    " bytes; one MPI message carries at most 2^31 - 1: use smaller chunks");
  if (static_cast<int>(to) == rank_) {  // a worker of this rank: no need for the thread
    copy_lent_bytes(message);
    engine_->deliver(std::move(message));
    return;
  }
  engine_->post(std::move(message));
}

void MpiTransport::receive(WorkerId to, uint64_t tag, void* destination, ReceiveDone done) {
  engine_->post(Engine::ReceiveRequest{to, tag, destination, std::move(done)});
}

void MpiTransport::send_control(int to, std::vector<uint8_t> bytes) {
  if (to < 0 || to >= size_)
    throw Error(ErrorKind::kCommunication, "control message for rank " + std::to_string(to) +
                                               ", which does not exist: the run has " +
                                               std::to_string(size_) + " rank(s)");
  engine_->post(ControlMessage{rank_, to, std::move(bytes)});
}

}  // namespace lightning::comm
