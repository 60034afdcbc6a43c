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

/* ---- Regions of interest (pisa.h's PISA_ROI_BEGIN / END), both modes:
 * one id per distinct name, in the order of first use. */
#define PISA_MAX_REGIONS 4096
/* The id of the region `name`, registered at its first use; UINT32_MAX
 * when PISA_MAX_REGIONS regions exist already or memory ran out. */
uint32_t pisa_region_id(const char *name);
uint32_t pisa_region_count(void); /* acquire: ids below are valid */
const char *pisa_region_name(uint32_t region);

#endif
