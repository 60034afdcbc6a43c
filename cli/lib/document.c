/* document.c: JSON file reading, the raw result -> pisa-char/1 document
 * transformation, validation against the built-in schema, and writing a
 * document with the atomic, no-clobber writer. */
#include "document.h"

#include "jsonschema.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Reading ------------------------------------------------------------ */

json_object *pisa_read_json_file(const char *path, char *err, size_t n) {
  json_object *doc;
  char why[512];
  if (pisa_json_parse_file(path, &doc, why, sizeof why) != 0)
    snprintf(err, n, "%s: %s", path, why);
  else if (!doc)
    snprintf(err, n, "%s: the document is null", path);
  return doc;
}

size_t pisa_document_stem(const char *name) {
  static const char *const Suffixes[] = {PISA_DOC_SUFFIX, ".json"};
  size_t len = strlen(name);
  for (size_t i = 0; i < 2; i++) {
    size_t n = strlen(Suffixes[i]);
    if (len > n && strcmp(name + len - n, Suffixes[i]) == 0)
      return len - n;
  }
  return len;
}

/* ---- Raw result -> document ---------------------------------------------- */

/* Keys of a raw result that describe the process, not the measurements; the
 * document says the same in "program" and "complete". */
static const char *const RawOnlyKeys[] = {
    "schema", "pid", "ppid", "signal", "complete", "exit_status", "mpi"};

/* Measurement keys in the order the document presents them. */
static const char *const MeasurementKeys[] = {
    "config", "totals", "threads", "functions", "regions", "loops", "lines"};

int pisa_raw_check(json_object *raw, char *err, size_t n) {
  json_object *schema, *complete;
  if (!json_object_is_type(raw, json_type_object)) {
    snprintf(err, n, "not a JSON object");
    return -1;
  }
  if (!json_object_object_get_ex(raw, "schema", &schema) ||
      !json_object_is_type(schema, json_type_string) ||
      strcmp(json_object_get_string(schema), PISA_RAW_SCHEMA_ID) != 0) {
    snprintf(err, n, "\"schema\" is not \"%s\"", PISA_RAW_SCHEMA_ID);
    return -1;
  }
  if (!json_object_object_get_ex(raw, "complete", &complete) ||
      !json_object_is_type(complete, json_type_boolean)) {
    snprintf(err, n, "\"complete\" is missing or not a boolean");
    return -1;
  }
  return 0;
}

json_object *pisa_tool_object(void) {
  json_object *tool = json_object_new_object();
  json_object_object_add(tool, "name", json_object_new_string("pisa-char"));
  json_object_object_add(tool, "version", json_object_new_string(PISA_VERSION));
  json_object_object_add(tool, "llvm",
                         json_object_new_string(PISA_LLVM_VERSION));
  return tool;
}

json_object *pisa_program_object(const struct pisa_program_run *run) {
  json_object *program = json_object_new_object();
  json_object *args = json_object_new_array();
  for (int i = 0; i < run->nargs; i++)
    json_object_array_add(args, json_object_new_string(run->args[i]));
  json_object_object_add(program, "path", json_object_new_string(run->path));
  json_object_object_add(program, "args", args);
  json_object_object_add(program, "exit_status",
                         json_object_new_int(run->exit_status));
  json_object_object_add(program, "signal",
                         run->signal > 0 ? json_object_new_int(run->signal)
                                         : NULL);
  /* Microseconds are plenty; the default %.17g prints noise digits. */
  json_object *wall = json_object_new_double(run->wall_seconds);
  json_object_set_serializer(wall, json_object_double_to_json_string,
                             (void *)"%.6f", NULL);
  json_object_object_add(program, "wall_seconds", wall);
  return program;
}

/* The raw result's "complete", unless the program died of a signal that the
 * runtime did not see (it wrote its result before the signal arrived). */
static int run_complete(json_object *raw, const struct pisa_program_run *run,
                        unsigned flags) {
  json_object *complete, *signal;
  json_object_object_get_ex(raw, "complete", &complete);
  if (!json_object_get_boolean(complete))
    return 0;
  if (run->signal <= 0 || (flags & PISA_DOC_OTHER_PROCESS))
    return 1;
  return json_object_object_get_ex(raw, "signal", &signal) &&
         json_object_is_type(signal, json_type_int) &&
         json_object_get_int(signal) == run->signal;
}

static int is_raw_only(const char *key) {
  for (size_t i = 0; i < sizeof RawOnlyKeys / sizeof *RawOnlyKeys; i++)
    if (strcmp(key, RawOnlyKeys[i]) == 0)
      return 1;
  return 0;
}

static void copy_key(json_object *doc, json_object *raw, const char *key) {
  json_object *value;
  if (json_object_object_get_ex(raw, key, &value) &&
      !json_object_object_get_ex(doc, key, NULL))
    json_object_object_add(doc, key, json_object_get(value));
}

json_object *pisa_document_from_raw(json_object *raw,
                                    const struct pisa_program_run *run,
                                    unsigned flags) {
  json_object *doc = json_object_new_object();
  json_object_object_add(doc, "schema", json_object_new_string(PISA_SCHEMA_ID));
  json_object_object_add(doc, "tool", pisa_tool_object());
  json_object_object_add(doc, "program", pisa_program_object(run));
  if (flags & PISA_DOC_OTHER_PROCESS) {
    copy_key(doc, raw, "pid");
    copy_key(doc, raw, "ppid");
  }
  copy_key(doc, raw, "mode");
  json_object_object_add(
      doc, "complete", json_object_new_boolean(run_complete(raw, run, flags)));
  for (size_t i = 0; i < sizeof MeasurementKeys / sizeof *MeasurementKeys; i++)
    copy_key(doc, raw, MeasurementKeys[i]);
  /* Keys the runtime added after this code was written travel along; the
   * schema decides whether they are welcome. */
  json_object_object_foreach(raw, key, value) {
    (void)value;
    if (!is_raw_only(key))
      copy_key(doc, raw, key);
  }
  return doc;
}

static int validate_with(const char *file, json_object *doc, char *err,
                         size_t n) {
  const struct pisa_schema *schema = pisa_schema_builtin(file);
  if (!schema) {
    snprintf(err, n, "schema %s is not built in", file);
    return -1;
  }
  return pisa_schema_validate(schema, doc, err, n) == 0 ? 0 : -1;
}

int pisa_document_validate(json_object *doc, char *err, size_t n) {
  return validate_with(PISA_SCHEMA_FILE, doc, err, n);
}

int pisa_raw_validate(json_object *raw, char *err, size_t n) {
  return validate_with(PISA_RAW_SCHEMA_FILE, raw, err, n);
}

/* ---- Writing ------------------------------------------------------------ */

enum pisa_write_status pisa_write_json_atomic(const char *path,
                                              json_object *doc, int force,
                                              char *err, size_t n) {
  char *text = xasprintf("%s\n", json_object_to_json_string_ext(
                                     doc, JSON_C_TO_STRING_PRETTY |
                                              JSON_C_TO_STRING_SPACED |
                                              JSON_C_TO_STRING_NOSLASHESCAPE));
  enum pisa_write_status status = pisa_write_atomic(
      path, text, strlen(text), force, PISA_WRITE_KEEP, err, n);
  free(text);
  return status;
}
