/* names.c: counts per name in a uthash table (names.h). */
#include "names.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t regions_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *region_names[PISA_MAX_REGIONS];
static _Atomic uint32_t n_regions;

uint32_t pisa_region_count(void) {
  return atomic_load_explicit(&n_regions, memory_order_acquire);
}

const char *pisa_region_name(uint32_t region) { return region_names[region]; }

/* The index of name among the first n regions, or n. */
static uint32_t region_find(const char *name, uint32_t n) {
  uint32_t i = 0;
  while (i < n && strcmp(region_names[i], name))
    i++;
  return i;
}

uint32_t pisa_region_id(const char *name) {
  uint32_t n = pisa_region_count(), i = region_find(name, n);
  if (i < n)
    return i;
  pthread_mutex_lock(&regions_lock);
  n = pisa_region_count();
  i = region_find(name, n);
  if (i == n && (n == PISA_MAX_REGIONS || !(region_names[n] = strdup(name))))
    i = UINT32_MAX;
  else if (i == n)
    atomic_store_explicit(&n_regions, n + 1, memory_order_release);
  pthread_mutex_unlock(&regions_lock);
  return i;
}

void pisa_names_add(struct pisa_name_count **table, const char *name,
                    uint64_t count) {
  struct pisa_name_count *e;
  HASH_FIND_STR(*table, name, e);
  if (!e) {
    if (!(e = calloc(1, sizeof *e)))
      return;
    e->name = name;
    HASH_ADD_KEYPTR(hh, *table, e->name, strlen(e->name), e);
  }
  e->count += count;
}

void pisa_names_free(struct pisa_name_count **table) {
  struct pisa_name_count *e, *tmp;
  HASH_ITER(hh, *table, e, tmp) {
    HASH_DEL(*table, e);
    free(e);
  }
}

static int by_count_then_name(struct pisa_name_count *a,
                              struct pisa_name_count *b) {
  if (a->count != b->count)
    return a->count > b->count ? -1 : 1;
  return strcmp(a->name, b->name);
}

json_object *pisa_names_json(struct pisa_name_count **table) {
  json_object *o = json_object_new_object();
  HASH_SORT(*table, by_count_then_name);
  for (struct pisa_name_count *e = *table; e; e = e->hh.next)
    json_object_object_add(o, e->name, json_object_new_uint64(e->count));
  return o;
}
