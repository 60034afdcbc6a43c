/* traffic.h: libpisa_mpi's accounting (traffic.c), fed by its PMPI
 * wrappers (pmpi.c): calls per MPI routine, messages and bytes per peer,
 * collective bytes.  Hidden: nothing here is part of MPI's interface. */
#ifndef PISA_MPI_TRAFFIC_H
#define PISA_MPI_TRAFFIC_H

#include <mpi.h>
#include <stdint.h>

#define PISA_MPI_HIDDEN __attribute__((visibility("hidden")))

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

/* After MPI_Init: the world's rank and size, and the runtime told. */
PISA_MPI_HIDDEN void pisa_mpi_start(void);
PISA_MPI_HIDDEN void pisa_mpi_count_call(enum routine r);
/* The bytes of `count` elements of `type`, 0 when unknown. */
PISA_MPI_HIDDEN uint64_t pisa_mpi_type_bytes(MPI_Datatype type, int count);
PISA_MPI_HIDDEN void pisa_mpi_note_send(MPI_Comm comm, int dest,
                                        MPI_Datatype type, int count);
PISA_MPI_HIDDEN void pisa_mpi_note_receive(MPI_Comm comm,
                                           const MPI_Status *status);
PISA_MPI_HIDDEN void pisa_mpi_note_collective(uint64_t sent, uint64_t received);
/* A nonblocking receive, counted when it completes: its source is known
 * then. */
PISA_MPI_HIDDEN void pisa_mpi_pending_add(MPI_Request request, MPI_Comm comm);
/* After a completion: counts the receive that request (saved before the
 * call reset it) was, if it was one. */
PISA_MPI_HIDDEN void pisa_mpi_complete_request(MPI_Request saved,
                                               const MPI_Status *status);

#endif
