/* rankmerge.c: the ranks of an MPI job merged into one document.  Ranks
 * have address spaces of their own, so their METRICS, functions, regions,
 * loops, lines and data objects merge exactly from the per-rank values
 * (metricsmerge.h, objectmerge.h). */
#include "rankmerge.h"
#include "docmetrics.h"
#include "jsonpath.h"
#include "objectmerge.h"
#include "rankintervals.h"
#include "util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Documents ----------------------------------------------------------- */

/* Keys of a rank entry that describe the rank, not its measurements. */
static const char *const RankKeys[] = {"rank",        "pid",    "complete",
                                       "exit_status", "signal", "mpi"};

void pisa_rank_merge_init(struct pisa_rank_merge *m, int expected_size) {
  memset(m, 0, sizeof *m);
  m->doc = json_object_new_object();
  m->expected_size = expected_size;
  json_object_object_add(m->doc, "ranks", json_object_new_array());
  json_object_object_add(m->doc, "threads", json_object_new_array());
  json_object_object_add(m->doc, "functions", json_object_new_array());
}

int pisa_raw_is_rank(json_object *raw) {
  return json_object_object_get_ex(raw, "mpi", NULL);
}

/* A rank entry from a raw result: the rank, how the process ended and its
 * totals. */
static json_object *rank_entry_from_raw(json_object *raw) {
  json_object *e = json_object_new_object(), *totals = json_at(raw, "totals");
  json_object *mpi = json_at(raw, "mpi");
  json_object_object_add(e, "rank", json_object_get(json_at(mpi, "rank")));
  json_object_object_add(e, "pid", json_object_get(json_at(raw, "pid")));
  json_object_object_add(e, "complete",
                         json_object_get(json_at(raw, "complete")));
  json_object_object_add(e, "exit_status",
                         json_object_get(json_at(raw, "exit_status")));
  json_object_object_add(e, "signal", json_object_get(json_at(raw, "signal")));
  json_object_object_foreach(totals, key, value)
      json_object_object_add(e, key, json_object_get(value));
  json_object_object_add(e, "mpi", json_object_get(mpi));
  return e;
}

static int is_rank_key(const char *key) {
  for (size_t i = 0; i < sizeof RankKeys / sizeof *RankKeys; i++)
    if (!strcmp(key, RankKeys[i]))
      return 1;
  return 0;
}

/* The METRICS of a rank entry (a new object sharing the values). */
static json_object *rank_metrics(json_object *entry) {
  json_object *m = json_object_new_object();
  json_object_object_foreach(entry, key, value) if (!is_rank_key(key))
      json_object_object_add(m, key, json_object_get(value));
  return m;
}

/* Adds `entry` (taking it, also when it is refused). */
/* The merge's one message for counts whose sum passes 64 bits. */
static int overflow(struct pisa_rank_merge *m) {
  snprintf(m->err, sizeof m->err,
           "a merged count would exceed 2^64 - 1; the inputs cannot be of "
           "one job");
  return -1;
}

/* A rank below its job's size, which is at most PISA_MAX_RANKS (the job's
 * communication matrix has size^2 cells). */
static int check_rank(struct pisa_rank_merge *m, json_object *entry) {
  uint64_t r = json_object_get_uint64(json_at(entry, "rank"));
  uint64_t size = json_object_get_uint64(json_at(entry, "mpi/size"));
  if (size <= PISA_MAX_RANKS && r < size)
    return 0;
  snprintf(m->err, sizeof m->err,
           "rank %llu of a job of %llu ranks: expected a rank below the "
           "size, and at most %d ranks",
           (unsigned long long)r, (unsigned long long)size, PISA_MAX_RANKS);
  return -1;
}

static int add_rank_entry(struct pisa_rank_merge *m, json_object *entry) {
  json_object *ranks = json_at(m->doc, "ranks");
  int64_t r = json_object_get_int64(json_at(entry, "rank"));
  if (check_rank(m, entry) != 0) {
    json_object_put(entry);
    return -1;
  }
  for (size_t i = 0; i < json_object_array_length(ranks); i++)
    if (json_object_get_int64(
            json_at(json_object_array_get_idx(ranks, i), "rank")) == r) {
      snprintf(m->err, sizeof m->err, "rank %lld is in two inputs",
               (long long)r);
      json_object_put(entry);
      return -1;
    }
  json_object_array_add(ranks, entry);
  json_object *metrics = rank_metrics(entry),
              *totals = json_at(m->doc, "totals");
  int status = 0;
  if (!totals)
    json_object_object_add(m->doc, "totals", pisa_json_copy(metrics));
  else
    status = pisa_metrics_merge(totals, metrics);
  json_object_put(metrics);
  return status ? overflow(m) : 0;
}

/* Config, mode and program come from the first input; the analysis
 * parameters must agree. */
