/* document.h: reading JSON files, turning a runtime raw result into a
 * pisa-char/1 result document, validating and naming documents, and
 * writing them atomically without clobbering (atomicfile.h); shared by the
 * commands that read or write documents. */
#ifndef PISA_CLI_DOCUMENT_H
#define PISA_CLI_DOCUMENT_H

#include "atomicfile.h"

#include <json-c/json.h>
#include <stddef.h>

#define PISA_SCHEMA_ID "pisa-char/1"
#define PISA_RAW_SCHEMA_ID "pisa-char-raw/1"
#define PISA_SCHEMA_FILE "pisa-char-1.schema.json"
#define PISA_RAW_SCHEMA_FILE "pisa-char-raw-1.schema.json"
#define PISA_DOC_SUFFIX ".pisa.json" /* of the documents pisa-char names */

/* The length of a document's file name without its ".pisa.json" or
 * ".json" (only when something is left before it): "app.pisa.json" -> 3. */
size_t pisa_document_stem(const char *name);

/* How the analysed program ran, for the document's "program" object. */
struct pisa_program_run {
  const char *path;  /* as given on the command line */
  char *const *args; /* the arguments after the program */
  int nargs;
  int exit_status; /* exit code, or 128+N when killed by signal N */
  int signal;      /* N when killed by signal N, else 0 */
  double wall_seconds;
};

/* Parses the JSON file at `path` strictly (pisa_json_parse_file); a JSON
 * null is an error too. On failure returns NULL and puts a one-line reason,
 * starting with the path, into `err`. */
json_object *pisa_read_json_file(const char *path, char *err, size_t n);

/* Checks that `raw` looks like a runtime raw result (an object of schema
 * pisa-char-raw/1 with a boolean "complete"); 0 if so, else -1 and `err`. */
int pisa_raw_check(json_object *raw, char *err, size_t n);

enum pisa_document_flag {
  /* The raw result is that of another process than the one started (a
   * forked child): the document keeps the raw "pid" and "ppid" to say which,
   * and the started program's fate does not make it incomplete. */
  PISA_DOC_OTHER_PROCESS = 1u << 0,
};

/* The result document built from a checked raw result and the run of the
 * program: adds schema, tool and program, keeps the measurements, drops the
 * raw-only keys. It shares the raw result's measurement objects (refcounts). */
json_object *pisa_document_from_raw(json_object *raw,
                                    const struct pisa_program_run *run,
                                    unsigned flags);

/* The document's "tool" object, and its "program" object for `run`. */
json_object *pisa_tool_object(void);
json_object *pisa_program_object(const struct pisa_program_run *run);

/* Validates `doc` against the built-in schemas/pisa-char-1.schema.json;
 * 0 when valid, else -1 and the first violation in `err`. */
int pisa_document_validate(json_object *doc, char *err, size_t n);

/* The same for a raw result and schemas/pisa-char-raw-1.schema.json. */
int pisa_raw_validate(json_object *raw, char *err, size_t n);

/* Writes `doc` and a final newline to `path` with pisa_write_atomic (a
 * document is kept in the temporary file when `path` exists). */
enum pisa_write_status pisa_write_json_atomic(const char *path,
                                              json_object *doc, int force,
                                              char *err, size_t n);

#endif
