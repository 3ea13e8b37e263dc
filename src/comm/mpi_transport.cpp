#include "comm/mpi_transport.hpp"

#include <mpi.h>

#include <cereal/archives/binary.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>
#include <condition_variable>
#include <deque>
#include <future>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <variant>

#include "core/error.hpp"
#include "core/log.hpp"

namespace lightning::comm {

namespace {

// Every frame on the control tag starts with one of these bytes.
enum class Frame : uint8_t { kHeartbeat = 0, kControl = 1, kData = 2, kGoodbye = 3 };

constexpr int kControlTag = 1;
constexpr int kFirstPayloadTag = 2;

// What precedes a DataMessage's payload: the payload itself when small.
struct DataHeader {
  uint64_t tag = 0;
  uint64_t from = 0;
  uint64_t to = 0;
  uint64_t size = 0;
  int32_t payload_tag = 0;  // 0: the payload is inline
  uint64_t failed_task = TaskId().value();
  Payload inline_payload;
  template <class Archive>
  void serialize(Archive& a) {
    a(tag, from, to, size, payload_tag, failed_task, inline_payload);
  }
};

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<size_t>(length));
}

std::string seconds_text(std::chrono::steady_clock::duration d) {
  std::ostringstream os;
  os.precision(1);
  os << std::fixed << std::chrono::duration<double>(d).count() << " s";
  return os.str();
}

}  // namespace

class MpiTransport::Engine {
 public:
  Engine(Options options, ControlHandler on_control, PeerLostHandler on_peer_lost)
      : options_(std::move(options)),
        on_control_(std::move(on_control)),
        on_peer_lost_(std::move(on_peer_lost)) {}

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

  void set_handler(WorkerId w, Handler handler) {
    std::vector<DataMessage> waiting;
    {
      std::lock_guard<std::mutex> lock(handlers_mutex_);
      if (!handler) {
        handlers_.erase(w);
        return;
      }
      handlers_[w] = handler;
      auto it = unclaimed_.find(w);
      if (it != unclaimed_.end()) {
        waiting = std::move(it->second);
        unclaimed_.erase(it);
      }
    }
    for (DataMessage& m : waiting) handler(std::move(m));
  }

  // Hands a message to the handler of its (local) worker; one that arrives before its
  // worker exists (a session's first messages may overtake its start) waits for it.
  void deliver(DataMessage message) {
    Handler handler;
    {
      std::lock_guard<std::mutex> lock(handlers_mutex_);
      auto it = handlers_.find(message.to);
      if (it == handlers_.end()) {
        unclaimed_[message.to].push_back(std::move(message));
        return;
      }
      handler = it->second;
    }
    handler(std::move(message));
  }

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
  struct PendingSend {
    MPI_Request request = MPI_REQUEST_NULL;
    int to = -1;
    std::vector<uint8_t> frame;  // kept alive until the send completes
    DataMessage message;         // ditto, for a payload sent from its own (or lent) buffer
  };
  // An announced payload, from its header's arrival until receive() has it. Posted: its
  // MPI_Irecv is under way, into `destination` or into `buffer`.
  struct Incoming {
    int from = -1;
    int payload_tag = 0;
    size_t size = 0;
    std::chrono::steady_clock::time_point deadline;  // then into a buffer, if not asked for
    MPI_Request request = MPI_REQUEST_NULL;
    bool posted = false;
    bool arrived = false;
    void* destination = nullptr;
    Payload buffer;
    ReceiveDone done;   // set by receive()
    std::string error;  // the sender was lost: it never comes
  };
  using IncomingKey = std::pair<uint64_t, uint64_t>;  // (worker, tag)

