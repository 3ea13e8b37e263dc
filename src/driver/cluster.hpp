// The MPI processes of one run as the runtime sees them: rank 0 runs the application and the
// driver (and is worker 0); every other rank serves as a worker.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "comm/mpi_transport.hpp"
#include "core/config.hpp"
#include "core/message_queue.hpp"
#include "core/node_rank.hpp"
#include "driver/process_identity.hpp"
#include "driver/rpc_message.hpp"

namespace lightning::driver {

/// The ranks of MPI_COMM_WORLD and the RPC between them. Each Driver on rank 0 is one
/// *session* on every worker rank (a worker started with the driver's settings, stopped with
/// the driver); one Cluster serves any number of sessions, one after the other.
class Cluster {
 public:
  /// Transport settings (see comm::MpiTransport::Options).
  struct Options {
    std::chrono::microseconds heartbeat_interval{500'000};
    std::chrono::microseconds peer_timeout{5'000'000};
    std::chrono::microseconds direct_receive_wait{2'000};
    std::chrono::microseconds comm_poll{10'000};
    /// The settings of `config` (keys heartbeat-interval, peer-timeout, direct-receive-wait,
    /// comm-poll).
    static Options from(const Config& config);
  };

  /// What rank 0's driver hears from the worker ranks, on the communication thread.
  class Listener {
   public:
    virtual ~Listener() = default;
    /// `failure` is empty on success; it comes as the worker rank sent it.
    virtual void on_task_completed(int rank, TaskId task,
                                   const std::optional<planner::TaskFailure>& failure) = 0;
    virtual void on_rank_lost(int rank, const std::string& reason) = 0;
  };

  /// Collective: every rank constructs one. Initialises MPI (MPI_THREAD_MULTIPLE) when the
  /// application has not, and then finalises it in the destructor; an application that
  /// initialises MPI itself must ask for at least MPI_THREAD_SERIALIZED.
  explicit Cluster(Options options);
  /// With the default Options.
  Cluster();
  /// On rank 0: ends the run (serve() returns on every live worker rank). After a rank was
  /// lost (on rank 0: any worker rank; on a worker rank: rank 0) it ends the whole MPI job
  /// instead, with MPI_Abort, whoever initialised MPI: MPI_Finalize would wait for the lost
  /// rank for ever.
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// This rank's place among the ranks on its host (by host name, in rank order): what its
  /// share of the host's GPUs and CPUs follows, whatever the launcher.
  NodeRank node_rank() const { return node_; }
  comm::MpiTransport& transport() { return *transport_; }

  /// On a worker rank: runs the sessions rank 0 opens until rank 0 ends the run (returns 0)
  /// or is lost (returns 1, after logging why). The rank drives the devices `own_devices`
  /// names (its own `devices` setting) or, when that is `auto`, those of the driver's
  /// settings; everything else follows the driver's settings.
  int serve(const DeviceSelection& own_devices = DeviceSelection());

  // For rank 0's Driver.
  /// Where task completions and lost ranks go (nullptr: nowhere). Waits for a call in progress.
  void set_listener(Listener* listener);
  /// Sends a message that needs no reply.
  void send(int rank, const rpc::Message& message);
  /// Sends `message` to every worker rank that is not lost and waits for each one's reply
  /// (indexed by rank; rank 0's is empty). Throws Error(kCommunication) naming a rank that is
  /// lost before it replies.
  std::vector<rpc::Message> request_all(const rpc::Message& message);
  /// Sends `message` to `rank` and waits for its reply (as request_all).
  rpc::Message request(int rank, const rpc::Message& message);
  /// Why `rank` was lost; empty when it was not.
  std::string lost_reason(int rank);

 private:
  void on_control(comm::ControlMessage message);
  void on_rank_lost(int rank, const std::string& reason);
  rpc::Message wait_reply(int rank);
  /// "rank N was lost: why" for the lowest rank lost; empty when none was.
  std::string first_loss();
  /// The ranks lost so far.
  std::vector<int> lost_ranks();

  bool owns_mpi_ = false;
  int rank_ = 0;
  int size_ = 1;
  std::unique_ptr<comm::MpiTransport> transport_;
  std::vector<ProcessIdentity> processes_;  ///< per rank, exchanged at the start
  NodeRank node_;

  // Replies (rank 0) and lost ranks (any rank), from the communication thread.
  std::mutex mutex_;
  std::condition_variable replied_;
  std::map<int, rpc::Message> replies_;
  std::map<int, std::string> lost_;
  std::mutex listener_mutex_;  // held while the listener is called
  Listener* listener_ = nullptr;

  // Worker ranks: what serve() handles, in arrival order.
  struct RankLost {
    int rank;
    std::string reason;
  };
  MessageQueue<std::variant<rpc::Message, RankLost>> inbox_;
};

}  // namespace lightning::driver
