/* machine.c: reading a machine description: strict JSON, validated against
 * the built-in pisa-machine/1 schema, then copied into struct machine. */
#include "machine.h"
#include "jsonpath.h"
#include "jsonschema.h"
#include "numbers.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

extern const struct pisa_embedded_schema pisa_embedded_machines[];

#define MACHINE_SCHEMA "pisa-machine-1.schema.json"

static const struct {
  const char *key;
  size_t offset;
} Fields[] = {
    {"cores", offsetof(struct machine_side, cores)},
    {"frequency_ghz", offsetof(struct machine_side, frequency_ghz)},
    {"issue_width", offsetof(struct machine_side, issue_width)},
    {"simd_lanes", offsetof(struct machine_side, simd_lanes)},
    {"llc_bytes", offsetof(struct machine_side, llc_bytes)},
    {"bandwidth_gbs", offsetof(struct machine_side, bandwidth_gbs)},
    {"latency_ns", offsetof(struct machine_side, latency_ns)},
    {"mlp", offsetof(struct machine_side, mlp)},
};

static void read_side(struct machine_side *side, json_object *obj) {
  for (size_t i = 0; i < sizeof Fields / sizeof *Fields; i++)
    json_number_at(obj, Fields[i].key,
                   (double *)((char *)side + Fields[i].offset));
}

/* 0 when `root` is a valid machine, copied into m; else -1 and err. */
static int from_json(struct machine *m, json_object *root, char *err,
                     size_t errlen) {
  const struct pisa_schema *schema = pisa_schema_builtin(MACHINE_SCHEMA);
  char why[512];
  if (!schema || pisa_schema_validate(schema, root, why, sizeof why)) {
    snprintf(err, errlen, "not a pisa-machine/1 description: %s",
             schema ? why : "no built-in schema");
    return -1;
  }
  snprintf(m->name, sizeof m->name, "%s",
           json_object_get_string(json_at(root, "name")));
  read_side(&m->host, json_at(root, "host"));
  read_side(&m->nmc, json_at(root, "nmc"));
  return 0;
}

void machine_default(struct machine *m) {
  const struct pisa_embedded_schema *e = pisa_embedded_machines;
  while (e->name && strcmp(e->name, "default.json") != 0)
    e++;
  json_object *root = NULL;
  char err[600] = "missing";
  if (!e->name ||
      pisa_json_parse(e->text, strlen(e->text), &root, err, sizeof err) ||
      from_json(m, root, err, sizeof err))
    die("built-in machine default.json: %s", err);
  json_object_put(root);
}

int machine_load(struct machine *m, const char *path, char *err,
                 size_t errlen) {
  json_object *root = NULL;
  char why[600];
  int status = pisa_json_parse_file(path, &root, why, sizeof why) ||
               from_json(m, root, why, sizeof why);
  if (status)
    snprintf(err, errlen, "%s: %s", path, why);
  json_object_put(root);
  return status ? -1 : 0;
}

const char *machine_summary(const struct machine *m, char *buf, size_t n) {
  char host[32], nmc[32];
  snprintf(buf, n,
           "host %g cores, %s cache, %g GB/s; near-memory %g cores, %s "
           "cache, %g GB/s",
           m->host.cores, format_bytes(host, sizeof host, m->host.llc_bytes),
           m->host.bandwidth_gbs, m->nmc.cores,
           format_bytes(nmc, sizeof nmc, m->nmc.llc_bytes),
           m->nmc.bandwidth_gbs);
  return buf;
}
