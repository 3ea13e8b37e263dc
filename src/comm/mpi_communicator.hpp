// The Communicator of a real MPI run.
#pragma once

#include <mpi.h>

#include "comm/communicator.hpp"

namespace lightning::comm {

/// A duplicate of MPI_COMM_WORLD (so that the application's own messages never match the
/// transport's), with errors returned rather than fatal: a failed call for one peer makes that
/// peer lost, not the run. Construct, use and destroy it on one thread.
class MpiCommunicator final : public Communicator {
 public:
  /// Collective over MPI_COMM_WORLD. Throws Error(kCommunication) when MPI is not initialised
  /// or not with at least MPI_THREAD_SERIALIZED (the caller is not the thread that initialised
  /// it).
  MpiCommunicator();
  /// Frees the duplicate.
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int tag_ub() const override { return tag_ub_; }
  std::string isend(const void* data, size_t size, int to, int tag, Request* request) override;
  std::string irecv(void* data, size_t size, int from, int tag, Request* request) override;
  std::string test(Request* request, bool* done) override;
  void cancel(Request* request) override;
  void free(Request* request) override;
  bool receive_any(int tag, int* from, std::vector<uint8_t>* bytes) override;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int tag_ub_ = 32767;  // the least MPI guarantees
};

}  // namespace lightning::comm