  void setup() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized)
      throw Error(ErrorKind::kCommunication, "the MPI transport needs MPI initialised first");
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_SERIALIZED)
      throw Error(ErrorKind::kCommunication,
                  "the MPI transport makes its MPI calls on a thread of its own, which needs "
                  "MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE; MPI was initialised with "
                  "thread level " +
                      std::to_string(provided));
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    int flag = 0;
    int* tag_ub = nullptr;
    MPI_Comm_get_attr(comm_, MPI_TAG_UB, &tag_ub, &flag);
    tag_ub_ = flag && tag_ub ? *tag_ub : 32767;
    next_payload_tag_.assign(static_cast<size_t>(size_), kFirstPayloadTag);
    last_heard_.assign(static_cast<size_t>(size_), std::chrono::steady_clock::now());
    state_.assign(static_cast<size_t>(size_), PeerState::kAlive);
    for (int r : options_.watched)
      if (r < 0 || r >= size_ || r == rank_)
        throw Error(ErrorKind::kInvalidArgument,
                    "MPI transport: cannot watch rank " + std::to_string(r) + " from rank " +
                        std::to_string(rank_) + " of " + std::to_string(size_));
  }

  void loop() {
    auto next_heartbeat = std::chrono::steady_clock::now();
    int idle_rounds = 0;
    for (;;) {
      std::deque<Outgoing> batch;
      bool stopping = false;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        batch.swap(outbox_);
        stopping = stopping_;
      }
      bool busy = !batch.empty();
      for (auto& m : batch) std::visit([&](auto& x) { send_now(std::move(x)); }, m);
      busy |= receive(/*deliver=*/true);
      busy |= test_pending();
      const auto now = std::chrono::steady_clock::now();
      busy |= buffer_overdue(now);
      if (now >= next_heartbeat) {
        heartbeat(now);
        next_heartbeat = now + options_.heartbeat_interval;
      }
      if (stopping) break;
      idle_rounds = busy ? 0 : idle_rounds + 1;
      // Transfers under way progress only while this thread calls into MPI: poll without
      // pause (a yield on a loaded machine can cost a whole time slice per fragment). Idle,
      // yield for a while, then back off to short sleeps, woken at once by anything queued.
      if (!sends_.empty() || receiving_ > 0) continue;
      if (idle_rounds < 64) {
        std::this_thread::yield();
      } else {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait_for(lock, std::chrono::microseconds(50),
                       [&] { return !outbox_.empty() || stopping_; });
      }
    }
    shutdown();
  }

  void send_frame(int to, std::vector<uint8_t> frame, DataMessage message = {}) {
    sends_.push_back({MPI_REQUEST_NULL, to, std::move(frame), std::move(message)});
    PendingSend& s = sends_.back();
    const int rc = MPI_Isend(s.frame.data(), static_cast<int>(s.frame.size()), MPI_BYTE, to,
                             kControlTag, comm_, &s.request);
    if (rc != MPI_SUCCESS) {
      sends_.pop_back();
      lose(to, "sending to it failed: " + mpi_error_text(rc));
    }
  }

  void send_now(ControlMessage message) {
    if (message.to == rank_) {
      if (on_control_) on_control_(std::move(message));
      return;
    }
    if (!alive(message.to)) return;  // reported already; the sender learns from that
    std::vector<uint8_t> frame;
    frame.reserve(message.bytes.size() + 1);
    frame.push_back(static_cast<uint8_t>(Frame::kControl));
    frame.insert(frame.end(), message.bytes.begin(), message.bytes.end());
    send_frame(message.to, std::move(frame));
  }

  void send_now(DataMessage message) {
    const int to = static_cast<int>(message.to.value());
    if (to == rank_) {
      deliver(std::move(message));
      return;
    }
    if (!alive(to)) return;
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
      int& next = next_payload_tag_[static_cast<size_t>(to)];
      h.payload_tag = next;
      next = next >= tag_ub_ ? kFirstPayloadTag : next + 1;
    } else {
      copy_lent_bytes(message);  // small lent bytes travel in the header, given back at once
      h.inline_payload = std::move(message.payload);
    }
    std::ostringstream os;
    os.put(static_cast<char>(Frame::kData));
    {
      cereal::BinaryOutputArchive archive(os);
      archive(h);
    }
    const std::string text = os.str();
    send_frame(to, std::vector<uint8_t>(text.begin(), text.end()));
    if (!separate) return;
    // The payload goes from the message's own buffer, or the bytes it lends: no copy here.
    sends_.push_back({MPI_REQUEST_NULL, to, {}, std::move(message)});
    PendingSend& s = sends_.back();
    const void* bytes = lent ? s.message.lent.data : s.message.payload.data();
    const int rc =
        MPI_Isend(bytes, static_cast<int>(size), MPI_BYTE, to, h.payload_tag, comm_, &s.request);
    if (rc != MPI_SUCCESS) {
      DataMessage failed = std::move(s.message);
      sends_.pop_back();
      release(failed);
      lose(to, "sending to it failed: " + mpi_error_text(rc));
    }
  }

  // Gives lent bytes back to their sender (once they are sent, or will never be).
  void release(DataMessage& m) {
    if (!m.lent.data) return;
    LentBytes lent = std::move(m.lent);
    m.lent = {};
    if (lent.release && !stopped_delivering_) lent.release();
  }

  // The receive() of an announced payload: into its destination if the payload is not on its
  // way yet, otherwise it is handed over in a buffer once there.
  void send_now(ReceiveRequest request) {
    auto it = incoming_.find({request.to.value(), request.tag});
    if (it == incoming_.end()) {
      request.done({}, "no payload with tag " + std::to_string(request.tag) + " for worker " +
                           request.to.to_string() + " was announced (or it was received already)");
      return;
    }
    Incoming& in = it->second;
    in.done = std::move(request.done);
    if (!in.error.empty() || in.arrived) return complete(it);
    if (!in.posted) post_receive(in, request.destination);
  }

  // Receives every control frame that has arrived; returns whether there was one.
  bool receive(bool deliver_frames) {
    bool any = false;
    for (;;) {
      int flag = 0;
      MPI_Message handle;
      MPI_Status status;
      if (MPI_Improbe(MPI_ANY_SOURCE, kControlTag, comm_, &flag, &handle, &status) != MPI_SUCCESS ||
          !flag)
        return any;
      any = true;
      int count = 0;
      MPI_Get_count(&status, MPI_BYTE, &count);
      std::vector<uint8_t> frame(static_cast<size_t>(count));
      MPI_Mrecv(frame.data(), count, MPI_BYTE, &handle, MPI_STATUS_IGNORE);
      const int from = status.MPI_SOURCE;
      last_heard_[static_cast<size_t>(from)] = std::chrono::steady_clock::now();
      if (frame.empty() || !deliver_frames) continue;
      try {
        handle_frame(from, std::move(frame));
      } catch (const std::exception& e) {
        log().error("MPI transport: dropped a malformed message from rank {}: {}", from, e.what());
      }
    }
  }

  void handle_frame(int from, std::vector<uint8_t> frame) {
    switch (static_cast<Frame>(frame[0])) {
      case Frame::kHeartbeat:
        return;
      case Frame::kGoodbye:
        if (state_[static_cast<size_t>(from)] == PeerState::kAlive)
          state_[static_cast<size_t>(from)] = PeerState::kGone;
        return;
      case Frame::kControl:
        frame.erase(frame.begin());
        if (on_control_) on_control_({from, rank_, std::move(frame)});
        return;
      case Frame::kData:
        break;
      default:
        throw Error(ErrorKind::kCommunication,
                    "unknown frame kind " + std::to_string(static_cast<int>(frame[0])));
    }
    DataHeader h;
    {
      std::istringstream is(std::string(frame.begin() + 1, frame.end()));
      cereal::BinaryInputArchive archive(is);
      archive(h);
    }
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
    Incoming in;
    in.from = from;
    in.payload_tag = h.payload_tag;
    in.size = static_cast<size_t>(h.size);
    in.deadline = std::chrono::steady_clock::now() + options_.direct_receive_wait;
    auto [it, inserted] = incoming_.emplace(IncomingKey{h.to, h.tag}, std::move(in));
    if (!inserted)
      throw Error(ErrorKind::kCommunication, "a second payload with tag " + std::to_string(h.tag) +
                                                 " for worker " + std::to_string(h.to));
    if (options_.direct_receive_wait.count() <= 0) post_receive(it->second, nullptr);
    m.pending_size = static_cast<size_t>(h.size);
    deliver(std::move(m));
  }

  // Starts receiving an announced payload into `destination`, or into a buffer when null.
  void post_receive(Incoming& in, void* destination) {
    void* into = destination;
    if (!into) {
      in.buffer = buffer_of(in.size);
      into = in.buffer.data();
    }
    in.destination = destination;
    const int rc = MPI_Irecv(into, static_cast<int>(in.size), MPI_BYTE, in.from, in.payload_tag,
                             comm_, &in.request);
    if (rc != MPI_SUCCESS) {
      lose(in.from, "receiving from it failed: " + mpi_error_text(rc));
      return;
    }
    in.posted = true;
    ++receiving_;
  }

  // Announced payloads nobody asked for in time go into buffers: their senders move on.
  bool buffer_overdue(std::chrono::steady_clock::time_point now) {
    std::vector<IncomingKey> overdue;  // collected first: a failed post changes the table
    for (const auto& [key, in] : incoming_)
      if (!in.posted && in.error.empty() && now >= in.deadline) overdue.push_back(key);
    for (const IncomingKey& key : overdue)
      if (auto it = incoming_.find(key); it != incoming_.end()) post_receive(it->second, nullptr);
    return !overdue.empty();
  }

  // Hands an arrived (or failed) payload to its receive() and forgets it.
  void complete(std::map<IncomingKey, Incoming>::iterator it) {
    Incoming in = std::move(it->second);
    incoming_.erase(it);
    if (stopped_delivering_) return;
    if (!in.error.empty()) return in.done({}, std::move(in.error));
    in.done(in.destination ? Payload() : std::move(in.buffer), {});
  }

  // Payload buffers of finished sends, reused for receives: a fresh large buffer costs a page
  // fault per page (glibc maps blocks of 32 MiB and more anew each time), a reused one
  // nothing. Bounded, so that an idle transport holds little.
  static constexpr size_t kKeptBuffers = 4;
  static constexpr size_t kKeptBytes = size_t{256} << 20;

  void keep_buffer(Payload buffer) {
    if (buffer.capacity() <= options_.inline_limit || buffer.capacity() > kKeptBytes) return;
    kept_.push_back(std::move(buffer));
    size_t total = 0;
    for (const Payload& b : kept_) total += b.capacity();
    while (kept_.size() > kKeptBuffers || total > kKeptBytes) {  // the oldest go first
      total -= kept_.front().capacity();
      kept_.pop_front();
    }
  }

  // A buffer of `size` bytes: the smallest kept one that holds it, else a new one.
  Payload buffer_of(size_t size) {
    auto best = kept_.end();
    for (auto it = kept_.begin(); it != kept_.end(); ++it)
      if (it->capacity() >= size && (best == kept_.end() || it->capacity() < best->capacity()))
        best = it;
    Payload buffer;
    if (best != kept_.end()) {
      buffer = std::move(*best);
      kept_.erase(best);
    }
    buffer.resize(size);  // uninitialised: MPI writes every byte
    return buffer;
  }

  // Completes finished sends and receives; returns whether any finished.
  bool test_pending() {
    bool any = false;
    for (auto it = sends_.begin(); it != sends_.end();) {
      int done = 0;
      const int rc = MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) {
        const int to = it->to;
        it = sends_.erase(it);
        lose(to, "sending to it failed: " + mpi_error_text(rc));
        any = true;
      } else if (done) {
        release(it->message);
        keep_buffer(std::move(it->message.payload));
        it = sends_.erase(it);
        any = true;
      } else {
        ++it;
      }
    }
    for (auto it = incoming_.begin(); it != incoming_.end();) {
      Incoming& in = it->second;
      if (!in.posted || in.arrived) {
        ++it;
        continue;
      }
      int done = 0;
      const int rc = MPI_Test(&in.request, &done, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) {
        const int from = in.from;
        ++it;
        lose(from, "receiving from it failed: " + mpi_error_text(rc));
        return true;  // lose() changed the table
      }
      if (!done) {
        ++it;
        continue;
      }
      any = true;
      in.arrived = true;
      --receiving_;
      if (in.done) {
        complete(it++);
      } else {
        ++it;
      }
    }
    return any;
  }

  void heartbeat(std::chrono::steady_clock::time_point now) {
    for (int r : options_.watched) {
      if (!alive(r)) continue;
      const auto silent = now - last_heard_[static_cast<size_t>(r)];
      if (silent > options_.peer_timeout) {
        lose(r, "nothing heard from it for " + seconds_text(silent) +
                    " (no heartbeat: the process died or hangs)");
        continue;
      }
      send_frame(r, {static_cast<uint8_t>(Frame::kHeartbeat)});
    }
  }

  bool alive(int r) const { return state_[static_cast<size_t>(r)] == PeerState::kAlive; }

  void lose(int r, const std::string& reason) {
    if (state_[static_cast<size_t>(r)] == PeerState::kLost) return;
    state_[static_cast<size_t>(r)] = PeerState::kLost;
    // Whatever was on its way to or from it will not complete: let go of the requests.
    for (auto it = sends_.begin(); it != sends_.end();) {
      if (it->to == r) {
        MPI_Request_free(&it->request);
        release(it->message);
        it = sends_.erase(it);
      } else {
        ++it;
      }
    }
    // Its announced payloads never come: their receive() gets the error.
    for (auto it = incoming_.begin(); it != incoming_.end();) {
      Incoming& in = it->second;
      if (in.from != r || in.arrived) {
        ++it;
        continue;
      }
      if (in.posted) {
        MPI_Cancel(&in.request);
        MPI_Request_free(&in.request);
        in.posted = false;
        --receiving_;
      }
      in.error = "rank " + std::to_string(r) + " was lost before its payload with tag " +
                 std::to_string(it->first.second) + " arrived: " + reason;
      if (in.done) {
        complete(it++);
      } else {
        ++it;
      }
    }
    log().error("MPI transport: lost rank {}: {}", r, reason);
    if (on_peer_lost_ && !stopped_delivering_) on_peer_lost_(r, reason);
  }

  // Says goodbye to the watched ranks, finishes sends to live ranks (bounded by the peer
  // timeout), drops what still arrives, and frees the communicator.
  void shutdown() {
    stopped_delivering_ = true;
    for (int r : options_.watched)
      if (alive(r)) send_frame(r, {static_cast<uint8_t>(Frame::kGoodbye)});
    const auto deadline = std::chrono::steady_clock::now() + options_.peer_timeout;
    while (!sends_.empty() && std::chrono::steady_clock::now() < deadline) {
      receive(/*deliver=*/false);
      test_pending();
      std::this_thread::yield();
    }
    for (PendingSend& s : sends_) MPI_Request_free(&s.request);
    for (auto& [key, in] : incoming_)
      if (in.posted && !in.arrived) {
        MPI_Cancel(&in.request);
        MPI_Request_free(&in.request);
      }
    sends_.clear();
    incoming_.clear();
    MPI_Comm_free(&comm_);
  }

  enum class PeerState : uint8_t { kAlive, kGone, kLost };

  Options options_;
  ControlHandler on_control_;
  PeerLostHandler on_peer_lost_;
  std::thread thread_;

  // Shared with the callers.
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Outgoing> outbox_;
  bool stopping_ = false;
  std::mutex handlers_mutex_;
  std::unordered_map<WorkerId, Handler> handlers_;
  std::unordered_map<WorkerId, std::vector<DataMessage>> unclaimed_;

  // Owned by the communication thread (rank_ and size_ are set before start() returns).
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int tag_ub_ = 32767;
  std::vector<int> next_payload_tag_;
  std::vector<std::chrono::steady_clock::time_point> last_heard_;
  std::vector<PeerState> state_;
  std::deque<PendingSend> sends_;
  std::map<IncomingKey, Incoming> incoming_;  // announced payloads, by receiving worker and tag
  size_t receiving_ = 0;                      // of them, posted and not yet arrived
  std::deque<Payload> kept_;                  // see keep_buffer()
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
