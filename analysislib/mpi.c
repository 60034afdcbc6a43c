/* mpi.c: libpisa_mpi, the MPI profiling-interface (PMPI) wrappers linked
 * only into MPI programs.  Counts calls per MPI routine, point-to-point
 * messages and bytes per peer (MPI_COMM_WORLD ranks) and collective bytes,
 * and hands them to the runtime's raw result as its "mpi" object. */
#include <json-c/json.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The runtime's entry point (analysislib/report.c). */
void __pisa_mpi_register(struct json_object *(*report)(void), int rank);

/* One routine per line; clang-format would reflow the list. */
/* clang-format off */
#define MPI_ROUTINES(X) \
  X(Init) \
  X(Init_thread) \
  X(Finalize) \
  X(Abort) \
  X(Send) \
  X(Ssend) \
  X(Bsend) \
  X(Rsend) \
  X(Isend) \
  X(Issend) \
  X(Irsend) \
  X(Recv) \
  X(Irecv) \
  X(Sendrecv) \
  X(Sendrecv_replace) \
  X(Wait) \
  X(Waitall) \
  X(Waitany) \
  X(Test) \
  X(Testall) \
  X(Barrier) \
  X(Bcast) \
  X(Reduce) \
  X(Allreduce) \
  X(Gather) \
  X(Gatherv) \
  X(Scatter) \
  X(Scatterv) \
  X(Allgather) \
  X(Allgatherv) \
  X(Alltoall) \
  X(Alltoallv) \
  X(Scan) \
  X(Exscan) \
  X(Reduce_scatter_block)
/* clang-format on */

enum routine {
#define ROUTINE_ID(Name) R_##Name,
  MPI_ROUTINES(ROUTINE_ID)
#undef ROUTINE_ID
      R_COUNT
};

static const char *const RoutineNames[R_COUNT] = {
#define ROUTINE_NAME(Name) "MPI_" #Name,
    MPI_ROUTINES(ROUTINE_NAME)
#undef ROUTINE_NAME
};

/* Per peer: messages and bytes sent to it and received from it. */
struct traffic {
  uint64_t sent_messages, sent_bytes, received_messages, received_bytes;
};

static uint64_t calls[R_COUNT];
static struct traffic *peers; /* world size entries, from MPI_Init */
static int world_rank, world_size;
static uint64_t collective_calls, collective_sent, collective_received;

/* Pending nonblocking receives: their source is known when they complete. */
#define PENDING_MAX 4096
static struct pending {
  MPI_Request request;
  MPI_Comm comm;
} pending[PENDING_MAX];
static size_t n_pending;
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;

static void count_call(enum routine r) {
  __atomic_fetch_add(&calls[r], 1, __ATOMIC_RELAXED);
}

static void add(uint64_t *counter, uint64_t v) {
  __atomic_fetch_add(counter, v, __ATOMIC_RELAXED);
}

static uint64_t type_bytes(MPI_Datatype type, int count) {
  int size = 0;
  if (count <= 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0)
    return 0;
  return (uint64_t)size * (uint64_t)count;
}

/* The MPI_COMM_WORLD rank of rank `r` of `comm`, or -1. */
static int world_rank_of(MPI_Comm comm, int r) {
  if (r < 0 || comm == MPI_COMM_WORLD)
    return r;
  MPI_Group group, world;
  int out = -1;
  if (PMPI_Comm_group(comm, &group) != MPI_SUCCESS)
    return -1;
  if (PMPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS) {
    PMPI_Group_translate_ranks(group, 1, &r, world, &out);
    PMPI_Group_free(&world);
  }
  PMPI_Group_free(&group);
  return out == MPI_UNDEFINED ? -1 : out;
}

static struct traffic *peer(MPI_Comm comm, int r) {
  int w = world_rank_of(comm, r);
  return peers && w >= 0 && w < world_size ? &peers[w] : NULL;
}

static void note_send(MPI_Comm comm, int dest, MPI_Datatype type, int count) {
  struct traffic *p = peer(comm, dest);
  if (!p)
    return; /* MPI_PROC_NULL, or before MPI_Init */
  add(&p->sent_messages, 1);
  add(&p->sent_bytes, type_bytes(type, count));
}

