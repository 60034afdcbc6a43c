/* pisa/live.h: the live view of a counter-mode run, the contract between
 * the runtime and `pisa-char top`. Each analysed counter-mode process
 * keeps one small file, DIR/pisa-live.PID (DIR: PISA_LIVE_DIR, default
 * /dev/shm), mapped shared; once a second a thread of the runtime's own
 * writes what the counters say so far, and `top` maps the file read-only.
 * The program is never signalled or stopped. Plain C; the snapshot (from
 * `seconds` on, whole 64-bit words) is guarded by a sequence count, odd
 * while it is written: written and read word by word with release and
 * acquire atomics, the sequence read before and after. */
#ifndef PISA_LIVE_H
#define PISA_LIVE_H

#include <stddef.h>
#include <stdint.h>

#define PISA_LIVE_DIR_ENV "PISA_LIVE_DIR"
#define PISA_LIVE_DEFAULT_DIR "/dev/shm"
#define PISA_LIVE_PREFIX "pisa-live."
/* PISA_LIVE_MS: milliseconds between snapshots, 0 (no file) to an hour. */
#define PISA_LIVE_MS_ENV "PISA_LIVE_MS"
#define PISA_LIVE_DEFAULT_MS 1000
/* Written last when the file is set up. */
#define PISA_LIVE_MAGIC UINT64_C(0x7069736c69766531) /* "pislive1" */
#define PISA_LIVE_TOP 10  /* functions and regions listed */
#define PISA_LIVE_NAME 96 /* bytes of a name, with its NUL (cut) */

struct pisa_live_entry {
  char name[PISA_LIVE_NAME];
  uint64_t instructions; /* functions: executed so far */
  uint64_t bytes;        /* functions: loaded + stored so far */
  uint64_t executions;   /* regions: begins so far, every thread */
};

struct pisa_live {
  uint64_t magic;
  uint64_t sequence; /* odd while a snapshot is written */
  /* Set up once. */
  int32_t pid;
  int32_t rank; /* MPI rank, -1 outside MPI */
  char program[256];
  /* The snapshot. */
  double seconds; /* since the runtime started counting */
  uint64_t snapshots;
  uint32_t threads; /* that ran instrumented code, alive or not */
  uint32_t n_functions, n_regions; /* entries used below */
  uint32_t reserved;
  uint64_t instructions, loads, stores, bytes_loaded, bytes_stored;
  struct pisa_live_entry functions[PISA_LIVE_TOP]; /* most instructions */
  struct pisa_live_entry regions[PISA_LIVE_TOP];   /* most executions */
};

/* The snapshot's words: from `seconds` to the end. */
#define PISA_LIVE_WORDS                                                        \
  ((sizeof(struct pisa_live) - offsetof(struct pisa_live, seconds)) /          \
   sizeof(uint64_t))

#endif