static int merge_header(struct pisa_rank_merge *m, json_object *input) {
  json_object *config = json_at(m->doc, "config");
  if (!config) {
    json_object_object_add(m->doc, "config",
                           json_object_get(json_at(input, "config")));
    json_object_object_add(m->doc, "mode",
                           json_object_get(json_at(input, "mode")));
    if (json_at(input, "program"))
      json_object_object_add(m->doc, "program",
                             json_object_get(json_at(input, "program")));
    return 0;
  }
  if (!json_object_equal(config, json_at(input, "config"))) {
    snprintf(m->err, sizeof m->err,
             "the inputs were analysed with different settings (\"config\")");
    return -1;
  }
  return 0;
}

/* Counter mode's "counter" object: the settings (sample_every,
 * interval_ms) must agree; the counter updates add; a hardware counter is
 * available when it was for every input (a rank on another node may lack
 * it: that input's reason is kept).  The counts of counters and sets
 * describe the program, the first input's are kept. */
static int merge_counter(struct pisa_rank_merge *m, json_object *counter) {
  static const char *const Settings[] = {"sample_every", "interval_ms"};
  json_object *into = json_at(m->doc, "counter");
  if (!counter)
    return 0;
  if (!into) {
    json_object_object_add(m->doc, "counter", pisa_json_copy(counter));
    return 0;
  }
  for (size_t i = 0; i < sizeof Settings / sizeof *Settings; i++)
    if (!json_object_equal(json_at(into, Settings[i]),
                           json_at(counter, Settings[i]))) {
      snprintf(m->err, sizeof m->err,
               "the inputs were analysed with different settings "
               "(\"counter\": \"%s\")",
               Settings[i]);
      return -1;
    }
  json_object *hw = json_at(into, "hw_counters");
  json_object *other = json_at(counter, "hw_counters");
  for (size_t i = 0; i < json_object_array_length(hw); i++) {
    json_object *e = json_object_array_get_idx(hw, i);
    json_object *o = json_object_array_get_idx(other, i);
    if (o && json_object_get_boolean(json_at(e, "available")) &&
        !json_object_get_boolean(json_at(o, "available"))) {
      json_object_object_add(e, "available", json_object_new_boolean(0));
      json_object_object_add(e, "reason",
                             json_object_get(json_at(o, "reason")));
    }
  }
  return pisa_json_add_ints(json_at(into, "updates"),
                            json_at(counter, "updates")) != 0
             ? overflow(m)
             : 0;
}

static int64_t int_of(json_object *o, const char *key) {
  return json_object_get_int64(json_at(o, key));
}

/* Every input is valid before it is read: the merge relies on its types. */
static int check_input(struct pisa_rank_merge *m, json_object *input, int raw) {
  char why[400];
  if ((raw ? pisa_raw_validate : pisa_document_validate)(input, why,
                                                         sizeof why) == 0)
    return 0;
  snprintf(m->err, sizeof m->err, "does not match schema %s: %s",
           raw ? PISA_RAW_SCHEMA_ID : PISA_SCHEMA_ID, why);
  return -1;
}

/* The input's objects, with the threads their stack objects refer to by
 * position: merged once the job's threads are sorted. */
static void keep_objects(struct pisa_rank_merge *m, json_object *input) {
  if (!json_at(input, "objects"))
    return;
  if (!m->parts)
    m->parts = json_object_new_array();
  json_object *part = json_object_new_object();
  json_object_object_add(part, "objects",
                         json_object_get(json_at(input, "objects")));
  json_object_object_add(part, "threads",
                         json_object_get(json_at(input, "threads")));
  json_object_array_add(m->parts, part);
}

