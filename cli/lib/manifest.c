/* manifest.c: reads suite manifests (pisa-char-suite/1) into the list of
 * benchmarks to build and run at one size, finds bundled suites, and turns
 * an external PolyBench/C checkout into the same description. */
#include "manifest.h"
#include "document.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const PolybenchSizes[] = {"MINI", "SMALL", "MEDIUM", "LARGE",
                                             "EXTRALARGE"};
#define NUM_POLYBENCH_SIZES (sizeof PolybenchSizes / sizeof *PolybenchSizes)

/* ---- Errors -------------------------------------------------------------- */

/* Puts "FILE: problem" into err and returns -1. */
static int PISA_PRINTF(4, 5)
    fail(char *err, size_t n, const char *file, const char *fmt, ...) {
  int len = snprintf(err, n, "%s: ", file);
  va_list ap;
  va_start(ap, fmt);
  if (len >= 0 && (size_t)len < n)
    vsnprintf(err + len, n - len, fmt, ap);
  va_end(ap);
  return -1;
}

/* ---- Reading a manifest -------------------------------------------------- */

/* What suite_load needs while it reads one manifest. */
struct reader {
  const char *file; /* the manifest as given, for messages */
  char *dir;        /* its absolute directory, for relative paths */
  char *err;
  size_t errlen;
};

static char *absolute_in(const char *dir, const char *path) {
  return path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", dir, path);
}

/* A benchmark name becomes file names: letters, digits, '.', '_', '+', '-',
 * not starting with '.'. */
static int valid_name(const char *s) {
  if (!*s || *s == '.')
    return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && !strchr("._+-", *s))
      return 0;
  return 1;
}

/* The optional string list `key` of `obj` appended to out, each entry made
 * absolute when `paths`; -1 when it is not an array of strings. */
static int read_strings(struct reader *r, json_object *obj, const char *key,
                        const char *where, int paths, const char *prefix,
                        struct strvec *out) {
  json_object *list;
  if (!json_object_object_get_ex(obj, key, &list))
    return 0;
  if (!json_object_is_type(list, json_type_array))
    return fail(r->err, r->errlen, r->file, "%s\"%s\" is not a list of strings",
                where, key);
  for (size_t i = 0; i < json_object_array_length(list); i++) {
    json_object *item = json_object_array_get_idx(list, i);
    if (!json_object_is_type(item, json_type_string))
      return fail(r->err, r->errlen, r->file,
                  "%s\"%s\" is not a list of strings", where, key);
    const char *s = json_object_get_string(item);
    char *value = paths ? absolute_in(r->dir, s) : xstrdup(s);
    char *flag = prefix ? xasprintf("%s%s", prefix, value) : xstrdup(value);
    strvec_push(out, flag);
    free(flag);
    free(value);
  }
  return 0;
}

/* The optional string `key` of `obj`: 0 and *out (NULL when absent), or -1
 * when it is not a string. */
static int read_string(struct reader *r, json_object *obj, const char *key,
                       const char **out) {
  json_object *v;
  *out = NULL;
  if (!json_object_object_get_ex(obj, key, &v))
    return 0;
  if (!json_object_is_type(v, json_type_string))
    return fail(r->err, r->errlen, r->file, "\"%s\" is not a string", key);
  *out = json_object_get_string(v);
  return 0;
}

/* Flags every benchmark shares: suite cflags, then -I for include_dirs. */
struct common_flags {
  struct strvec cflags, ldflags;
};

static int read_common(struct reader *r, json_object *obj, const char *where,
                       struct common_flags *c) {
  if (read_strings(r, obj, "cflags", where, 0, NULL, &c->cflags) ||
      read_strings(r, obj, "include_dirs", where, 1, "-I", &c->cflags) ||
      read_strings(r, obj, "ldflags", where, 0, NULL, &c->ldflags))
    return -1;
  return 0;
}

