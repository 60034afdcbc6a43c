/* names.c: counts per name in a uthash table (names.h). */
#include "names.h"

#include <stdlib.h>
#include <string.h>

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