int pisa_rank_merge_add(struct pisa_rank_merge *m, json_object *input) {
  const char *schema = json_object_get_string(json_at(input, "schema"));
  int raw = schema && !strcmp(schema, PISA_RAW_SCHEMA_ID);
  if (check_input(m, input, raw) != 0)
    return -1;
  json_object *ranks = json_at(input, "ranks");
  if (raw ? !pisa_raw_is_rank(input) : !ranks) {
    snprintf(m->err, sizeof m->err,
             "not the result of an MPI rank (no \"%s\"; was the program "
             "built with pisa-cc --pisa-mpi or linked with -lmpi?)",
             raw ? "mpi" : "ranks");
    return -1;
  }
  if (merge_header(m, input) != 0 ||
      merge_counter(m, json_at(input, "counter")) != 0)
    return -1;
  pisa_rank_intervals_add(
      m->doc, input,
      raw ? int_of(json_at(input, "mpi"), "rank")
          : int_of(json_object_array_get_idx(ranks, 0), "rank"));
  if (raw) {
    if (add_rank_entry(m, rank_entry_from_raw(input)) != 0)
      return -1;
  } else {
    for (size_t i = 0; i < json_object_array_length(ranks); i++)
      if (add_rank_entry(
              m, pisa_json_copy(json_object_array_get_idx(ranks, i))) != 0)
        return -1;
  }
  json_object *threads = json_at(input, "threads");
  for (size_t i = 0; threads && i < json_object_array_length(threads); i++)
    json_object_array_add(
        json_at(m->doc, "threads"),
        json_object_get(json_object_array_get_idx(threads, i)));
  static const char *const Function[] = {"linkage_name", "module", NULL};
  static const char *const Region[] = {"name", NULL};
  int status = pisa_entries_merge(json_at(m->doc, "functions"),
                                  json_at(input, "functions"), Function);
  if (json_at(input, "regions")) {
    if (!json_at(m->doc, "regions"))
      json_object_object_add(m->doc, "regions", json_object_new_array());
    status |= pisa_entries_merge(json_at(m->doc, "regions"),
                                 json_at(input, "regions"), Region);
  }
  status |= pisa_source_merge(m->doc, input);
  keep_objects(m, input);
  return status ? overflow(m) : 0;
}

/* ---- The job ------------------------------------------------------------- */

static int by_rank(const void *a, const void *b) {
  json_object *x = *(json_object *const *)a, *y = *(json_object *const *)b;
  int64_t rx = int_of(x, "rank"), ry = int_of(y, "rank");
  if (rx != ry)
    return rx < ry ? -1 : 1;
  int64_t tx = int_of(x, "thread"), ty = int_of(y, "thread");
  return (tx > ty) - (tx < ty);
}

static void sort_list(json_object *list) {
  if (list)
    json_object_array_sort(list, by_rank);
}

static json_object *matrix(int size) {
  json_object *rows = json_object_new_array();
  for (int i = 0; i < size; i++) {
    json_object *row = json_object_new_array();
    for (int j = 0; j < size; j++)
      json_object_array_add(row, json_object_new_int64(0));
    json_object_array_add(rows, row);
  }
  return rows;
}

/* Adds count v to cell (i, j); -1 when the sum passes 64 bits. */
static int matrix_add(json_object *rows, int64_t i, int64_t j, json_object *v) {
  if (i < 0 || j < 0 || (size_t)i >= json_object_array_length(rows) ||
      (size_t)j >= json_object_array_length(rows))
    return 0;
  return pisa_json_add_ints(
      json_object_array_get_idx(json_object_array_get_idx(rows, i), j), v);
}

/* Why a rank failed, or NULL when it ended well. */
static const char *failure(json_object *entry, char *buf, size_t n) {
  json_object *signal = json_at(entry, "signal"),
              *status = json_at(entry, "exit_status");
  if (signal && json_object_get_int(signal) > 0) {
    const char *abbrev = sigabbrev_np(json_object_get_int(signal));
    snprintf(buf, n, "killed by SIG%s", abbrev ? abbrev : "?");
  } else if (json_at(entry, "complete") &&
             !json_object_get_boolean(json_at(entry, "complete")))
    snprintf(buf, n, "incomplete result");
  else if (status && json_object_get_int(status) != 0)
    snprintf(buf, n, "exit status %d", json_object_get_int(status));
  else
    return NULL;
  return buf;
}

static void add_failure(json_object *list, int64_t rank, const char *why) {
  json_object *f = json_object_new_object();
  json_object_object_add(f, "rank", json_object_new_int64(rank));
  json_object_object_add(f, "reason", json_object_new_string(why));
  json_object_array_add(list, f);
}

static json_object *traffic(void) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "messages", json_object_new_int64(0));
  json_object_object_add(o, "bytes", json_object_new_int64(0));
  return o;
}

/* The job's mpi object from the rank entries; returns the failures, and
 * sets *overflowed when a sum of counts passes 64 bits. */
