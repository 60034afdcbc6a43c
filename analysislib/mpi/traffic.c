/* traffic.c: libpisa_mpi's accounting (traffic.h): counts per MPI routine,
 * point-to-point messages and bytes per peer (MPI_COMM_WORLD ranks) and
 * collective bytes, handed to the runtime's raw result as its "mpi"
 * object (analysislib/rawdoc.c). */
#include "traffic.h"

#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>

/* The runtime's entry point (analysislib/rawdoc.c). */
void __pisa_mpi_register(struct json_object *(*report)(void), int rank);

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

PISA_MPI_HIDDEN void pisa_mpi_count_call(enum routine r) {
  __atomic_fetch_add(&calls[r], 1, __ATOMIC_RELAXED);
}

static void add(uint64_t *counter, uint64_t v) {
  __atomic_fetch_add(counter, v, __ATOMIC_RELAXED);
}

PISA_MPI_HIDDEN uint64_t pisa_mpi_type_bytes(MPI_Datatype type, int count) {
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

PISA_MPI_HIDDEN void pisa_mpi_note_send(MPI_Comm comm, int dest,
                                        MPI_Datatype type, int count) {
  struct traffic *p = peer(comm, dest);
  if (!p)
    return; /* MPI_PROC_NULL, or before MPI_Init */
  add(&p->sent_messages, 1);
  add(&p->sent_bytes, pisa_mpi_type_bytes(type, count));
}

PISA_MPI_HIDDEN void pisa_mpi_note_receive(MPI_Comm comm,
                                           const MPI_Status *status) {
  int bytes = 0;
  struct traffic *p = peer(comm, status->MPI_SOURCE);
  if (!p || PMPI_Get_count(status, MPI_BYTE, &bytes) != MPI_SUCCESS)
    return;
  add(&p->received_messages, 1);
  add(&p->received_bytes, bytes > 0 ? (uint64_t)bytes : 0);
}

PISA_MPI_HIDDEN void pisa_mpi_note_collective(uint64_t sent,
                                              uint64_t received) {
  add(&collective_calls, 1);
  add(&collective_sent, sent);
  add(&collective_received, received);
}

/* ---- Pending receives ---- */

PISA_MPI_HIDDEN void pisa_mpi_pending_add(MPI_Request request, MPI_Comm comm) {
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

PISA_MPI_HIDDEN void pisa_mpi_complete_request(MPI_Request saved,
                                               const MPI_Status *status) {
  MPI_Comm comm;
  if (saved != MPI_REQUEST_NULL && pending_take(saved, &comm))
    pisa_mpi_note_receive(comm, status);
}

/* ---- The raw result's "mpi" object ---- */

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

PISA_MPI_HIDDEN void pisa_mpi_start(void) {
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  peers = world_size > 0 ? calloc((size_t)world_size, sizeof *peers) : NULL;
  if (!peers)
    world_size = 0;
  __pisa_mpi_register(mpi_report, world_rank);
}
