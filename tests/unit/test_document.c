/* test_document.c: cli/lib/document.c's atomic, no-clobber JSON writer
 * (over atomicfile.c: new file, existing file with and without force,
 * missing directory), JSON file reading errors, and the raw result ->
 * pisa-char/1 transformation. */
#include <dirent.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "document.h"

#include "check.h"

static char scratch[] = "/tmp/test_document.XXXXXX";

static char *path_in_scratch(const char *name) {
  static char path[4][512];
  static int next;
  char *p = path[next++ % 4];
  snprintf(p, sizeof path[0], "%s/%s", scratch, name);
  return p;
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static int file_equals(const char *path, const char *text) {
  char buf[256] = "";
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return strcmp(buf, text) == 0;
}

/* Number of entries in the scratch directory, . and .. excluded. */
static int scratch_entries(void) {
  DIR *d = opendir(scratch);
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d)))
    n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  return n;
}

static void clear_scratch(void) {
  DIR *d = opendir(scratch);
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
      unlink(path_in_scratch(e->d_name));
  closedir(d);
}

static json_object *small_doc(int value) {
  json_object *doc = json_object_new_object();
  json_object_object_add(doc, "schema", json_object_new_string("a/b"));
  json_object_object_add(doc, "value", json_object_new_int(value));
  return doc;
}

/* ---- Writer ----------------------------------------------------------------
 */

static void test_write_new_file(void) {
  char err[512];
  const char *path = path_in_scratch("new.json");
  json_object *doc = small_doc(1);
  clear_scratch();
  EXPECT(pisa_write_json_atomic(path, doc, 0, err, sizeof err) ==
         PISA_WRITE_OK);
  json_object *back = pisa_read_json_file(path, err, sizeof err);
  EXPECT(back && json_object_equal(back, doc));
  /* No slash escaping: "a/b" is written as is. */
  FILE *f = fopen(path, "r");
  char text[256] = "";
  text[fread(text, 1, sizeof text - 1, f)] = '\0';
  fclose(f);
  EXPECT(strstr(text, "\"a/b\"") != NULL);
  EXPECT(text[strlen(text) - 1] == '\n');
  /* Permissions as creat(0666) would give, and no temporary file left. */
  struct stat st;
  mode_t mask = umask(0);
  umask(mask);
  EXPECT(stat(path, &st) == 0 && (st.st_mode & 0777) == (0666 & ~mask));
  EXPECT(scratch_entries() == 1);
  json_object_put(back);
  json_object_put(doc);
}

static void test_no_clobber(void) {
  char err[512], tmp[512];
  const char *path = path_in_scratch("old.json");
  json_object *doc = small_doc(2);
  clear_scratch();
  write_text(path, "old\n");
  EXPECT(pisa_write_json_atomic(path, doc, 0, err, sizeof err) ==
         PISA_WRITE_EXISTS);
  EXPECT(file_equals(path, "old\n"));
  /* The message names the temporary file that holds the document. */
  const char *left = strstr(err, "left in ");
  EXPECT(left != NULL);
  if (left) {
    snprintf(tmp, sizeof tmp, "%s", left + strlen("left in "));
    json_object *kept = pisa_read_json_file(tmp, err, sizeof err);
    EXPECT(kept && json_object_equal(kept, doc));
    json_object_put(kept);
  }
  EXPECT(scratch_entries() == 2);
  json_object_put(doc);
}

static void test_force_replaces(void) {
  char err[512];
  const char *path = path_in_scratch("forced.json");
  json_object *doc = small_doc(3);
  clear_scratch();
  write_text(path, "old\n");
  EXPECT(pisa_write_json_atomic(path, doc, 1, err, sizeof err) ==
         PISA_WRITE_OK);
  json_object *back = pisa_read_json_file(path, err, sizeof err);
  EXPECT(back && json_object_equal(back, doc));
  EXPECT(scratch_entries() == 1);
  json_object_put(back);
  json_object_put(doc);
}

