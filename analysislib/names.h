/* names.h: counts per name (external callees, instrumented function names)
 * in a uthash table, shared by the deep and counter result writers. */
#ifndef PISA_NAMES_H
#define PISA_NAMES_H

#include <json-c/json.h>
#include <stdint.h>
#include <uthash.h>

struct pisa_name_count {
  const char *name; /* not owned: static tables or literals */
  uint64_t count;
  UT_hash_handle hh;
};

/* Adds count to name's entry (created at 0); out of memory drops it. */
void pisa_names_add(struct pisa_name_count **table, const char *name,
                    uint64_t count);
void pisa_names_free(struct pisa_name_count **table);
/* {"name": count, ...}, largest count first, then by name. */
json_object *pisa_names_json(struct pisa_name_count **table);

#endif