/* The entry of `sizes` (an object) for `size`, or NULL with err set. */
static json_object *size_entry(struct reader *r, json_object *sizes,
                               const char *bench, const char *size) {
  json_object *entry;
  if (!json_object_is_type(sizes, json_type_object)) {
    fail(r->err, r->errlen, r->file, "benchmark %s: \"sizes\" is not an object",
         bench);
    return NULL;
  }
  if (!size) {
    fail(r->err, r->errlen, r->file,
         "benchmark %s has sizes but the suite names no default_size; "
         "choose one with --size",
         bench);
    return NULL;
  }
  if (!json_object_object_get_ex(sizes, size, &entry) ||
      !json_object_is_type(entry, json_type_object)) {
    fail(r->err, r->errlen, r->file, "benchmark %s has no size %s", bench,
         size);
    return NULL;
  }
  return entry;
}

static int read_benchmark(struct reader *r, json_object *obj,
                          const struct common_flags *common, const char *size,
                          struct suite_benchmark *b) {
  const char *name;
  json_object *sizes;
  if (!json_object_is_type(obj, json_type_object))
    return fail(r->err, r->errlen, r->file, "a benchmark is not an object");
  if (read_string(r, obj, "name", &name))
    return -1;
  if (!name || !valid_name(name))
    return fail(r->err, r->errlen, r->file,
                "benchmark name %s%s%s is missing or not a plain file name",
                name ? "'" : "", name ? name : "", name ? "'" : "");
  b->name = xstrdup(name);
  char where[256];
  snprintf(where, sizeof where, "benchmark %s: ", name);
  strvec_append(&b->cflags, &common->cflags);
  strvec_append(&b->ldflags, &common->ldflags);
  struct common_flags own = {0};
  int rc = read_common(r, obj, where, &own);
  strvec_append(&b->cflags, &own.cflags);
  strvec_append(&b->ldflags, &own.ldflags);
  strvec_free(&own.cflags);
  strvec_free(&own.ldflags);
  if (rc || read_strings(r, obj, "sources", where, 1, NULL, &b->sources) ||
      read_strings(r, obj, "args", where, 0, NULL, &b->args))
    return -1;
  if (b->sources.n == 0)
    return fail(r->err, r->errlen, r->file, "benchmark %s has no sources",
                name);
  if (!json_object_object_get_ex(obj, "sizes", &sizes))
    return 0;
  json_object *entry = size_entry(r, sizes, name, size);
  if (!entry)
    return -1;
  snprintf(where, sizeof where, "benchmark %s size %s: ", name, size);
  if (read_strings(r, entry, "cflags", where, 0, NULL, &b->cflags) ||
      read_strings(r, entry, "ldflags", where, 0, NULL, &b->ldflags) ||
      read_strings(r, entry, "args", where, 0, NULL, &b->args))
    return -1;
  return 0;
}

/* Picks the size: `size` matched case-insensitively against the suite's
 * "sizes" (its spelling wins), else the default_size. */
static int choose_size(struct reader *r, json_object *root, const char *size,
                       struct suite *s) {
  json_object *sizes;
  const char *def;
  if (read_string(r, root, "default_size", &def))
    return -1;
  if (!json_object_object_get_ex(root, "sizes", &sizes)) {
    s->size = size ? xstrdup(size) : def ? xstrdup(def) : NULL;
    return 0;
  }
  if (!json_object_is_type(sizes, json_type_array))
    return fail(r->err, r->errlen, r->file, "\"sizes\" is not a list");
  const char *want = size ? size : def;
  if (!want)
    return 0;
  for (size_t i = 0; i < json_object_array_length(sizes); i++) {
    const char *name =
        json_object_get_string(json_object_array_get_idx(sizes, i));
    if (name && strcasecmp(name, want) == 0) {
      s->size = xstrdup(name);
      return 0;
    }
  }
  char names[256] = "";
  for (size_t i = 0; i < json_object_array_length(sizes); i++) {
    size_t len = strlen(names);
    snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
             json_object_get_string(json_object_array_get_idx(sizes, i)));
  }
  return fail(r->err, r->errlen, r->file, "the suite has no size %s (%s)", want,
              names);
}

static int check_unique_names(struct reader *r, const struct suite *s) {
  for (size_t i = 0; i < s->nbenchmarks; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(s->benchmarks[i].name, s->benchmarks[j].name) == 0)
        return fail(r->err, r->errlen, r->file, "two benchmarks named %s",
                    s->benchmarks[i].name);
  return 0;
}