static void test_missing_directory(void) {
  char err[512] = "";
  const char *path = path_in_scratch("no/such/dir/x.json");
  json_object *doc = small_doc(4);
  clear_scratch();
  EXPECT(pisa_write_json_atomic(path, doc, 0, err, sizeof err) ==
         PISA_WRITE_ERROR);
  EXPECT(strstr(err, "no/such/dir") != NULL);
  EXPECT(pisa_write_json_atomic(path, doc, 1, err, sizeof err) ==
         PISA_WRITE_ERROR);
  EXPECT(scratch_entries() == 0);
  json_object_put(doc);
}

static void test_writable_dir(void) {
  char err[512] = "";
  clear_scratch();
  EXPECT(pisa_check_writable_dir(path_in_scratch("x.json"), err, sizeof err) ==
         0);
  EXPECT(scratch_entries() == 0);
  write_text(path_in_scratch("file"), "");
  EXPECT(pisa_check_writable_dir(path_in_scratch("file/x.json"), err,
                                 sizeof err) != 0);
  EXPECT(strstr(err, "Not a directory") != NULL);
}

/* ---- Reader ----------------------------------------------------------------
 */

static int read_fails(const char *text, const char *reason) {
  char err[512] = "";
  const char *path = path_in_scratch("in.json");
  write_text(path, text);
  json_object *doc = pisa_read_json_file(path, err, sizeof err);
  json_object_put(doc);
  return !doc && strncmp(err, path, strlen(path)) == 0 &&
         strstr(err, reason) != NULL;
}

static void test_read_errors(void) {
  char err[512];
  clear_scratch();
  EXPECT(
      !pisa_read_json_file(path_in_scratch("missing.json"), err, sizeof err));
  EXPECT(strstr(err, "missing.json: cannot read: No such file or directory") !=
         NULL);
  EXPECT(read_fails("", "malformed JSON"));
  EXPECT(read_fails("{\"a\": [1, 2", "malformed JSON"));
  EXPECT(read_fails("{\"a\": 1} x", "line 1, column 10"));
  EXPECT(read_fails("{\"a\": 1,}",
                    "malformed JSON")); /* strict: no trailing comma */
  EXPECT(read_fails("null", "the document is null"));
  write_text(path_in_scratch("ok.json"), "  {\"a\": 1}\n\n");
  json_object *doc =
      pisa_read_json_file(path_in_scratch("ok.json"), err, sizeof err);
  EXPECT(doc && json_object_is_type(doc, json_type_object));
  json_object_put(doc);
}

/* ---- Raw result -> document ------------------------------------------------
 */

static json_object *parse(const char *text) { return json_tokener_parse(text); }

static void test_raw_check(void) {
  char err[256];
  json_object *bad[] = {
      parse("[1]"),
      parse("{\"complete\": true}"),
      parse("{\"schema\": \"pisa-char-raw/2\", \"complete\": true}"),
      parse("{\"schema\": \"pisa-char-raw/1\"}"),
      parse("{\"schema\": \"pisa-char-raw/1\", \"complete\": 1}"),
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    EXPECT(pisa_raw_check(bad[i], err, sizeof err) != 0);
    json_object_put(bad[i]);
  }
  json_object *good =
      parse("{\"schema\": \"pisa-char-raw/1\", \"complete\": false}");
  EXPECT(pisa_raw_check(good, err, sizeof err) == 0);
  json_object_put(good);
}

static json_object *raw_result(int complete, int signal) {
  char text[512];
  snprintf(
      text, sizeof text,
      "{\"schema\": \"pisa-char-raw/1\", \"future\": [1], \"pid\": 12, "
      "\"ppid\": 11, "
      "\"complete\": %s, \"signal\": %s, \"mode\": \"deep\", \"config\": "
      "{\"c\": 1}, "
      "\"totals\": {\"instructions\": 5}, \"threads\": [], \"functions\": []}",
      complete ? "true" : "false", signal == 15 ? "15" : "null");
  return parse(text);
}

