/* docset.c: loading and validating the result documents that show, rank
 * and compare read, and the metrics derived from a METRICS object that
 * more than one of them needs. */
#include "docset.h"
#include "document.h"
#include "jsonschema.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- Loading ------------------------------------------------------------ */

static int has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static char *label_of(const char *path) {
  const char *slash = strrchr(path, '/');
  char *label = xstrdup(slash ? slash + 1 : path);
  static const char *const suffixes[] = {".pisa.json", ".json"};
  for (size_t i = 0; i < 2; i++)
    if (has_suffix(label, suffixes[i]) && strlen(label) > strlen(suffixes[i])) {
      label[strlen(label) - strlen(suffixes[i])] = '\0';
      break;
    }
  return label;
}

/* 0 when doc is a valid pisa-char/1 document, else -1 with the reason. */
static int check_document(json_object *doc, char *err, size_t n) {
  json_object *id = json_at(doc, "schema");
  if (!json_object_is_type(doc, json_type_object) || !id) {
    snprintf(err, n, "not a pisa-char result document (no \"schema\" key)");
    return -1;
  }
  const char *name = json_object_get_string(id);
  if (!json_object_is_type(id, json_type_string) ||
      strcmp(name, PISA_SCHEMA_ID) != 0) {
    snprintf(err, n,
             "not a pisa-char result document (\"schema\" is %s, expected "
             "\"" PISA_SCHEMA_ID "\")",
             json_object_to_json_string_ext(
                 id, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    return -1;
  }
  char reason[1024];
  if (pisa_document_validate(doc, reason, sizeof reason) == 0)
    return 0;
  snprintf(err, n, "does not match schema " PISA_SCHEMA_ID ": %s", reason);
  return -1;
}

static int add_file(struct pisa_docset *set, const char *path) {
  char err[1400];
  json_object *doc;
  if (pisa_json_parse_file(path, &doc, err, sizeof err)) {
    error("%s: %s", path, err);
    return -1;
  }
  if (check_document(doc, err, sizeof err)) {
    error("%s: %s", path, err);
    json_object_put(doc);
    return -1;
  }
  set->docs = xrealloc(set->docs, (set->count + 1) * sizeof *set->docs);
  set->docs[set->count++] = (struct pisa_doc){
      .path = xstrdup(path), .label = label_of(path), .root = doc};
  return 0;
}

static int json_file_filter(const struct dirent *entry) {
  return entry->d_name[0] != '.' && has_suffix(entry->d_name, ".json");
}

static int add_dir(struct pisa_docset *set, const char *dir) {
  struct dirent **entries;
  int n = scandir(dir, &entries, json_file_filter, alphasort);
  if (n < 0) {
    error("%s: cannot read directory: %s", dir, strerror(errno));
    return -1;
  }
  int status = n == 0 ? -1 : 0;
  if (n == 0)
    error("%s: no *.json documents in this directory", dir);
  for (int i = 0; i < n; i++) {
    if (status == 0) {
      char *path = xasprintf("%s/%s", dir, entries[i]->d_name);
      status = add_file(set, path);
      free(path);
    }
    free(entries[i]);
  }
  free(entries);
  return status;
}

int docset_load(struct pisa_docset *set, char *const *args, int nargs) {
  *set = (struct pisa_docset){0};
  for (int i = 0; i < nargs; i++) {
    struct stat st;
    int is_dir = stat(args[i], &st) == 0 && S_ISDIR(st.st_mode);
    if ((is_dir ? add_dir : add_file)(set, args[i])) {
      docset_free(set);
      return -1;
    }
  }
  return 0;
}

void docset_free(struct pisa_docset *set) {
  for (size_t i = 0; i < set->count; i++) {
    free(set->docs[i].path);
    free(set->docs[i].label);
    json_object_put(set->docs[i].root);
  }
  free(set->docs);
  *set = (struct pisa_docset){0};
}

/* ---- Reading values ----------------------------------------------------- */

json_object *json_at(json_object *obj, const char *path) {
  char key[128];
  while (obj && *path) {
    size_t len = strcspn(path, "/");
    if (len >= sizeof key || !json_object_is_type(obj, json_type_object))
      return NULL;
    memcpy(key, path, len);
    key[len] = '\0';
    if (!json_object_object_get_ex(obj, key, &obj))
      return NULL;
    path += len + (path[len] == '/');
  }
  return obj;
}

int json_number_at(json_object *obj, const char *path, double *out) {
  json_object *v = json_at(obj, path);
  if (!v || !(json_object_is_type(v, json_type_int) ||
              json_object_is_type(v, json_type_double)))
    return 0;
  *out = json_object_get_double(v);
  return 1;
}

double json_count_at(json_object *obj, const char *path) {
  double v = 0;
  json_number_at(obj, path, &v);
  return v;
}

double metrics_accesses(json_object *m) {
  static const char *const single[] = {"loads",  "stores",  "atomics",
                                       "memset", "gathers", "scatters"};
  json_object *acc = json_at(m, "memory_accesses");
  double n = 2 * json_count_at(acc, "memcpy");
  for (size_t i = 0; i < sizeof single / sizeof *single; i++)
    n += json_count_at(acc, single[i]);
  return n;
}

int metrics_entropy(json_object *m, int k, double *out) {
  json_object *h = json_at(m, "memory_entropy");
  if (!h || !json_object_is_type(h, json_type_array) || k < 0 ||
      (size_t)k >= json_object_array_length(h))
    return 0;
  *out = json_object_get_double(json_object_array_get_idx(h, k));
  return 1;
}

static json_object *reuse_histogram(json_object *m, unsigned line_bytes) {
  json_object *all = json_at(m, "reuse_distance");
  size_t n = all ? json_object_array_length(all) : 0;
  for (size_t i = 0; i < n; i++) {
    json_object *h = json_object_array_get_idx(all, i);
    double line;
    if (json_number_at(h, "line_bytes", &line) && line == line_bytes)
      return h;
  }
  return NULL;
}

/* The share of bin i's accesses whose distance is >= lines. Bin 0 holds
 * distance 0; bin i >= 1 holds [2^(i-1), 2^i). */
static double bin_share_at_least(size_t i, double lines, int *interpolated) {
  if (i == 0)
    return lines <= 0 ? 1 : 0;
  double lo = ldexp(1, (int)i - 1), hi = ldexp(1, (int)i);
  if (lines <= lo)
    return 1;
  if (lines >= hi)
    return 0;
  *interpolated = 1;
  return (hi - lines) / lo;
}

int metrics_miss_estimate(json_object *m, uint64_t cache_bytes,
                          unsigned line_bytes, double *ratio,
                          int *interpolated) {
  json_object *h = reuse_histogram(m, line_bytes);
  json_object *bins = json_at(h, "bins");
  if (!h || !bins)
    return 0;
  double lines = (double)(cache_bytes / line_bytes);
  double misses = json_count_at(h, "cold"), all = misses;
  size_t n = json_object_array_length(bins);
  for (size_t i = 0; i < n; i++) {
    double count = json_object_get_double(json_object_array_get_idx(bins, i));
    all += count;
    misses += count * bin_share_at_least(i, lines, interpolated);
  }
  if (all <= 0)
    return 0;
  *ratio = misses / all;
  return 1;
}

/* ---- Command helpers ---------------------------------------------------- */

int cmd_usage_error(const char *cmd, const char *usage, const char *fmt, ...) {
  char message[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  error("%s: %s", cmd, message);
  fputs(usage, stderr);
  return 2;
}

int cmd_bad_option(const char *cmd, const char *usage, int opt, char **argv) {
  if (opt == ':')
    return cmd_usage_error(cmd, usage, "option %s needs an argument",
                           argv[optind - 1]);
  if (optopt)
    return cmd_usage_error(cmd, usage, "unknown option -%c", optopt);
  return cmd_usage_error(cmd, usage, "unknown option %s", argv[optind - 1]);
}

int parse_long(const char *s, long min, long max, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < min || v > max)
    return -1;
  *out = v;
  return 0;
}

const char *format_count(char *buf, size_t n, double count) {
  char digits[32];
  snprintf(digits, sizeof digits, "%.0f", count);
  size_t len = strlen(digits), out = 0;
  for (size_t i = 0; i < len && out + 2 < n; i++) {
    if (i > 0 && digits[i - 1] != '-' && (len - i) % 3 == 0)
      buf[out++] = ',';
    buf[out++] = digits[i];
  }
  buf[out] = '\0';
  return buf;
}

const char *format_bytes(char *buf, size_t n, double bytes) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t u = 0;
  while (bytes >= 1024 && u + 1 < sizeof units / sizeof *units)
    bytes /= 1024, u++;
  snprintf(buf, n, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}