static int read_suite(struct reader *r, json_object *root, const char *size,
                      struct suite *s) {
  const char *format, *name, *language, *regex;
  json_object *benchmarks;
  if (!json_object_is_type(root, json_type_object))
    return fail(r->err, r->errlen, r->file, "not a JSON object");
  if (read_string(r, root, "format", &format))
    return -1;
  if (!format || strcmp(format, PISA_SUITE_FORMAT) != 0)
    return fail(r->err, r->errlen, r->file,
                "not a suite manifest (\"format\" is not \"%s\")",
                PISA_SUITE_FORMAT);
  if (read_string(r, root, "suite", &name) ||
      read_string(r, root, "language", &language) ||
      read_string(r, root, "checksum_regex", &regex))
    return -1;
  if (!name || !valid_name(name))
    return fail(r->err, r->errlen, r->file,
                "\"suite\" is missing or not a plain name");
  if (language && strcmp(language, "c") != 0 && strcmp(language, "c++") != 0)
    return fail(r->err, r->errlen, r->file,
                "\"language\" is \"%s\"; expected \"c\" or \"c++\"", language);
  s->name = xstrdup(name);
  s->compiler =
      xstrdup(language && !strcmp(language, "c++") ? "pisa-c++" : "pisa-cc");
  s->checksum_regex = regex ? xstrdup(regex) : NULL;
  if (choose_size(r, root, size, s))
    return -1;
  if (!json_object_object_get_ex(root, "benchmarks", &benchmarks) ||
      !json_object_is_type(benchmarks, json_type_array) ||
      json_object_array_length(benchmarks) == 0)
    return fail(r->err, r->errlen, r->file,
                "\"benchmarks\" is missing or not a non-empty list");
  struct common_flags common = {0};
  int rc = read_common(r, root, "", &common);
  size_t count = json_object_array_length(benchmarks);
  s->benchmarks = xcalloc(count, sizeof *s->benchmarks);
  for (size_t i = 0; rc == 0 && i < count; i++) {
    s->nbenchmarks = i + 1;
    rc = read_benchmark(r, json_object_array_get_idx(benchmarks, i), &common,
                        s->size, &s->benchmarks[i]);
  }
  strvec_free(&common.cflags);
  strvec_free(&common.ldflags);
  return rc ? rc : check_unique_names(r, s);
}

int suite_load(const char *path, const char *size, struct suite *out, char *err,
               size_t n) {
  memset(out, 0, sizeof *out);
  char resolved[PATH_MAX];
  if (!realpath(path, resolved))
    return fail(err, n, path, "%s", strerror(errno));
  json_object *root = pisa_read_json_file(path, err, n);
  if (!root)
    return -1;
  char *copy = xstrdup(resolved);
  struct reader r = {path, xstrdup(dirname(copy)), err, n};
  free(copy);
  out->manifest = xstrdup(resolved);
  int rc = read_suite(&r, root, size, out);
  json_object_put(root);
  free(r.dir);
  if (rc)
    suite_free(out);
  return rc;
}

/* ---- Bundled suites ------------------------------------------------------ */

static int is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *suite_find_bundled(const char *name) {
  if (!valid_name(name))
    return NULL;
  char *installed =
      xasprintf("%s/../share/pisa-char/suites/%s/suite.json", self_dir(), name);
  if (is_file(installed))
    return installed;
  free(installed);
#ifdef PISA_SOURCE_DIR
  char *source = xasprintf("%s/%s/suite.json", PISA_SOURCE_DIR, name);
  if (is_file(source))
    return source;
  free(source);
#endif
  return NULL;
}

/* ---- External PolyBench/C ------------------------------------------------ */

static const char *polybench_size(const char *size) {
  if (!size)
    return "SMALL";
  for (size_t i = 0; i < NUM_POLYBENCH_SIZES; i++)
    if (strcasecmp(size, PolybenchSizes[i]) == 0)
      return PolybenchSizes[i];
  return NULL;
}

/* A benchmark_list line, trimmed; NULL for blank lines and comments. */
static char *list_entry(char *line) {
  while (isspace((unsigned char)*line))
    line++;
  size_t len = strlen(line);
  while (len && isspace((unsigned char)line[len - 1]))
    line[--len] = '\0';
  return *line && *line != '#' ? line : NULL;
}