static json_object *job_object(json_object *ranks, int size,
                               json_object **failed, int *overflowed) {
  json_object *job = json_object_new_object(),
              *calls = json_object_new_object();
  json_object *messages = matrix(size), *bytes = matrix(size);
  json_object *sent = traffic(), *received = traffic(), *coll = NULL;
  size_t n = json_object_array_length(ranks), next = 0;
  *failed = json_object_new_array();
  for (int r = 0; r < size; r++) {
    json_object *e = next < n ? json_object_array_get_idx(ranks, next) : NULL;
    char why[64];
    if (!e || int_of(e, "rank") != r) {
      add_failure(*failed, r, "wrote no result");
      continue;
    }
    next++;
    if (failure(e, why, sizeof why))
      add_failure(*failed, r, why);
    json_object *mpi = json_at(e, "mpi"), *peers = json_at(mpi, "peers");
    *overflowed |= pisa_counts_merge(calls, json_at(mpi, "calls")) |
                   pisa_counts_merge(sent, json_at(mpi, "sent")) |
                   pisa_counts_merge(received, json_at(mpi, "received"));
    if (!coll)
      coll = pisa_json_copy(json_at(mpi, "collectives"));
    else
      *overflowed |= pisa_counts_merge(coll, json_at(mpi, "collectives"));
    for (size_t p = 0; peers && p < json_object_array_length(peers); p++) {
      json_object *peer = json_object_array_get_idx(peers, p);
      int64_t to = int_of(peer, "rank");
      *overflowed |=
          matrix_add(messages, r, to, json_at(peer, "sent/messages")) |
          matrix_add(bytes, r, to, json_at(peer, "sent/bytes"));
    }
  }
  json_object *m = json_object_new_object();
  json_object_object_add(m, "messages", messages);
  json_object_object_add(m, "bytes", bytes);
  json_object_object_add(job, "size", json_object_new_int(size));
  json_object_object_add(job, "failed_ranks", json_object_get(*failed));
  json_object_object_add(job, "calls", calls);
  json_object_object_add(job, "matrix", m);
  json_object_object_add(job, "sent", sent);
  json_object_object_add(job, "received", received);
  if (!coll) {
    coll = json_object_new_object();
    json_object_object_add(coll, "calls", json_object_new_int64(0));
    json_object_object_add(coll, "bytes_sent", json_object_new_int64(0));
    json_object_object_add(coll, "bytes_received", json_object_new_int64(0));
  }
  json_object_object_add(job, "collectives", coll);
  return job;
}

/* The job size: as started, else the largest the ranks saw. */
static int job_size(json_object *ranks, int expected) {
  int size = expected;
  for (size_t i = 0; i < json_object_array_length(ranks); i++) {
    json_object *mpi = json_at(json_object_array_get_idx(ranks, i), "mpi");
    if (int_of(mpi, "size") > size)
      size = (int)int_of(mpi, "size");
  }
  return size > 0 ? size : 1;
}

/* Rebuilds `doc` with its keys in the order of the other documents. */
static json_object *ordered(json_object *doc) {
  static const char *const Order[] = {
      "schema",  "tool",    "program",   "mode",    "complete", "config",
      "totals",  "threads", "functions", "regions", "loops",    "lines",
      "objects", "ranks",   "mpi",       "counter", "intervals"};
  json_object *out = json_object_new_object();
  for (size_t i = 0; i < sizeof Order / sizeof *Order; i++)
    if (json_at(doc, Order[i]))
      json_object_object_add(out, Order[i],
                             json_object_get(json_at(doc, Order[i])));
  json_object_put(doc);
  return out;
}

void pisa_rank_merge_discard(struct pisa_rank_merge *m) {
  json_object_put(m->doc);
  json_object_put(m->parts);
  m->doc = m->parts = NULL;
}

json_object *pisa_rank_merge_finish(struct pisa_rank_merge *m,
                                    const struct pisa_program_run *run) {
  json_object *doc = m->doc, *ranks = json_at(doc, "ranks"), *failed;
  json_object *parts = m->parts;
  m->doc = m->parts = NULL;
  if (!json_at(doc, "totals")) {
    json_object_put(parts);
    snprintf(m->err, sizeof m->err,
             "no MPI rank wrote a result (is it an MPI program built with "
             "pisa-cc --pisa-mpi or linked with -lmpi?)");
    json_object_put(doc);
    return NULL;
  }
  sort_list(ranks);
  sort_list(json_at(doc, "threads"));
  int size = job_size(ranks, m->expected_size);
  int overflowed =
      parts && pisa_objects_merge_list(doc, parts, PISA_PARTS_CONCURRENT) != 0;
  json_object_put(parts);
  json_object_object_add(doc, "mpi",
                         job_object(ranks, size, &failed, &overflowed));
  json_object *series;
  overflowed |= pisa_rank_intervals_job(doc, &series) != 0;
  if (series)
    json_object_object_add(json_at(doc, "mpi"), "intervals", series);
  if (overflowed) {
    json_object_put(failed);
    json_object_put(doc);
    return overflow(m), NULL;
  }
  json_object_object_add(
      doc, "complete",
      json_object_new_boolean(json_object_array_length(failed) == 0));
  json_object_put(failed);
  json_object_object_add(doc, "schema", json_object_new_string(PISA_SCHEMA_ID));
  json_object_object_add(doc, "tool", pisa_tool_object());
  if (run)
    json_object_object_add(doc, "program", pisa_program_object(run));
  if (!json_at(doc, "program")) {
    snprintf(m->err, sizeof m->err,
             "the inputs are raw results: name the program with --program");
    json_object_put(doc);
    return NULL;
  }
  return ordered(doc);
}
