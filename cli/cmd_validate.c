/* cmd_validate.c: `pisa-char validate`, which checks documents against the
 * built-in JSON Schema that their "schema" key names, or a given one.
 * Exit status: 0 all valid, 1 some invalid, 2 bad usage or unreadable input. */
#include "cmdline.h"
#include "commands.h"
#include "jsonschema.h"
#include "util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

static const char usage_text[] =
    "usage: pisa-char validate [--schema FILE | --raw] FILE...\n"
    "\n"
    "Checks pisa-char documents against their JSON Schema: the built-in\n"
    "schema that the document's \"schema\" key names (pisa-char/1 or\n"
    "pisa-char-raw/1) unless an option chooses one.\n"
    "\n"
    "  --schema FILE  validate against the JSON Schema in FILE\n"
    "  --raw          validate as raw per-process results (pisa-char-raw/1)\n"
    "  -h, --help     show this help\n"
    "\n"
    "Prints \"FILE: valid\" for each valid document and the first error of\n"
    "each invalid one. Exit status: 0 when all are valid, 1 when some are\n"
    "not, 2 on bad usage or an unreadable or malformed file.\n";

#define RAW_SCHEMA_FILE "pisa-char-raw-1.schema.json"

/* Values of the "schema" key and the built-in schema file of each. */
static const struct {
  const char *id;
  const char *file;
} document_kinds[] = {
    {"pisa-char/1", "pisa-char-1.schema.json"},
    {"pisa-char-raw/1", RAW_SCHEMA_FILE},
};

enum { VALID = 0, INVALID = 1, UNREADABLE = 2 };

static const struct pisa_schema *builtin(const char *file, char *err,
                                         size_t errlen) {
  const struct pisa_schema *schema = pisa_schema_builtin(file);
  if (!schema)
    snprintf(err, errlen, "<root>: built-in schema %s is unavailable", file);
  return schema;
}

/* The built-in schema for the document's "schema" key; NULL with the
 * reason in err when it names none. */
static const struct pisa_schema *schema_of(struct json_object *doc, char *err,
                                           size_t errlen) {
  struct json_object *id;
  if (!json_object_object_get_ex(doc, "schema", &id)) {
    snprintf(err, errlen,
             "<root>: no \"schema\" key says what the document "
             "is (use --schema or --raw)");
    return NULL;
  }
  const char *name = json_object_is_type(id, json_type_string)
                         ? json_object_get_string(id)
                         : "";
  for (size_t i = 0; i < sizeof document_kinds / sizeof document_kinds[0]; i++)
    if (strcmp(name, document_kinds[i].id) == 0)
      return builtin(document_kinds[i].file, err, errlen);
  snprintf(err, errlen, "/schema: unknown document schema %s",
           json_object_to_json_string_ext(
               id, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
  return NULL;
}

static int validate_file(const char *path, const struct pisa_schema *chosen) {
  char err[2048];
  struct json_object *doc;
  if (pisa_json_parse_file(path, &doc, err, sizeof err)) {
    error("%s: %s", path, err);
    return UNREADABLE;
  }
  const struct pisa_schema *schema =
      chosen ? chosen : schema_of(doc, err, sizeof err);
  int status = INVALID;
  if (schema && pisa_schema_validate(schema, doc, err, sizeof err) == 0) {
    printf("%s: valid\n", path);
    fflush(stdout);
    status = VALID;
  } else {
    error("%s: %s", path, err);
  }
  json_object_put(doc);
  return status;
}

static const struct option ValidateOptions[] = {
    {"schema", required_argument, NULL, 's'},
    {"raw", no_argument, NULL, 'r'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

const struct command_line validate_line = {
    .name = "validate",
    .usage = usage_text,
    .short_options = ":h",
    .options = ValidateOptions,
};

struct options {
  const char *schema_file;
  int raw;
};

static int take_option(int opt, char *arg, void *ctx) {
  struct options *o = ctx;
  if (opt == 's')
    o->schema_file = arg;
  else
    o->raw = 1;
  return 0;
}

int cmd_validate(int argc, char **argv) {
  struct options o = {0};
  int status = cmdline_parse(&validate_line, argc, argv, take_option, &o);
  if (status != CMDLINE_PARSED)
    return status;
  if (optind >= argc)
    return usage_error(&validate_line, "no file to validate");
  if (o.raw && o.schema_file)
    return usage_error(&validate_line, "--raw and --schema exclude each other");

  struct pisa_schema *loaded = NULL;
  const struct pisa_schema *chosen = NULL;
  if (o.schema_file) {
    char err[1024];
    chosen = loaded = pisa_schema_load_file(o.schema_file, err, sizeof err);
    if (!loaded) {
      error("%s: %s", o.schema_file, err);
      return 2;
    }
  } else if (o.raw && !(chosen = pisa_schema_builtin(RAW_SCHEMA_FILE))) {
    return 2;
  }

  status = VALID;
  for (int i = optind; i < argc; i++) {
    int file_status = validate_file(argv[i], chosen);
    if (file_status > status)
      status = file_status;
  }
  pisa_schema_free(loaded);
  check_stdout();
  return status;
}
