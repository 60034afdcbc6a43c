/* rankintervals.c: an MPI job's counter-mode time series (rankintervals.h).
 * A rank's intervals are those of its threads, each thread's in order,
 * every PISA_INTERVAL_MS of the rank's own clock (seconds since its
 * start-up).  The job's interval k sums the k-th interval of every thread
 * of every rank: counts and bandwidths add (the ranks run side by side),
 * its span runs from the earliest start to the latest end of its parts. */
#include "rankintervals.h"
#include "jsonpath.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void pisa_rank_intervals_add(json_object *doc, json_object *input,
                             int64_t rank) {
  json_object *from = json_at(input, "intervals");
  if (!from)
    return;
  json_object *into = json_at(doc, "intervals");
  if (!into) {
    into = json_object_new_array();
    json_object_object_add(doc, "intervals", into);
  }
  for (size_t i = 0; i < json_object_array_length(from); i++) {
    json_object *copy = NULL;
    if (json_object_deep_copy(json_object_array_get_idx(from, i), &copy,
                              NULL) != 0)
      die("out of memory");
    if (!json_at(copy, "rank"))
      json_object_object_add(copy, "rank", json_object_new_int64(rank));
    json_object_array_add(into, copy);
  }
}

static int by_rank_thread_start(const void *a, const void *b) {
  json_object *x = *(json_object *const *)a, *y = *(json_object *const *)b;
  static const char *const Keys[] = {"rank", "thread", "start"};
  for (size_t i = 0; i < sizeof Keys / sizeof *Keys; i++) {
    double u = json_count_at(x, Keys[i]), v = json_count_at(y, Keys[i]);
    if (u != v)
      return u < v ? -1 : 1;
  }
  return 0;
}

/* dst[key] += src[key], counts; -1 past 2^64 - 1. */
static int add_count(json_object *dst, json_object *src, const char *key) {
  json_object *s = json_at(src, key), *d = json_at(dst, key);
  uint64_t sum = 0;
  if (__builtin_add_overflow(d ? json_object_get_uint64(d) : 0,
                             s ? json_object_get_uint64(s) : 0, &sum))
    return -1;
  json_object_object_add(dst, key, json_object_new_uint64(sum));
  return 0;
}

static void add_double(json_object *dst, const char *key, double v) {
  json_object_object_add(dst, key,
                         json_object_new_double(json_count_at(dst, key) + v));
}

/* Adds interval `part` to job interval `job` (its parts counted). */
static int add_part(json_object *job, json_object *part) {
  static const char *const Counts[] = {"instructions", "bytes_loaded",
                                       "bytes_stored"};
  double start = json_count_at(part, "start"), end = json_count_at(part, "end");
  int first = json_count_at(job, "parts") == 0, status = 0;
  if (first || start < json_count_at(job, "start"))
    json_object_object_add(job, "start", json_object_new_double(start));
  if (first || end > json_count_at(job, "end"))
    json_object_object_add(job, "end", json_object_new_double(end));
  add_double(job, "read_bytes_per_second",
             json_count_at(part, "read_bytes_per_second"));
  add_double(job, "write_bytes_per_second",
             json_count_at(part, "write_bytes_per_second"));
  for (size_t i = 0; i < sizeof Counts / sizeof *Counts; i++)
    status |= add_count(job, part, Counts[i]);
  json_object *into = json_at(job, "categories"),
              *from = json_at(part, "categories");
  json_object_object_foreach(from, name, v) {
    (void)v;
    status |= add_count(into, from, name);
  }
  int64_t parts = (int64_t)json_count_at(job, "parts") + 1;
  json_object_object_add(job, "parts", json_object_new_int64(parts));
  return status;
}

/* The job's interval k, created on first use. */
static json_object *job_interval(json_object *series, size_t k) {
  while (json_object_array_length(series) <= k) {
    json_object *e = json_object_new_object();
    json_object_object_add(
        e, "index",
        json_object_new_int64((int64_t)json_object_array_length(series)));
    json_object_object_add(e, "parts", json_object_new_int64(0));
    json_object_object_add(e, "categories", json_object_new_object());
    json_object_array_add(series, e);
  }
  return json_object_array_get_idx(series, k);
}

int pisa_rank_intervals_job(json_object *doc, json_object **series) {
  json_object *list = json_at(doc, "intervals");
  *series = NULL;
  /* deep mode's intervals are of instructions, not time (no "start"):
   * they stay in their ranks' order, with no job series */
  if (!list || !json_at(json_object_array_get_idx(list, 0), "start"))
    return 0;
  json_object_array_sort(list, by_rank_thread_start);
  *series = json_object_new_array();
  size_t k = 0;
  for (size_t i = 0; i < json_object_array_length(list); i++) {
    json_object *e = json_object_array_get_idx(list, i);
    json_object *prev = i ? json_object_array_get_idx(list, i - 1) : NULL;
    int same_thread =
        prev && json_count_at(prev, "rank") == json_count_at(e, "rank") &&
        json_count_at(prev, "thread") == json_count_at(e, "thread");
    k = same_thread ? k + 1 : 0;
    if (add_part(job_interval(*series, k), e) != 0)
      return -1;
  }
  return 0;
}
