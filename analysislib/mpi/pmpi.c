/* pmpi.c: libpisa_mpi, the MPI profiling-interface (PMPI) wrappers linked
 * only into MPI programs: each MPI routine it knows is counted and its
 * messages and bytes noted (traffic.c) before the real one (PMPI_) runs. */
#include "traffic.h"

#include <stdlib.h>
#include <string.h>

static int comm_size(MPI_Comm comm) {
  int n = 0;
  PMPI_Comm_size(comm, &n);
  return n;
}

static int comm_rank(MPI_Comm comm) {
  int r = -1;
  PMPI_Comm_rank(comm, &r);
  return r;
}

static uint64_t sum_counts(const int *counts, int n) {
  uint64_t s = 0;
  for (int i = 0; counts && i < n; i++)
    s += counts[i] > 0 ? (uint64_t)counts[i] : 0;
  return s;
}

/* ---- Set-up and tear-down ---- */

int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv);
  pisa_mpi_count_call(R_Init);
  if (rc == MPI_SUCCESS)
    pisa_mpi_start();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  pisa_mpi_count_call(R_Init_thread);
  if (rc == MPI_SUCCESS)
    pisa_mpi_start();
  return rc;
}

int MPI_Finalize(void) {
  pisa_mpi_count_call(R_Finalize);
  return PMPI_Finalize();
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  pisa_mpi_count_call(R_Abort);
  return PMPI_Abort(comm, errorcode);
}

/* ---- Point to point ---- */

#define BLOCKING_SEND(Name)                                                    \
  int MPI_##Name(const void *buf, int count, MPI_Datatype type, int dest,      \
                 int tag, MPI_Comm comm) {                                     \
    pisa_mpi_count_call(R_##Name);                                             \
    pisa_mpi_note_send(comm, dest, type, count);                               \
    return PMPI_##Name(buf, count, type, dest, tag, comm);                     \
  }
BLOCKING_SEND(Send)
BLOCKING_SEND(Ssend)
BLOCKING_SEND(Bsend)
BLOCKING_SEND(Rsend)

#define NONBLOCKING_SEND(Name)                                                 \
  int MPI_##Name(const void *buf, int count, MPI_Datatype type, int dest,      \
                 int tag, MPI_Comm comm, MPI_Request *request) {               \
    pisa_mpi_count_call(R_##Name);                                             \
    pisa_mpi_note_send(comm, dest, type, count);                               \
    return PMPI_##Name(buf, count, type, dest, tag, comm, request);            \
  }
NONBLOCKING_SEND(Isend)
NONBLOCKING_SEND(Issend)
NONBLOCKING_SEND(Irsend)

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag,
             MPI_Comm comm, MPI_Status *status) {
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  pisa_mpi_count_call(R_Recv);
  int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
  if (rc == MPI_SUCCESS)
    pisa_mpi_note_receive(comm, st);
  return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag,
              MPI_Comm comm, MPI_Request *request) {
  pisa_mpi_count_call(R_Irecv);
  int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
  if (rc == MPI_SUCCESS)
    pisa_mpi_pending_add(*request, comm);
  return rc;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 int dest, int sendtag, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                 MPI_Status *status) {
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  pisa_mpi_count_call(R_Sendrecv);
  pisa_mpi_note_send(comm, dest, sendtype, sendcount);
  int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                         recvcount, recvtype, source, recvtag, comm, st);
  if (rc == MPI_SUCCESS)
    pisa_mpi_note_receive(comm, st);
  return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest,
                         int sendtag, int source, int recvtag, MPI_Comm comm,
                         MPI_Status *status) {
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  pisa_mpi_count_call(R_Sendrecv_replace);
  pisa_mpi_note_send(comm, dest, type, count);
  int rc = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source,
                                 recvtag, comm, st);
  if (rc == MPI_SUCCESS)
    pisa_mpi_note_receive(comm, st);
  return rc;
}

