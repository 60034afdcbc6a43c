/* objects.h: data objects in deep mode (PISA_OBJECTS=1, docs/metrics.md
 * "Data objects"): every access is attributed to the heap allocation site,
 * global variable or thread stack its address belongs to, or to `unknown`.
 * The ranges are process-wide; the counts are per thread, merged when the
 * result is written. */
#ifndef PISA_OBJECTS_H
#define PISA_OBJECTS_H

#include <json-c/json.h>

#include "runtime.h"

/* Registers module m's heap sites (global ids from the returned first one
 * on, written to *m->heap_base) and, with objects on, its global
 * variables; `files` are the module's file names, kept by the caller.
 * 0, or -1 when the heap site table is full or memory ran out. */
PISA_HIDDEN int pisa_objects_register(const struct pisa_module *m,
                                      const char *const *files);
/* Heap sites registered (acquire: ids below are valid). */
PISA_HIDDEN uint32_t pisa_heap_site_count(void);
/* The calling thread's stack becomes an object (thread t's). */
PISA_HIDDEN void pisa_objects_thread(struct pisa_thread *t);
/* Names the object of each access of b in b->object, applying the batch's
 * heap events in order (the thread that decoded b, before any consumer
 * group sees it). */
PISA_HIDDEN void pisa_objects_prepare(struct pisa_thread *t,
                                      struct event_batch *b);
/* Counts b's accesses per object (the space group); `whole` when the
 * group's address counts (its functions' entropy) saw every access of b,
 * else the objects' entropy is not reported. */
PISA_HIDDEN void pisa_objects_consume(struct pisa_thread *t,
                                      const struct event_batch *b, int whole);
/* Bins b's accesses by object at 64-byte lines (the reuse group): `bins`
 * are their bins over the thread's whole stream, or NULL when the group
 * has none (no 64-byte engine, or sampled accesses), and the objects run
 * an engine of their own.  `sizes` are their bins at every line size
 * (sizes[s] at pisa_config.line_sizes[s]), for the objects' spatial
 * locality, or NULL when the group has none (sampled accesses): the
 * objects' spatial locality is then not reported. */
PISA_HIDDEN void pisa_objects_reuse(struct pisa_thread *t,
                                    const struct event_batch *b,
                                    const uint8_t *const *sizes,
                                    const uint8_t *bins);
PISA_HIDDEN void pisa_objects_thread_free(struct pisa_thread *t);
/* "objects" of the raw result, from the counts of every thread of the
 * list `threads` (threads.h) and, for the objects' entropy, the program's
 * address counts `all` (its totals'; NULL without the entropy family);
 * NULL when objects are off. */
PISA_HIDDEN json_object *pisa_objects_json(struct pisa_thread *threads,
                                           const struct entropy_counts *all);

#endif