static void note_receive(MPI_Comm comm, const MPI_Status *status) {
  int bytes = 0;
  struct traffic *p = peer(comm, status->MPI_SOURCE);
  if (!p || PMPI_Get_count(status, MPI_BYTE, &bytes) != MPI_SUCCESS)
    return;
  add(&p->received_messages, 1);
  add(&p->received_bytes, bytes > 0 ? (uint64_t)bytes : 0);
}

static void note_collective(uint64_t sent, uint64_t received) {
  add(&collective_calls, 1);
  add(&collective_sent, sent);
  add(&collective_received, received);
}

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

/* ---- Pending receives ---------------------------------------------------- */

static void pending_add(MPI_Request request, MPI_Comm comm) {
  pthread_mutex_lock(&pending_lock);
  if (n_pending < PENDING_MAX)
    pending[n_pending++] = (struct pending){request, comm};
  pthread_mutex_unlock(&pending_lock);
}

/* Whether `request` is a pending receive; removes it and gives its comm. */
static int pending_take(MPI_Request request, MPI_Comm *comm) {
  int found = 0;
  pthread_mutex_lock(&pending_lock);
  for (size_t i = 0; i < n_pending; i++)
    if (pending[i].request == request) {
      *comm = pending[i].comm;
      pending[i] = pending[--n_pending];
      found = 1;
      break;
    }
  pthread_mutex_unlock(&pending_lock);
  return found;
}

/* After a completion: counts the receive that request (saved before the
 * call reset it) was, if it was one. */
static void complete_request(MPI_Request saved, const MPI_Status *status) {
  MPI_Comm comm;
  if (saved != MPI_REQUEST_NULL && pending_take(saved, &comm))
    note_receive(comm, status);
}

/* ---- The raw result's "mpi" object ----------------------------------------
 */

static json_object *traffic_json(uint64_t messages, uint64_t bytes) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "messages", json_object_new_uint64(messages));
  json_object_object_add(o, "bytes", json_object_new_uint64(bytes));
  return o;
}

static json_object *peers_json(struct traffic *sum_sent,
                               struct traffic *sum_received) {
  json_object *list = json_object_new_array();
  for (int r = 0; r < world_size; r++) {
    const struct traffic *p = &peers[r];
    sum_sent->sent_messages += p->sent_messages;
    sum_sent->sent_bytes += p->sent_bytes;
    sum_received->received_messages += p->received_messages;
    sum_received->received_bytes += p->received_bytes;
    if (!p->sent_messages && !p->received_messages)
      continue;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "rank", json_object_new_int(r));
    json_object_object_add(o, "sent",
                           traffic_json(p->sent_messages, p->sent_bytes));
    json_object_object_add(
        o, "received", traffic_json(p->received_messages, p->received_bytes));
    json_object_array_add(list, o);
  }
  return list;
}

static json_object *mpi_report(void) {
  json_object *o = json_object_new_object(),
              *by_name = json_object_new_object();
  struct traffic total = {0};
  json_object_object_add(o, "rank", json_object_new_int(world_rank));
  json_object_object_add(o, "size", json_object_new_int(world_size));
  for (int r = 0; r < R_COUNT; r++)
    if (calls[r])
      json_object_object_add(by_name, RoutineNames[r],
                             json_object_new_uint64(calls[r]));
  json_object_object_add(o, "calls", by_name);
  json_object *list = peers_json(&total, &total);
  json_object_object_add(o, "sent",
                         traffic_json(total.sent_messages, total.sent_bytes));
  json_object_object_add(
      o, "received",
      traffic_json(total.received_messages, total.received_bytes));
  json_object_object_add(o, "peers", list);
  json_object *coll = json_object_new_object();
  json_object_object_add(coll, "calls",
                         json_object_new_uint64(collective_calls));
  json_object_object_add(coll, "bytes_sent",
                         json_object_new_uint64(collective_sent));
  json_object_object_add(coll, "bytes_received",
                         json_object_new_uint64(collective_received));
  json_object_object_add(o, "collectives", coll);
  return o;
}

