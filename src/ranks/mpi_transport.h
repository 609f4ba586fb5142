/* The MPI transport plugin's C interface (libtessel_mpi.so, built where Open
 * MPI's development files are). tessel's runtime loads it with dlopen only
 * when a process runs under mpirun with more than one rank
 * (src/runtime/ranks.cpp), so nothing else links MPI.
 *
 * Every call returns 0 on success, else an MPI error code (the message in
 * `error`, when given). Buffers the plugin returns are freed with
 * tessel_mpi_free. Collective calls must be made by every rank, in the same
 * order. */
#ifndef TESSEL_MPI_TRANSPORT_H
#define TESSEL_MPI_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESSEL_MPI_TRANSPORT_VERSION 1u

uint32_t tessel_mpi_version(void);
int tessel_mpi_init(uint32_t* rank, uint32_t* size, char* error, size_t error_bytes);
void tessel_mpi_finalize(void);
void tessel_mpi_abort(int code);
int tessel_mpi_barrier(void);
/* send_counts[r]: bytes for rank r, packed in rank order in `send`.
 * recv_counts[r] and *recv (packed in rank order) come back. */
int tessel_mpi_alltoallv(const uint64_t* send_counts, const uint8_t* send, uint64_t* recv_counts, uint8_t** recv);
/* Every rank's bytes, packed in rank order; counts[r] their lengths. */
int tessel_mpi_allgatherv(const uint8_t* mine, uint64_t bytes, uint64_t* counts, uint8_t** all);
void tessel_mpi_free(void* p);

#ifdef __cplusplus
}
#endif

#endif