/* The benchmark of one list entry such as ./linear-algebra/blas/gemm/gemm.c:
 * the kernel with the utilities' polybench.c, -I both directories. */
static void polybench_benchmark(const char *root, const char *entry,
                                const char *size, struct suite_benchmark *b) {
  char *source = absolute_in(root, entry);
  char *copy = xstrdup(source);
  char *base = basename(copy);
  char *dot = strrchr(base, '.');
  if (dot)
    *dot = '\0';
  b->name = xstrdup(base);
  free(copy);
  copy = xstrdup(source);
  char *utilities = xasprintf("%s/utilities", root);
  char *flags[] = {"-O2", xasprintf("-I%s", utilities),
                   xasprintf("-I%s", dirname(copy)),
                   xasprintf("-D%s_DATASET", size)};
  for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
    strvec_push(&b->cflags, flags[i]);
  for (size_t i = 1; i < sizeof flags / sizeof *flags; i++)
    free(flags[i]);
  strvec_push(&b->sources, source);
  char *support = xasprintf("%s/polybench.c", utilities);
  strvec_push(&b->sources, support);
  strvec_push(&b->ldflags, "-lm");
  free(support);
  free(utilities);
  free(copy);
  free(source);
}

static int read_benchmark_list(const char *root, const char *list, FILE *f,
                               struct suite *s, char *err, size_t n) {
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, f) > 0) {
    char *entry = list_entry(line);
    if (!entry)
      continue;
    s->benchmarks =
        xrealloc(s->benchmarks, (s->nbenchmarks + 1) * sizeof *s->benchmarks);
    struct suite_benchmark *b = &s->benchmarks[s->nbenchmarks++];
    memset(b, 0, sizeof *b);
    polybench_benchmark(root, entry, s->size, b);
    if (!valid_name(b->name) || !is_file(b->sources.v[0])) {
      fail(err, n, list, "%s: no such kernel source", entry);
      free(line);
      return -1;
    }
  }
  free(line);
  if (s->nbenchmarks == 0)
    return fail(err, n, list, "lists no benchmarks");
  struct reader r = {list, NULL, err, n};
  return check_unique_names(&r, s);
}

int suite_from_polybench_root(const char *root, const char *size,
                              struct suite *out, char *err, size_t n) {
  memset(out, 0, sizeof *out);
  char resolved[PATH_MAX];
  if (!realpath(root, resolved))
    return fail(err, n, root, "%s", strerror(errno));
  const char *chosen = polybench_size(size);
  if (!chosen)
    return fail(err, n, root,
                "PolyBench has no size %s (MINI, SMALL, MEDIUM, LARGE, "
                "EXTRALARGE)",
                size);
  char *list = xasprintf("%s/utilities/benchmark_list", resolved);
  char *support = xasprintf("%s/utilities/polybench.c", resolved);
  FILE *f = fopen(list, "r");
  int rc;
  if (!f)
    rc = fail(err, n, list, "%s (is %s a PolyBench/C checkout?)",
              strerror(errno), root);
  else if (!is_file(support))
    rc = fail(err, n, support, "missing (is %s a PolyBench/C checkout?)", root);
  else {
    out->name = xstrdup("polybench");
    out->manifest = xstrdup(resolved);
    out->size = xstrdup(chosen);
    out->compiler = xstrdup("pisa-cc");
    rc = read_benchmark_list(resolved, list, f, out, err, n);
  }
  if (f)
    fclose(f);
  free(list);
  free(support);
  if (rc)
    suite_free(out);
  return rc;
}

void suite_free(struct suite *s) {
  for (size_t i = 0; i < s->nbenchmarks; i++) {
    struct suite_benchmark *b = &s->benchmarks[i];
    free(b->name);
    strvec_free(&b->sources);
    strvec_free(&b->cflags);
    strvec_free(&b->ldflags);
    strvec_free(&b->args);
  }
  free(s->benchmarks);
  free(s->name);
  free(s->manifest);
  free(s->size);
  free(s->compiler);
  free(s->checksum_regex);
  memset(s, 0, sizeof *s);
}