static void start(void) {
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  peers = world_size > 0 ? calloc((size_t)world_size, sizeof *peers) : NULL;
  if (!peers)
    world_size = 0;
  __pisa_mpi_register(mpi_report, world_rank);
}

/* ---- Set-up and tear-down ---------------------------------------------------
 */

int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv);
  count_call(R_Init);
  if (rc == MPI_SUCCESS)
    start();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  count_call(R_Init_thread);
  if (rc == MPI_SUCCESS)
    start();
  return rc;
}

int MPI_Finalize(void) {
  count_call(R_Finalize);
  return PMPI_Finalize();
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  count_call(R_Abort);
  return PMPI_Abort(comm, errorcode);
}

/* ---- Point to point
 * ---------------------------------------------------------- */

#define BLOCKING_SEND(Name)                                                    \
  int MPI_##Name(const void *buf, int count, MPI_Datatype type, int dest,      \
                 int tag, MPI_Comm comm) {                                     \
    count_call(R_##Name);                                                      \
    note_send(comm, dest, type, count);                                        \
    return PMPI_##Name(buf, count, type, dest, tag, comm);                     \
  }
BLOCKING_SEND(Send)
BLOCKING_SEND(Ssend)
BLOCKING_SEND(Bsend)
BLOCKING_SEND(Rsend)

#define NONBLOCKING_SEND(Name)                                                 \
  int MPI_##Name(const void *buf, int count, MPI_Datatype type, int dest,      \
                 int tag, MPI_Comm comm, MPI_Request *request) {               \
    count_call(R_##Name);                                                      \
    note_send(comm, dest, type, count);                                        \
    return PMPI_##Name(buf, count, type, dest, tag, comm, request);            \
  }
NONBLOCKING_SEND(Isend)
NONBLOCKING_SEND(Issend)
NONBLOCKING_SEND(Irsend)

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag,
             MPI_Comm comm, MPI_Status *status) {
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  count_call(R_Recv);
  int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
  if (rc == MPI_SUCCESS)
    note_receive(comm, st);
  return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag,
              MPI_Comm comm, MPI_Request *request) {
  count_call(R_Irecv);
  int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
  if (rc == MPI_SUCCESS)
    pending_add(*request, comm);
  return rc;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 int dest, int sendtag, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                 MPI_Status *status) {
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  count_call(R_Sendrecv);
  note_send(comm, dest, sendtype, sendcount);
  int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                         recvcount, recvtype, source, recvtag, comm, st);
  if (rc == MPI_SUCCESS)
    note_receive(comm, st);
  return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest,
                         int sendtag, int source, int recvtag, MPI_Comm comm,
                         MPI_Status *status) {
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  count_call(R_Sendrecv_replace);
  note_send(comm, dest, type, count);
  int rc = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source,
                                 recvtag, comm, st);
  if (rc == MPI_SUCCESS)
    note_receive(comm, st);
  return rc;
}

/* ---- Completion
 * ---------------------------------------------------------------- */

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  MPI_Request saved = *request;
  count_call(R_Wait);
  int rc = PMPI_Wait(request, st);
  if (rc == MPI_SUCCESS)
    complete_request(saved, st);
  return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  MPI_Request saved = *request;
  count_call(R_Test);
  int rc = PMPI_Test(request, flag, st);
  if (rc == MPI_SUCCESS && *flag)
    complete_request(saved, st);
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
      complete_request(saved[i], &own[i]);
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
  count_call(R_Waitall);
  return complete_all(count, requests, statuses, waitall_fn, NULL);
}

int MPI_Testall(int count, MPI_Request requests[], int *flag,
                MPI_Status statuses[]) {
  count_call(R_Testall);
  return complete_all(count, requests, statuses, testall_fn, flag);
}

int MPI_Waitany(int count, MPI_Request requests[], int *index,
                MPI_Status *status) {
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  MPI_Request *saved = malloc((size_t)(count > 0 ? count : 1) * sizeof *saved);
  count_call(R_Waitany);
  if (saved)
    memcpy(saved, requests, (size_t)count * sizeof *saved);
  int rc = PMPI_Waitany(count, requests, index, st);
  if (rc == MPI_SUCCESS && saved && *index != MPI_UNDEFINED)
    complete_request(saved[*index], st);
  free(saved);
  return rc;
}