/* ---- Completion ---- */

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  MPI_Request saved = *request;
  pisa_mpi_count_call(R_Wait);
  int rc = PMPI_Wait(request, st);
  if (rc == MPI_SUCCESS)
    pisa_mpi_complete_request(saved, st);
  return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  MPI_Request saved = *request;
  pisa_mpi_count_call(R_Test);
  int rc = PMPI_Test(request, flag, st);
  if (rc == MPI_SUCCESS && *flag)
    pisa_mpi_complete_request(saved, st);
  return rc;
}

/* Runs a completion of `n` requests with statuses of our own when the
 * caller ignores them, then counts the receives that completed. */
static int complete_all(int n, MPI_Request *requests, MPI_Status *statuses,
                        int (*fn)(int, MPI_Request *, int *, MPI_Status *),
                        int *flag) {
  MPI_Request *saved = malloc((size_t)(n > 0 ? n : 1) * sizeof *saved);
  MPI_Status *own = statuses == MPI_STATUSES_IGNORE
                        ? malloc((size_t)(n > 0 ? n : 1) * sizeof *own)
                        : statuses;
  if (!saved || !own) {
    free(saved);
    if (own != statuses)
      free(own);
    return fn(n, requests, flag, statuses);
  }
  memcpy(saved, requests, (size_t)n * sizeof *saved);
  int rc = fn(n, requests, flag, own);
  if (rc == MPI_SUCCESS && (!flag || *flag))
    for (int i = 0; i < n; i++)
      pisa_mpi_complete_request(saved[i], &own[i]);
  free(saved);
  if (own != statuses)
    free(own);
  return rc;
}

static int waitall_fn(int n, MPI_Request *r, int *flag, MPI_Status *s) {
  (void)flag;
  return PMPI_Waitall(n, r, s);
}

static int testall_fn(int n, MPI_Request *r, int *flag, MPI_Status *s) {
  return PMPI_Testall(n, r, flag, s);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  pisa_mpi_count_call(R_Waitall);
  return complete_all(count, requests, statuses, waitall_fn, NULL);
}

int MPI_Testall(int count, MPI_Request requests[], int *flag,
                MPI_Status statuses[]) {
  pisa_mpi_count_call(R_Testall);
  return complete_all(count, requests, statuses, testall_fn, flag);
}

int MPI_Waitany(int count, MPI_Request requests[], int *index,
                MPI_Status *status) {
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  MPI_Request *saved = malloc((size_t)(count > 0 ? count : 1) * sizeof *saved);
  pisa_mpi_count_call(R_Waitany);
  if (saved)
    memcpy(saved, requests, (size_t)count * sizeof *saved);
  int rc = PMPI_Waitany(count, requests, index, st);
  if (rc == MPI_SUCCESS && saved && *index != MPI_UNDEFINED)
    pisa_mpi_complete_request(saved[*index], st);
  free(saved);
  return rc;
}

/* ---- Collectives: the bytes of the buffers this rank gives and gets ---- */

