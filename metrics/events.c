/* events.c: the storage of decoded batches (events.h).  A batch is reused
 * from buffer to buffer, so its arrays grow to the largest buffer seen and
 * stay: one block for the instances' arrays, one for the accesses'. */
#include "events.h"
#include "budget.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of the arrays of n instances (first_access has one more), and of
 * n accesses. */
static size_t instance_bytes(size_t n) {
  return n ? (4 * n + 1) * sizeof(uint32_t) + n : 0;
}

static size_t access_bytes(size_t n) {
  return n * (2 * sizeof(uint64_t) + sizeof(uint32_t) + 2);
}

void event_batch_init(struct event_batch *b) {
  memset(b, 0, sizeof *b);
  b->block_before = PROGRAM_NONE;
}

void event_batch_free(struct event_batch *b) {
  budget_release(budget_current(), instance_bytes(b->instance_capacity) +
                                       access_bytes(b->access_capacity));
  free(b->first_access); /* the instances' arrays */
  free(b->addr);         /* the accesses' arrays */
  free(b->mark_instance);
  free(b->mark_region);
  free(b->heap);
  free(b->object);
  event_batch_init(b);
}

int event_reserve_marks(struct event_batch *b, size_t n) {
  if (n <= b->mark_capacity)
    return 0;
  size_t cap = b->mark_capacity ? 2 * b->mark_capacity : 8;
  while (cap < n)
    cap *= 2;
  uint32_t *at = realloc(b->mark_instance, cap * sizeof *at);
  if (at)
    b->mark_instance = at;
  uint32_t *region = at ? realloc(b->mark_region, cap * sizeof *region) : 0;
  if (!region)
    return -1;
  b->mark_region = region;
  b->mark_capacity = cap;
  return 0;
}

int event_add_mark(struct event_batch *b, uint32_t region_and_end) {
  if (event_reserve_marks(b, b->n_marks + 1))
    return -1;
  b->mark_instance[b->n_marks] = (uint32_t)b->n_instances;
  b->mark_region[b->n_marks++] = region_and_end;
  return 0;
}

int event_add_heap(struct event_batch *b, uint64_t base, uint64_t size,
                   uint64_t released, uint32_t site) {
  if (b->n_heap == b->heap_capacity) {
    size_t cap = b->heap_capacity ? 2 * b->heap_capacity : 8;
    struct heap_event *h = realloc(b->heap, cap * sizeof *h);
    if (!h)
      return -1;
    b->heap = h;
    b->heap_capacity = cap;
  }
  b->heap[b->n_heap++] =
      (struct heap_event){base,
                          size,
                          released,
                          site,
                          (uint32_t)b->n_accesses,
                          b->n_instances ? (uint32_t)b->n_instances - 1 : 0};
  return 0;
}

struct event_batch event_batch_slice(const struct event_batch *b, size_t first,
                                     size_t end) {
  struct event_batch s = *b;
  s.n_instances = end - first;
  s.block += first;
  s.start += first;
  s.first_site += first;
  s.end_site += first;
  s.first_access += first;
  s.block_before = first ? b->block[first - 1] : b->block_before;
  s.n_marks = s.mark_capacity = 0;
  s.mark_instance = s.mark_region = NULL;
  s.n_heap = s.heap_capacity = 0;
  s.heap = NULL;
  return s;
}

/* Points b's instance arrays into the block first_access heads (after
 * event_batch_share_instances pointed them elsewhere). */
static void carve_instances(struct event_batch *b) {
  size_t n = b->instance_capacity;
  b->block = b->first_access + n + 1;
  b->first_site = b->block + n;
  b->end_site = b->first_site + n;
  b->start = (uint8_t *)(b->end_site + n);
}

/* The instances' arrays, n each (first_access n + 1), carved from one
 * block; what they held is dropped. */
static int grow_instances(struct event_batch *b, size_t n) {
  if (n <= b->instance_capacity)
    return 0;
  uint32_t *p = malloc(instance_bytes(n));
  if (!p)
    return -1;
  free(b->first_access);
  budget_charge(budget_current(),
                instance_bytes(n) - instance_bytes(b->instance_capacity));
  b->first_access = p;
  b->instance_capacity = n;
  carve_instances(b);
  return 0;
}

/* The accesses' arrays, likewise. */
static int grow_accesses(struct event_batch *b, size_t n) {
  if (n <= b->access_capacity)
    return 0;
  uint64_t *p = malloc(access_bytes(n));
  if (!p)
    return -1;
  free(b->addr);
  budget_charge(budget_current(),
                access_bytes(n) - access_bytes(b->access_capacity));
  b->addr = p;
  b->size = p + n;
  b->site = (uint32_t *)(b->size + n);
  b->kind = (uint8_t *)(b->site + n);
  b->access_class = b->kind + n;
  b->access_capacity = n;
  return 0;
}

int event_batch_reset(struct event_batch *b, size_t instances,
                      size_t accesses) {
  b->n_instances = b->n_accesses = b->n_marks = b->n_heap = 0;
  b->block_before = PROGRAM_NONE;
  b->desync = 0;
  if (grow_instances(b, instances ? instances : 1) ||
      grow_accesses(b, accesses ? accesses : 1))
    return -1;
  carve_instances(b);
  b->first_access[0] = 0;
  return 0;
}

int event_batch_share_instances(struct event_batch *dst,
                                const struct event_batch *src,
                                size_t accesses) {
  if (event_batch_reset(dst, src->n_instances, accesses))
    return -1;
  dst->n_instances = src->n_instances;
  dst->block = src->block;
  dst->start = src->start;
  dst->first_site = src->first_site;
  dst->end_site = src->end_site;
  dst->block_before = src->block_before;
  dst->desync = src->desync;
  return 0;
}