/* ---- Collectives: the bytes of the buffers this rank gives and gets
 * ----------- */

int MPI_Barrier(MPI_Comm comm) {
  count_call(R_Barrier);
  note_collective(0, 0);
  return PMPI_Barrier(comm);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root,
              MPI_Comm comm) {
  uint64_t bytes = type_bytes(type, count);
  int is_root = comm_rank(comm) == root;
  count_call(R_Bcast);
  note_collective(is_root ? bytes : 0, is_root ? 0 : bytes);
  return PMPI_Bcast(buf, count, type, root, comm);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
               MPI_Op op, int root, MPI_Comm comm) {
  uint64_t bytes = type_bytes(type, count);
  count_call(R_Reduce);
  note_collective(bytes, comm_rank(comm) == root ? bytes : 0);
  return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  uint64_t bytes = type_bytes(type, count);
  count_call(R_Allreduce);
  note_collective(bytes, bytes);
  return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
             MPI_Op op, MPI_Comm comm) {
  uint64_t bytes = type_bytes(type, count);
  count_call(R_Scan);
  note_collective(bytes, bytes);
  return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
               MPI_Op op, MPI_Comm comm) {
  uint64_t bytes = type_bytes(type, count);
  count_call(R_Exscan);
  note_collective(bytes, bytes);
  return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  uint64_t bytes = type_bytes(type, recvcount);
  count_call(R_Reduce_scatter_block);
  note_collective(bytes * (uint64_t)comm_size(comm), bytes);
  return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
               MPI_Comm comm) {
  int is_root = comm_rank(comm) == root;
  count_call(R_Gather);
  note_collective(type_bytes(sendtype, sendcount),
                  is_root ? type_bytes(recvtype, recvcount) *
                                (uint64_t)comm_size(comm)
                          : 0);
  return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                     root, comm);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int displs[],
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  int is_root = comm_rank(comm) == root;
  count_call(R_Gatherv);
  note_collective(type_bytes(sendtype, sendcount),
                  is_root ? type_bytes(recvtype, 1) *
                                sum_counts(recvcounts, comm_size(comm))
                          : 0);
  return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                      recvtype, root, comm);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  int is_root = comm_rank(comm) == root;
  count_call(R_Scatter);
  note_collective(
      is_root ? type_bytes(sendtype, sendcount) * (uint64_t)comm_size(comm) : 0,
      type_bytes(recvtype, recvcount));
  return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                      recvtype, root, comm);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[],
                 const int displs[], MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
  int is_root = comm_rank(comm) == root;
  count_call(R_Scatterv);
  note_collective(is_root ? type_bytes(sendtype, 1) *
                                sum_counts(sendcounts, comm_size(comm))
                          : 0,
                  type_bytes(recvtype, recvcount));
  return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                       recvcount, recvtype, root, comm);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm) {
  count_call(R_Allgather);
  note_collective(type_bytes(sendtype, sendcount),
                  type_bytes(recvtype, recvcount) * (uint64_t)comm_size(comm));
  return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, comm);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int displs[],
                   MPI_Datatype recvtype, MPI_Comm comm) {
  count_call(R_Allgatherv);
  note_collective(type_bytes(sendtype, sendcount),
                  type_bytes(recvtype, 1) *
                      sum_counts(recvcounts, comm_size(comm)));
  return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                         displs, recvtype, comm);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 MPI_Comm comm) {
  uint64_t n = (uint64_t)comm_size(comm);
  count_call(R_Alltoall);
  note_collective(type_bytes(sendtype, sendcount) * n,
                  type_bytes(recvtype, recvcount) * n);
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, comm);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                  const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  int n = comm_size(comm);
  count_call(R_Alltoallv);
  note_collective(type_bytes(sendtype, 1) * sum_counts(sendcounts, n),
                  type_bytes(recvtype, 1) * sum_counts(recvcounts, n));
  return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                        recvcounts, rdispls, recvtype, comm);
}
