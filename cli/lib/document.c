/* document.c: JSON file reading, the raw result -> pisa-char/1 document
 * transformation, validation against the built-in schema, and the atomic,
 * no-clobber writer (temporary file, fsync, renameat2(RENAME_NOREPLACE)). */
#include "document.h"

#include "jsonschema.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ---- Raw result -> document ---------------------------------------------- */

/* Keys of a raw result that describe the process, not the measurements; the
 * document says the same in "program" and "complete". */
static const char *const RawOnlyKeys[] = {
    "schema", "pid", "ppid", "signal", "complete", "exit_status", "mpi"};

/* Measurement keys in the order the document presents them. */
static const char *const MeasurementKeys[] = {"config", "totals", "threads",
                                              "functions", "regions"};

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

int pisa_document_validate(json_object *doc, char *err, size_t n) {
  const struct pisa_schema *schema = pisa_schema_builtin(PISA_SCHEMA_FILE);
  if (!schema) {
    snprintf(err, n, "schema %s is not built in", PISA_SCHEMA_FILE);
    return -1;
  }
  return pisa_schema_validate(schema, doc, err, n) == 0 ? 0 : -1;
}

/* ---- Writing --------------------------------------------------------------
 */

static char *dir_of(const char *path) {
  char *copy = xstrdup(path);
  char *dir = xstrdup(dirname(copy));
  free(copy);
  return dir;
}

static char *base_of(const char *path) {
  char *copy = xstrdup(path);
  char *base = xstrdup(basename(copy));
  free(copy);
  return base;
}

int pisa_check_writable_dir(const char *path, char *err, size_t n) {
  char *dir = dir_of(path);
  char *probe = xasprintf("%s/.pisa-char-probe.XXXXXX", dir);
  int fd = mkstemp(probe);
  int status = 0;
  if (fd < 0) {
    snprintf(err, n, "cannot create files in %s: %s", dir, strerror(errno));
    status = -1;
  } else {
    close(fd);
    unlink(probe);
  }
  free(probe);
  free(dir);
  return status;
}

static int write_all(int fd, const char *s, size_t len) {
  while (len > 0) {
    ssize_t w = write(fd, s, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0)
      return -1;
    s += w;
    len -= (size_t)w;
  }
  return 0;
}

/* Writes the document and a final newline to `fd`, makes it durable and
 * gives it the permissions a plain creat() would have; closes `fd`. */
static int write_document(int fd, json_object *doc) {
  const char *text = json_object_to_json_string_ext(
      doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
               JSON_C_TO_STRING_NOSLASHESCAPE);
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0 || write_all(fd, text, strlen(text)) != 0 ||
      write_all(fd, "\n", 1) != 0 || fsync(fd) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return close(fd);
}

/* Makes a finished rename durable; failure only weakens crash safety. */
static void sync_dir(const char *path) {
  char *dir = dir_of(path);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
  free(dir);
}

/* Moves the finished temporary file onto `path`, never replacing an
 * existing file unless `force`. */
static enum pisa_write_status install(const char *tmp, const char *path,
                                      int force) {
  if (force)
    return rename(tmp, path) == 0 ? PISA_WRITE_OK : PISA_WRITE_ERROR;
  if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
    return PISA_WRITE_OK;
  if (errno == EINVAL || errno == ENOSYS) { /* file system without NOREPLACE */
    if (link(tmp, path) == 0) {
      unlink(tmp);
      return PISA_WRITE_OK;
    }
  }
  return errno == EEXIST ? PISA_WRITE_EXISTS : PISA_WRITE_ERROR;
}

enum pisa_write_status pisa_write_json_atomic(const char *path,
                                              json_object *doc, int force,
                                              char *err, size_t n) {
  char *dir = dir_of(path), *base = base_of(path);
  char *tmp = xasprintf("%s/.%s.XXXXXX", dir, base);
  enum pisa_write_status status = PISA_WRITE_ERROR;
  int fd = mkstemp(tmp);
  if (fd < 0)
    snprintf(err, n, "cannot create files in %s: %s", dir, strerror(errno));
  else if (write_document(fd, doc) != 0)
    snprintf(err, n, "cannot write %s: %s", tmp, strerror(errno));
  else if ((status = install(tmp, path, force)) == PISA_WRITE_EXISTS)
    snprintf(err, n, "%s already exists; the document was left in %s", path,
             tmp);
  else if (status == PISA_WRITE_ERROR)
    snprintf(err, n, "cannot write %s: %s", path, strerror(errno));
  if (status == PISA_WRITE_OK)
    sync_dir(path);
  else if (status == PISA_WRITE_ERROR && fd >= 0)
    unlink(tmp);
  free(tmp);
  free(base);
  free(dir);
  return status;
}