int MPI_Barrier(MPI_Comm comm) {
  pisa_mpi_count_call(R_Barrier);
  pisa_mpi_note_collective(0, 0);
  return PMPI_Barrier(comm);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root,
              MPI_Comm comm) {
  uint64_t bytes = pisa_mpi_type_bytes(type, count);
  int is_root = comm_rank(comm) == root;
  pisa_mpi_count_call(R_Bcast);
  pisa_mpi_note_collective(is_root ? bytes : 0, is_root ? 0 : bytes);
  return PMPI_Bcast(buf, count, type, root, comm);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
               MPI_Op op, int root, MPI_Comm comm) {
  uint64_t bytes = pisa_mpi_type_bytes(type, count);
  pisa_mpi_count_call(R_Reduce);
  pisa_mpi_note_collective(bytes, comm_rank(comm) == root ? bytes : 0);
  return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  uint64_t bytes = pisa_mpi_type_bytes(type, count);
  pisa_mpi_count_call(R_Allreduce);
  pisa_mpi_note_collective(bytes, bytes);
  return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
             MPI_Op op, MPI_Comm comm) {
  uint64_t bytes = pisa_mpi_type_bytes(type, count);
  pisa_mpi_count_call(R_Scan);
  pisa_mpi_note_collective(bytes, bytes);
  return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
               MPI_Op op, MPI_Comm comm) {
  uint64_t bytes = pisa_mpi_type_bytes(type, count);
  pisa_mpi_count_call(R_Exscan);
  pisa_mpi_note_collective(bytes, bytes);
  return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  uint64_t bytes = pisa_mpi_type_bytes(type, recvcount);
  pisa_mpi_count_call(R_Reduce_scatter_block);
  pisa_mpi_note_collective(bytes * (uint64_t)comm_size(comm), bytes);
  return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
               MPI_Comm comm) {
  int is_root = comm_rank(comm) == root;
  pisa_mpi_count_call(R_Gather);
  pisa_mpi_note_collective(pisa_mpi_type_bytes(sendtype, sendcount),
                           is_root ? pisa_mpi_type_bytes(recvtype, recvcount) *
                                         (uint64_t)comm_size(comm)
                                   : 0);
  return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                     root, comm);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int displs[],
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  int is_root = comm_rank(comm) == root;
  pisa_mpi_count_call(R_Gatherv);
  pisa_mpi_note_collective(pisa_mpi_type_bytes(sendtype, sendcount),
                           is_root ? pisa_mpi_type_bytes(recvtype, 1) *
                                         sum_counts(recvcounts, comm_size(comm))
                                   : 0);
  return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                      recvtype, root, comm);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  int is_root = comm_rank(comm) == root;
  pisa_mpi_count_call(R_Scatter);
  pisa_mpi_note_collective(is_root ? pisa_mpi_type_bytes(sendtype, sendcount) *
                                         (uint64_t)comm_size(comm)
                                   : 0,
                           pisa_mpi_type_bytes(recvtype, recvcount));
  return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                      recvtype, root, comm);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[],
                 const int displs[], MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
  int is_root = comm_rank(comm) == root;
  pisa_mpi_count_call(R_Scatterv);
  pisa_mpi_note_collective(is_root ? pisa_mpi_type_bytes(sendtype, 1) *
                                         sum_counts(sendcounts, comm_size(comm))
                                   : 0,
                           pisa_mpi_type_bytes(recvtype, recvcount));
  return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                       recvcount, recvtype, root, comm);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm) {
  pisa_mpi_count_call(R_Allgather);
  pisa_mpi_note_collective(pisa_mpi_type_bytes(sendtype, sendcount),
                           pisa_mpi_type_bytes(recvtype, recvcount) *
                               (uint64_t)comm_size(comm));
  return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, comm);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int displs[],
                   MPI_Datatype recvtype, MPI_Comm comm) {
  pisa_mpi_count_call(R_Allgatherv);
  pisa_mpi_note_collective(pisa_mpi_type_bytes(sendtype, sendcount),
                           pisa_mpi_type_bytes(recvtype, 1) *
                               sum_counts(recvcounts, comm_size(comm)));
  return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                         displs, recvtype, comm);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 MPI_Comm comm) {
  uint64_t n = (uint64_t)comm_size(comm);
  pisa_mpi_count_call(R_Alltoall);
  pisa_mpi_note_collective(pisa_mpi_type_bytes(sendtype, sendcount) * n,
                           pisa_mpi_type_bytes(recvtype, recvcount) * n);
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, comm);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                  const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  int n = comm_size(comm);
  pisa_mpi_count_call(R_Alltoallv);
  pisa_mpi_note_collective(
      pisa_mpi_type_bytes(sendtype, 1) * sum_counts(sendcounts, n),
      pisa_mpi_type_bytes(recvtype, 1) * sum_counts(recvcounts, n));
  return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                        recvcounts, rdispls, recvtype, comm);
}
