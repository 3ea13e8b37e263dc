#include "comm/mpi_communicator.hpp"

#include <cstring>
#include <type_traits>

#include "core/error.hpp"

namespace lightning::comm {

namespace {

// An MPI_Request is a handle (a pointer in Open MPI, an int in MPICH): its bits travel in a
// Request unchanged, so that the interface needs no table of requests.
static_assert(sizeof(MPI_Request) <= sizeof(Communicator::Request),
              "an MPI_Request must fit in a Communicator::Request");
static_assert(std::is_trivially_copyable_v<MPI_Request>);

MPI_Request to_mpi(Communicator::Request r) {
  MPI_Request m;
  std::memcpy(&m, &r, sizeof m);
  return m;
}

Communicator::Request from_mpi(MPI_Request m) {
  Communicator::Request r = 0;
  std::memcpy(&r, &m, sizeof m);
  return r;
}

std::string error_text(int code) {
  if (code == MPI_SUCCESS) return {};
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<size_t>(length));
}

}  // namespace

MpiCommunicator::MpiCommunicator() {
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
                    std::to_string(provided) +
                    ": initialise it with MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, "
                    "&provided) instead of MPI_Init, or leave it to lightning::initialize");
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  int flag = 0;
  int* tag_ub = nullptr;
  MPI_Comm_get_attr(comm_, MPI_TAG_UB, &tag_ub, &flag);
  tag_ub_ = flag && tag_ub ? *tag_ub : 32767;
}

MpiCommunicator::~MpiCommunicator() {
  MPI_Comm_free(&comm_);
}

std::string MpiCommunicator::isend(const void* data, size_t size, int to, int tag,
                                   Request* request) {
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = MPI_Isend(data, static_cast<int>(size), MPI_BYTE, to, tag, comm_, &r);
  *request = from_mpi(r);
  return error_text(rc);
}

std::string MpiCommunicator::irecv(void* data, size_t size, int from, int tag, Request* request) {
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = MPI_Irecv(data, static_cast<int>(size), MPI_BYTE, from, tag, comm_, &r);
  *request = from_mpi(r);
  return error_text(rc);
}

std::string MpiCommunicator::test(Request* request, bool* done) {
  MPI_Request r = to_mpi(*request);
  int flag = 0;
  const int rc = MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  *request = from_mpi(r);
  *done = flag != 0;
  return error_text(rc);
}

void MpiCommunicator::cancel(Request* request) {
  MPI_Request r = to_mpi(*request);
  MPI_Cancel(&r);
  *request = from_mpi(r);
}

void MpiCommunicator::free(Request* request) {
  MPI_Request r = to_mpi(*request);
  MPI_Request_free(&r);
  *request = from_mpi(r);
}

bool MpiCommunicator::receive_any(int tag, int* from, std::vector<uint8_t>* bytes) {
  int flag = 0;
  MPI_Message handle;
  MPI_Status status;
  if (MPI_Improbe(MPI_ANY_SOURCE, tag, comm_, &flag, &handle, &status) != MPI_SUCCESS || !flag)
    return false;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  bytes->resize(static_cast<size_t>(count));
  MPI_Mrecv(bytes->data(), count, MPI_BYTE, &handle, MPI_STATUS_IGNORE);
  *from = status.MPI_SOURCE;
  return true;
}

}  // namespace lightning::comm