static void test_document_shape(void) {
  char *args[] = {"-n", "3"};
  struct pisa_program_run run = {"./app", args, 2, 0, 0, 1.25};
  json_object *raw = raw_result(1, 0);
  json_object *doc = pisa_document_from_raw(raw, &run, 0);
  json_object *expected = parse(
      "{\"schema\": \"pisa-char/1\", "
      "\"tool\": {\"name\": \"pisa-char\", \"version\": \"" PISA_VERSION "\", "
      "\"llvm\": \"" PISA_LLVM_VERSION "\"}, "
      "\"program\": {\"path\": \"./app\", \"args\": [\"-n\", \"3\"], "
      "\"exit_status\": 0, "
      "\"signal\": null, \"wall_seconds\": 1.25}, "
      "\"mode\": \"deep\", \"complete\": true, \"config\": {\"c\": 1}, "
      "\"totals\": {\"instructions\": 5}, \"threads\": [], \"functions\": [], "
      "\"future\": [1]}");
  EXPECT(json_object_equal(doc, expected));
  /* Keys in the documented order, unknown raw keys last. */
  const char *order[] = {"schema", "tool",   "program", "mode",      "complete",
                         "config", "totals", "threads", "functions", "future"};
  size_t i = 0;
  json_object_object_foreach(doc, key, value) {
    (void)value;
    EXPECT(i < sizeof order / sizeof *order && strcmp(key, order[i]) == 0);
    i++;
  }
  /* Another process's document keeps pid and ppid. */
  json_object *other =
      pisa_document_from_raw(raw, &run, PISA_DOC_OTHER_PROCESS);
  json_object *pid, *ppid;
  EXPECT(json_object_object_get_ex(other, "pid", &pid) &&
         json_object_get_int(pid) == 12);
  EXPECT(json_object_object_get_ex(other, "ppid", &ppid) &&
         json_object_get_int(ppid) == 11);
  json_object_put(other);
  json_object_put(expected);
  json_object_put(doc);
  json_object_put(raw);
}

/* complete = raw complete, and the program did not die of a signal the raw
 * result did not record; another process's result ignores the program's fate.
 */
static void test_document_complete(void) {
  static const struct {
    int raw_complete, raw_signal, run_signal;
    unsigned flags;
    int want;
  } cases[] = {
      {1, 0, 0, 0, 1},
      {0, 0, 0, 0, 0},
      {1, 0, 9, 0, 0},
      {0, 15, 15, 0, 0},
      {1, 15, 15, 0, 1},
      {1, 15, 9, 0, 0},
      {1, 0, 9, PISA_DOC_OTHER_PROCESS, 1},
      {0, 0, 0, PISA_DOC_OTHER_PROCESS, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    struct pisa_program_run run = {"./app", NULL, 0, 0, cases[i].run_signal, 0};
    run.exit_status = run.signal ? 128 + run.signal : 0;
    json_object *raw = raw_result(cases[i].raw_complete, cases[i].raw_signal);
    json_object *doc = pisa_document_from_raw(raw, &run, cases[i].flags);
    json_object *complete, *program, *status, *signal;
    EXPECT(json_object_object_get_ex(doc, "complete", &complete) &&
           json_object_get_boolean(complete) == cases[i].want);
    json_object_object_get_ex(doc, "program", &program);
    EXPECT(json_object_object_get_ex(program, "exit_status", &status) &&
           json_object_get_int(status) ==
               (cases[i].run_signal ? 128 + cases[i].run_signal : 0));
    EXPECT(json_object_object_get_ex(program, "signal", &signal) &&
           (cases[i].run_signal
                ? json_object_get_int(signal) == cases[i].run_signal
                : signal == NULL));
    if (!current_ok) {
      fprintf(stderr, "  in case %zu\n", i);
      break;
    }
    json_object_put(doc);
    json_object_put(raw);
  }
}

int main(void) {
  if (!mkdtemp(scratch)) {
    perror("mkdtemp");
    return 1;
  }
  RUN(test_write_new_file);
  RUN(test_no_clobber);
  RUN(test_force_replaces);
  RUN(test_missing_directory);
  RUN(test_writable_dir);
  RUN(test_read_errors);
  RUN(test_raw_check);
  RUN(test_document_shape);
  RUN(test_document_complete);
  clear_scratch();
  rmdir(scratch);
  return check_summary();
}
