// The MPI transport plugin (mpi_transport.h) over Open MPI.
#include "ranks/mpi_transport.h"

// C only: without these, mpi.h pulls in the C++ bindings (a second library).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

int size_of_world() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// Byte counts as MPI's int counts and displacements (a run's exchanges are
// far below 2 GiB per pass).
bool to_ints(const uint64_t* counts, int n, std::vector<int>& ints, std::vector<int>& displs) {
  ints.resize(size_t(n));
  displs.resize(size_t(n));
  uint64_t at = 0;
  for (int r = 0; r < n; ++r) {
    if (counts[r] > uint64_t(INT32_MAX) || at > uint64_t(INT32_MAX)) return false;
    ints[size_t(r)] = int(counts[r]);
    displs[size_t(r)] = int(at);
    at += counts[r];
  }
  return true;
}

} // namespace

extern "C" {

uint32_t tessel_mpi_version(void) { return TESSEL_MPI_TRANSPORT_VERSION; }

int tessel_mpi_init(uint32_t* rank, uint32_t* size, char* error, size_t error_bytes) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS) {
      int length = 0;
      if (error && error_bytes) {
        std::vector<char> text(MPI_MAX_ERROR_STRING);
        MPI_Error_string(rc, text.data(), &length);
        std::snprintf(error, error_bytes, "%.*s", length, text.data());
      }
      return rc;
    }
  }
  int r = 0, s = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  *rank = uint32_t(r);
  *size = uint32_t(s);
  return 0;
}

void tessel_mpi_finalize(void) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void tessel_mpi_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

int tessel_mpi_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }

int tessel_mpi_alltoallv(const uint64_t* send_counts, const uint8_t* send, uint64_t* recv_counts, uint8_t** recv) {
  const int n = size_of_world();
  int rc = MPI_Alltoall(send_counts, 1, MPI_UINT64_T, recv_counts, 1, MPI_UINT64_T, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) return rc;
  std::vector<int> scounts, sdispls, rcounts, rdispls;
  if (!to_ints(send_counts, n, scounts, sdispls) || !to_ints(recv_counts, n, rcounts, rdispls)) return MPI_ERR_COUNT;
  const size_t total = size_t(rdispls.back()) + size_t(rcounts.back());
  *recv = static_cast<uint8_t*>(std::malloc(total ? total : 1));
  if (!*recv) return MPI_ERR_NO_MEM;
  rc = MPI_Alltoallv(send, scounts.data(), sdispls.data(), MPI_BYTE, *recv, rcounts.data(), rdispls.data(), MPI_BYTE,
                     MPI_COMM_WORLD);
  return rc;
}

int tessel_mpi_allgatherv(const uint8_t* mine, uint64_t bytes, uint64_t* counts, uint8_t** all) {
  const int n = size_of_world();
  int rc = MPI_Allgather(&bytes, 1, MPI_UINT64_T, counts, 1, MPI_UINT64_T, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) return rc;
  std::vector<int> ints, displs;
  if (!to_ints(counts, n, ints, displs) || bytes > uint64_t(INT32_MAX)) return MPI_ERR_COUNT;
  const size_t total = size_t(displs.back()) + size_t(ints.back());
  *all = static_cast<uint8_t*>(std::malloc(total ? total : 1));
  if (!*all) return MPI_ERR_NO_MEM;
  return MPI_Allgatherv(mine, int(bytes), MPI_BYTE, *all, ints.data(), displs.data(), MPI_BYTE, MPI_COMM_WORLD);
}

void tessel_mpi_free(void* p) { std::free(p); }

} // extern "C"
