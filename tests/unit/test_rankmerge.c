/* test_rankmerge.c: merging the METRICS of ranks (cli/lib/rankmerge.c,
 * metricsmerge.c) against
 * brute force: the entropy of two random address streams of different
 * address spaces, computed on their union, must equal the merged per-rank
 * entropies; counts add, ratios are weighted means; two raw results
 * become a document with the communication matrix and the missing rank;
 * data objects of two ranks or images merge by kind, name and site. */
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "document.h"
#include "jsonpath.h"
#include "objectmerge.h"
#include "rankmerge.h"

#define MAX_REFS 4096
#define BITS 4

struct stream {
  uint64_t addr[MAX_REFS];
  int n;
  int space; /* the rank: its addresses are its own */
};

static int near(double a, double b) { return fabs(a - b) < 1e-9; }

/* H of the values (space, addr >> k) over the given streams. */
static double brute_entropy(const struct stream *const *s, int ns, int k) {
  double total = 0, h = 0;
  for (int i = 0; i < ns; i++)
    total += s[i]->n;
  for (int i = 0; i < ns; i++)
    for (int a = 0; a < s[i]->n; a++) {
      uint64_t v = s[i]->addr[a] >> k;
      int first = 1, count = 0;
      for (int b = 0; b < s[i]->n; b++)
        if (s[i]->addr[b] >> k == v) {
          first &= b >= a;
          count++;
        }
      if (first) /* each value once, at its first occurrence */
        h -= count / total * log2(count / total);
    }
  return h;
}

static void random_stream(struct stream *s, int n, uint64_t range) {
  s->n = n;
  for (int i = 0; i < n; i++)
    s->addr[i] = 4096 + test_rng() % range;
}

/* METRICS of one stream: entropy by brute force, its references as a
 * reuse histogram, and a few counts and ratios. */
static json_object *stream_metrics(const struct stream *s, int64_t ins,
                                   double ilp, double miss) {
  json_object *m = json_object_new_object(), *h = json_object_new_array();
  for (int k = 0; k <= BITS; k++)
    json_object_array_add(h, json_object_new_double(brute_entropy(&s, 1, k)));
  json_object_object_add(m, "instructions", json_object_new_int64(ins));
  json_object_object_add(m, "memory_entropy", h);
  char text[512];
  snprintf(text, sizeof text,
           "{\"reuse_distance\": [{\"line_bytes\": 8, \"cold\": %d, "
           "\"bins\": [0]}], \"miss_ratio\": [{\"cache_bytes\": 32768, "
           "\"line_bytes\": 64, \"ratio\": %g}], \"ilp\": [{\"window\": 0, "
           "\"ilp\": %.1f, \"categories\": {}, \"opcodes\": {}}], "
           "\"external_calls\": {\"printf\": 1}}",
           s->n, miss, ilp);
  json_object *extra = json_tokener_parse(text);
  json_object_object_foreach(extra, key, value)
      json_object_object_add(m, key, json_object_get(value));
  json_object_put(extra);
  return m;
}

/* The value at a '/'-separated path of keys and list positions, or NULL. */
static json_object *value_at(json_object *o, const char *path) {
  json_object *v = o;
  char copy[128];
  snprintf(copy, sizeof copy, "%s", path);
  for (char *part = strtok(copy, "/"); part && v; part = strtok(NULL, "/"))
    if (json_object_is_type(v, json_type_array))
      v = json_object_array_get_idx(v, (size_t)atoi(part));
    else if (!json_object_object_get_ex(v, part, &v))
      v = NULL;
  return v;
}

static double at(json_object *o, const char *path) {
  json_object *v = value_at(o, path);
  return v ? json_object_get_double(v) : NAN;
}

static void test_entropy_of_union(void) {
  static struct stream a = {.space = 0}, b = {.space = 1};
  test_seed(5);
  random_stream(&a, 1000, 64);
  random_stream(&b, 3000, 20);
  json_object *ma = stream_metrics(&a, 500, 2.0, 0.5);
  json_object *mb = stream_metrics(&b, 1500, 4.0, 0.1);
  pisa_metrics_merge(ma, mb);
  const struct stream *both[2] = {&a, &b};
  for (int k = 0; k <= BITS; k++) {
    char path[32];
    snprintf(path, sizeof path, "memory_entropy/%d", k);
    EXPECT(near(at(ma, path), brute_entropy(both, 2, k)));
  }
  EXPECT_EQ(at(ma, "instructions"), 2000);
  EXPECT_EQ(at(ma, "reuse_distance/0/cold"), 4000);
  EXPECT_EQ(at(ma, "external_calls/printf"), 2);
  /* misses: 500 + 300 of 4000 references; ILP weighted by instructions */
  EXPECT(near(at(ma, "miss_ratio/0/ratio"), 800.0 / 4000));
  EXPECT(near(at(ma, "ilp/0/ilp"), (500 * 2.0 + 1500 * 4.0) / 2000));
  json_object_put(ma);
  json_object_put(mb);
}

/* Histograms of different lengths add bin by bin; access classes keep
 * their footprint growth consistent with the merged counts. */
static void test_histograms_and_classes(void) {
  json_object *a = json_tokener_parse(
      "{\"instructions\": 10, \"reuse_distance\": [{\"line_bytes\": 8, "
      "\"cold\": 1, \"bins\": [1, 2]}], \"access_classes\": {\"strided\": "
      "{\"accesses\": 4, \"footprint_bytes\": 32, \"footprint_growth\": 8.0}, "
      "\"constant_fraction\": 0.0, \"footprint_growth\": 8.0}}");
  json_object *b = json_tokener_parse(
      "{\"instructions\": 30, \"reuse_distance\": [{\"line_bytes\": 8, "
      "\"cold\": 2, \"bins\": [0, 1, 5]}, {\"line_bytes\": 16, \"cold\": 8, "
      "\"bins\": []}], \"access_classes\": {\"strided\": {\"accesses\": 4, "
      "\"footprint_bytes\": 8, \"footprint_growth\": 2.0}, "
      "\"constant_fraction\": 0.5, \"footprint_growth\": 1.0}}");
  pisa_metrics_merge(a, b);
  EXPECT_EQ(at(a, "reuse_distance/0/cold"), 3);
  EXPECT_EQ(at(a, "reuse_distance/0/bins/1"), 3);
  EXPECT_EQ(at(a, "reuse_distance/0/bins/2"), 5);
  EXPECT_EQ(at(a, "reuse_distance/1/cold"), 8);
  EXPECT(near(at(a, "access_classes/strided/footprint_growth"), 40.0 / 8));
  json_object_put(a);
  json_object_put(b);
}

/* ILP and BBLP are instruction-weighted means; a block's PBBLP is the
 * instance-weighted mean of the ranks' (10 * 10 + 30 * 1) / 40 = 3.25, and
 * blocks are matched by index. */
static void test_parallelism(void) {
  json_object *a = json_tokener_parse(
      "{\"instructions\": 10, \"ilp\": [{\"window\": 0, \"ilp\": 2.0, "
      "\"categories\": {}, \"opcodes\": {}}], \"bblp\": {\"bblp\": 1.0, "
      "\"bblp_smart\": 2.0, \"pbblp\": 4.0, \"blocks\": [{\"block\": 2, "
      "\"instances\": 10, \"pbblp\": 10.0}]}}");
  json_object *b = json_tokener_parse(
      "{\"instructions\": 30, \"ilp\": [{\"window\": 0, \"ilp\": 6.0, "
      "\"categories\": {}, \"opcodes\": {}}], \"bblp\": {\"bblp\": 3.0, "
      "\"bblp_smart\": 2.0, \"pbblp\": 1.0, \"blocks\": [{\"block\": 5, "
      "\"instances\": 1, \"pbblp\": 1.0}, {\"block\": 2, \"instances\": "
      "30, \"pbblp\": 1.0}]}}");
  pisa_metrics_merge(a, b);
  EXPECT(near(at(a, "ilp/0/ilp"), (2.0 * 10 + 6.0 * 30) / 40));
  EXPECT(near(at(a, "bblp/bblp"), (1.0 * 10 + 3.0 * 30) / 40));
  EXPECT_EQ(at(a, "bblp/blocks/0/block"), 2);
  EXPECT_EQ(at(a, "bblp/blocks/0/instances"), 40);
  EXPECT(near(at(a, "bblp/blocks/0/pbblp"), 3.25));
  EXPECT_EQ(at(a, "bblp/blocks/1/block"), 5);
  json_object_put(a);
  json_object_put(b);
}

/* The METRICS the schema requires of a rank's totals and threads (the
 * merge validates each raw result first): 7 instructions, no accesses. */
#define SEVEN_INSTRUCTIONS                                                     \
  "\"instructions\": 7, \"instruction_mix\": {\"opcodes\": {\"ret\": 7}, "     \
  "\"categories\": {\"memory\": 0, \"int\": 0, \"fp\": 0, \"bitwise\": 0, "    \
  "\"conversion\": 0, \"address\": 0, \"control\": 7, \"vector\": 0, "         \
  "\"other\": 0}, \"phi\": 0, \"bytes_loaded\": 0, \"bytes_stored\": 0, "      \
  "\"vector\": {\"instructions\": 0, \"lanes\": {}, \"bits\": {}}}, "          \
  "\"memory_accesses\": {\"loads\": 0, \"stores\": 0, \"atomics\": 0, "        \
  "\"memcpy\": 0, \"memset\": 0, \"gathers\": 0, \"scatters\": 0}, "           \
  "\"external_calls\": {}"

static json_object *raw_rank(int rank, int size, int to, int bytes) {
  char text[2048];
  snprintf(text, sizeof text,
           "{\"schema\": \"pisa-char-raw/1\", \"pid\": %d, \"ppid\": 1, "
           "\"complete\": true, \"signal\": null, \"exit_status\": 0, "
           "\"mode\": \"deep\", \"config\": {\"line_sizes\": [8]}, "
           "\"totals\": {" SEVEN_INSTRUCTIONS "}, \"threads\": [{\"rank\": %d, "
           "\"thread\": 0, " SEVEN_INSTRUCTIONS "}], \"functions\": [], "
           "\"mpi\": {\"rank\": %d, \"size\": %d, \"calls\": {\"MPI_Send\": "
           "1}, \"sent\": {\"messages\": 1, \"bytes\": %d}, \"received\": "
           "{\"messages\": 0, \"bytes\": 0}, \"peers\": [{\"rank\": %d, "
           "\"sent\": {\"messages\": 1, \"bytes\": %d}, \"received\": "
           "{\"messages\": 0, \"bytes\": 0}}], \"collectives\": {\"calls\": 0, "
           "\"bytes_sent\": 0, \"bytes_received\": 0}}}",
           100 + rank, rank, rank, size, bytes, to, bytes);
  return json_tokener_parse(text);
}

static void test_job(void) {
  struct pisa_rank_merge m;
  struct pisa_program_run run = {"./app", NULL, 0, 0, 0, 1.0};
  pisa_rank_merge_init(&m, 3);
  json_object *r1 = raw_rank(1, 3, 0, 24), *r0 = raw_rank(0, 3, 1, 16);
  EXPECT(pisa_rank_merge_add(&m, r1) == 0);
  EXPECT(pisa_rank_merge_add(&m, r0) == 0);
  EXPECT(pisa_rank_merge_add(&m, r0) != 0); /* rank 0 twice */
  json_object *doc = pisa_rank_merge_finish(&m, &run);
  EXPECT(doc != NULL);
  if (!doc)
    return;
  EXPECT_EQ(at(doc, "totals/instructions"), 14);
  EXPECT_EQ(at(doc, "ranks/0/rank"), 0);
  EXPECT_EQ(at(doc, "threads/1/rank"), 1);
  EXPECT_EQ(at(doc, "mpi/matrix/bytes/0/1"), 16);
  EXPECT_EQ(at(doc, "mpi/matrix/bytes/1/0"), 24);
  EXPECT_EQ(at(doc, "mpi/matrix/messages/2/2"), 0);
  EXPECT_EQ(at(doc, "mpi/calls/MPI_Send"), 2);
  EXPECT_EQ(at(doc, "mpi/failed_ranks/0/rank"), 2);
  json_object *complete;
  json_object_object_get_ex(doc, "complete", &complete);
  EXPECT(!json_object_get_boolean(complete));
  json_object_put(doc);
  json_object_put(r0);
  json_object_put(r1);
}

/* One interval of a thread: its span, instructions, bytes and categories
 * (a tenth of the instructions memory, the rest int); loaded bytes are 8
 * per instruction, stored 4, the rates their bytes over the span. */
static json_object *interval(int thread, double start, double end, int ins) {
  char text[512];
  double span = end - start;
  snprintf(text, sizeof text,
           "{\"thread\": %d, \"start\": %g, \"end\": %g, \"instructions\": "
           "%d, \"bytes_loaded\": %d, \"bytes_stored\": %d, "
           "\"read_bytes_per_second\": %.17g, \"write_bytes_per_second\": "
           "%.17g, \"categories\": {\"memory\": %d, \"int\": %d}}",
           thread, start, end, ins, 8 * ins, 4 * ins, 8 * ins / span,
           4 * ins / span, ins / 10, ins - ins / 10);
  return json_tokener_parse(text);
}

/* `raw` with the list `key` of the n entries `parts` (taken). */
static json_object *with_list(json_object *raw, const char *key,
                              json_object *const *parts, int n) {
  json_object *list = json_object_new_array();
  for (int i = 0; i < n; i++)
    json_object_array_add(list, parts[i]);
  json_object_object_add(raw, key, list);
  return raw;
}

/* Two raw ranks merged into a job of two (the first added first); the
 * document must be valid.  NULL when the merge failed. */
static json_object *job_of(json_object *first, json_object *second) {
  struct pisa_rank_merge m;
  struct pisa_program_run run = {"./app", NULL, 0, 0, 0, 1.0};
  char why[400] = "";
  pisa_rank_merge_init(&m, 2);
  EXPECT(pisa_rank_merge_add(&m, first) == 0);
  EXPECT(pisa_rank_merge_add(&m, second) == 0);
  json_object *doc = pisa_rank_merge_finish(&m, &run);
  EXPECT(doc != NULL);
  if (doc)
    EXPECT(pisa_document_validate(doc, why, sizeof why) == 0);
  EXPECT_EQ(why[0], 0);
  return doc;
}

/* The ranks' time series (issue 15, item 5): every rank's intervals are
 * kept with their rank, and mpi.intervals[k] sums the k-th interval of
 * every thread of every rank.  Rank 0: thread 0 runs [0, 0.1] 100
 * instructions and [0.1, 0.2] 50, thread 1 [0.15, 0.2] 10; rank 1 (added
 * first): thread 0 [0, 0.1] 200 and [0.1, 0.25] 70.  So interval 0 has 3
 * parts, 310 instructions, 2480 bytes loaded, spans [0, 0.2] and reads
 * 800 / 0.1 + 80 / 0.05 + 1600 / 0.1 B/s; interval 1 has 2 parts, 120
 * instructions, spans [0.1, 0.25] and writes 200 / 0.1 + 280 / 0.15 B/s. */
static void test_intervals(void) {
  json_object *p0[] = {interval(0, 0, 0.1, 100), interval(0, 0.1, 0.2, 50),
                       interval(1, 0.15, 0.2, 10)};
  json_object *p1[] = {interval(0, 0.1, 0.25, 70), interval(0, 0, 0.1, 200)};
  json_object *r0 = with_list(raw_rank(0, 2, 1, 16), "intervals", p0, 3);
  json_object *r1 = with_list(raw_rank(1, 2, 0, 24), "intervals", p1, 2);
  json_object *doc = job_of(r1, r0);
  if (!doc)
    return;
  /* Kept: rank 0's three, then rank 1's two, each thread's by start. */
  EXPECT_EQ(json_object_array_length(json_object_object_get(doc, "intervals")),
            5);
  EXPECT_EQ(at(doc, "intervals/0/rank"), 0);
  EXPECT_EQ(at(doc, "intervals/2/thread"), 1);
  EXPECT_EQ(at(doc, "intervals/3/rank"), 1);
  EXPECT_EQ(at(doc, "intervals/3/instructions"), 200);
  EXPECT_EQ(at(doc, "intervals/4/instructions"), 70);
  /* The job's series. */
  EXPECT_EQ(json_object_array_length(json_at(doc, "mpi/intervals")), 2);
  EXPECT_EQ(at(doc, "mpi/intervals/0/index"), 0);
  EXPECT_EQ(at(doc, "mpi/intervals/0/parts"), 3);
  EXPECT_EQ(at(doc, "mpi/intervals/0/instructions"), 310);
  EXPECT_EQ(at(doc, "mpi/intervals/0/bytes_loaded"), 2480);
  EXPECT_EQ(at(doc, "mpi/intervals/0/bytes_stored"), 1240);
  EXPECT_EQ(at(doc, "mpi/intervals/0/categories/memory"), 10 + 1 + 20);
  EXPECT_EQ(at(doc, "mpi/intervals/0/categories/int"), 90 + 9 + 180);
  EXPECT_EQ(at(doc, "mpi/intervals/0/start"), 0);
  EXPECT(near(at(doc, "mpi/intervals/0/end"), 0.2));
  EXPECT(near(at(doc, "mpi/intervals/0/read_bytes_per_second"),
              800 / 0.1 + 80 / 0.05 + 1600 / 0.1));
  EXPECT_EQ(at(doc, "mpi/intervals/1/parts"), 2);
  EXPECT_EQ(at(doc, "mpi/intervals/1/instructions"), 120);
  EXPECT(near(at(doc, "mpi/intervals/1/start"), 0.1));
  EXPECT(near(at(doc, "mpi/intervals/1/end"), 0.25));
  EXPECT(near(at(doc, "mpi/intervals/1/write_bytes_per_second"),
              200 / 0.1 + 280 / 0.15));
  json_object_put(doc);
  json_object_put(r0);
  json_object_put(r1);
}

/* Counts add exactly up to 2^64 - 1 (beyond 2^63 too); one more is an
 * error, not a wrapped or clamped count (issue 15 item 11). */
static void test_count_overflow(void) {
  json_object *a = json_tokener_parse(
      "{\"instructions\": 9223372036854775808, \"reuse\": [1, 2]}");
  json_object *b = json_tokener_parse(
      "{\"instructions\": 9223372036854775807, \"reuse\": [3]}");
  json_object *one = json_tokener_parse("{\"instructions\": 1}");
  EXPECT(pisa_metrics_merge(a, b) == 0);
  EXPECT(json_object_get_uint64(json_object_object_get(a, "instructions")) ==
         UINT64_MAX);
  EXPECT_EQ(at(a, "reuse/0"), 4);
  EXPECT(pisa_metrics_merge(a, one) == -1);
  json_object_put(a);
  json_object_put(b);
  json_object_put(one);
}

/* A rank must be below its job's size, and a job at most 4096 ranks: the
 * communication matrix has size^2 cells. */
static void test_rank_bounds(void) {
  struct pisa_rank_merge m;
  json_object *big = raw_rank(0, 4097, 1, 8), *outside = raw_rank(3, 2, 0, 8);
  pisa_rank_merge_init(&m, 0);
  EXPECT(pisa_rank_merge_add(&m, big) != 0);
  EXPECT(strstr(m.err, "at most 4096 ranks") != NULL);
  EXPECT(pisa_rank_merge_add(&m, outside) != 0);
  EXPECT(strstr(m.err, "rank 3 of a job of 2 ranks") != NULL);
  json_object_put(m.doc);
  json_object_put(big);
  json_object_put(outside);
}

/* JSON integer v, or null when v < 0. */
static json_object *int_or_null(int v) {
  return v < 0 ? NULL : json_object_new_int(v);
}

/* A loop entry of module m.c: function `fn`, source lines [line, last],
 * its nest (parent < 0: none), and its counts. */
static json_object *loop(int id, int parent, int depth, const char *fn,
                         int line, int last, int iterations, int entries) {
  json_object *l = json_object_new_object(), *mem = json_object_new_object();
  json_object_object_add(l, "id", json_object_new_int(id));
  json_object_object_add(l, "parent", int_or_null(parent));
  json_object_object_add(l, "depth", json_object_new_int(depth));
  json_object_object_add(l, "function", json_object_new_string(fn));
  json_object_object_add(l, "linkage_name", json_object_new_string(fn));
  json_object_object_add(l, "module", json_object_new_string("m.c"));
  json_object_object_add(l, "file", json_object_new_string("m.c"));
  json_object_object_add(l, "line", json_object_new_int(line));
  json_object_object_add(l, "last_line", json_object_new_int(last));
  json_object_object_add(l, "iterations", json_object_new_int(iterations));
  json_object_object_add(l, "entries", int_or_null(entries));
  json_object_object_add(l, "instructions",
                         json_object_new_int(10 * iterations));
  json_object_object_add(mem, "loads", json_object_new_int(iterations));
  json_object_object_add(l, "memory_accesses", mem);
  return l;
}

static json_object *loop_at(json_object *doc, int id) {
  json_object *loops = json_at(doc, "loops");
  for (size_t i = 0; i < json_object_array_length(loops); i++)
    if (at(json_object_array_get_idx(loops, i), "id") == id)
      return json_object_array_get_idx(loops, i);
  return NULL;
}

static json_object *doc_of(const char *list, json_object *const *entries,
                           int n) {
  return with_list(json_object_new_object(), list, entries, n);
}

/* Loops of two images or ranks (metricsmerge.h): the same loop (source,
 * function, depth, the loop around it) adds its counts whatever its id in
 * each part; a loop only one part has keeps its nest under new ids. */
static void test_loops_merge(void) {
  json_object *into_loops[] = {loop(0, -1, 1, "f", 10, 20, 5, 1),
                               loop(1, 0, 2, "f", 12, 14, 25, 5),
                               loop(2, -1, 1, "g", 30, 31, 4, -1)};
  /* the other part numbers the same nest 5 and 6, has a new inner loop of
   * f's (line 16) and a new nest in h, and g's loop with entries known; a
   * loop at f's 12-14 at depth 1 is another loop (other nest) */
  json_object *from_loops[] = {
      loop(5, -1, 1, "f", 10, 20, 3, 1), loop(6, 5, 2, "f", 12, 14, 9, 3),
      loop(7, 5, 2, "f", 16, 18, 6, 3),  loop(8, -1, 1, "h", 40, 50, 2, 1),
      loop(9, 8, 2, "h", 41, 45, 8, 2),  loop(10, -1, 1, "g", 30, 31, 6, 6),
      loop(11, -1, 1, "f", 12, 14, 1, 1)};
  json_object *into = doc_of("loops", into_loops, 3);
  json_object *from = doc_of("loops", from_loops, 7);
  EXPECT(pisa_source_merge(into, from) == 0);
  EXPECT_EQ(json_object_array_length(json_at(into, "loops")), 3 + 4);
  EXPECT_EQ(at(loop_at(into, 0), "iterations"), 5 + 3);
  EXPECT_EQ(at(loop_at(into, 0), "entries"), 1 + 1);
  EXPECT_EQ(at(loop_at(into, 0), "instructions"), 80);
  EXPECT_EQ(at(loop_at(into, 0), "memory_accesses/loads"), 8);
  EXPECT_EQ(at(loop_at(into, 0), "line"), 10); /* identity is not added */
  EXPECT_EQ(at(loop_at(into, 1), "iterations"), 25 + 9);
  EXPECT_EQ(at(loop_at(into, 1), "parent"), 0);
  EXPECT(json_at(loop_at(into, 2), "entries") == NULL); /* unknown in one */
  EXPECT_EQ(at(loop_at(into, 2), "iterations"), 10);
  /* new loops in from's order, after into's largest id (2) */
  EXPECT_EQ(at(loop_at(into, 3), "line"), 16);
  EXPECT_EQ(at(loop_at(into, 3), "parent"), 0);
  EXPECT_EQ(at(loop_at(into, 4), "line"), 40);
  EXPECT(json_at(loop_at(into, 4), "parent") == NULL);
  EXPECT_EQ(at(loop_at(into, 5), "parent"), 4);
  EXPECT_EQ(at(loop_at(into, 5), "iterations"), 8);
  EXPECT_EQ(at(loop_at(into, 6), "line"), 12);
  EXPECT_EQ(at(loop_at(into, 6), "depth"), 1);
  EXPECT_EQ(at(loop_at(into, 6), "iterations"), 1);
  EXPECT(!strcmp(json_object_get_string(json_at(loop_at(into, 6), "function")),
                 "f"));
  /* the input is not changed */
  EXPECT_EQ(json_object_array_length(json_at(from, "loops")), 7);
  EXPECT_EQ(at(json_object_array_get_idx(json_at(from, "loops"), 0), "id"), 5);
  json_object_put(into);
  json_object_put(from);
}

/* A loop inlined twice into one function has one identity twice: the
 * n-th copy of one part merges with the n-th of the other. */
static void test_loops_twice(void) {
  json_object *a[] = {loop(0, -1, 1, "f", 5, 6, 1, 1),
                      loop(1, -1, 1, "f", 5, 6, 10, 1)};
  json_object *b[] = {loop(0, -1, 1, "f", 5, 6, 2, 1),
                      loop(1, -1, 1, "f", 5, 6, 20, 1)};
  json_object *into = doc_of("loops", a, 2), *from = doc_of("loops", b, 2);
  EXPECT(pisa_source_merge(into, from) == 0);
  EXPECT_EQ(json_object_array_length(json_at(into, "loops")), 2);
  EXPECT_EQ(at(loop_at(into, 0), "iterations"), 1 + 2);
  EXPECT_EQ(at(loop_at(into, 1), "iterations"), 10 + 20);
  json_object_put(into);
  json_object_put(from);
}

/* Adds loop l's footprint (bytes, 64-byte blocks), entropy H_0 and H_6
 * over `refs` references, and ILP at the unlimited window. */
static void loop_space(json_object *l, int bytes, double h0, double h6,
                       int refs, double ilp) {
  char text[512];
  snprintf(text, sizeof text,
           "{\"footprint\": {\"bytes\": %d, \"blocks\": {\"64\": %d}}, "
           "\"memory_entropy\": [%.1f, %.1f], \"ilp\": [{\"window\": 0, "
           "\"ilp\": %.1f, \"categories\": {}, \"opcodes\": {}}]}",
           bytes, bytes / 64, h0, h6, ilp);
  json_object *extra = json_tokener_parse(text);
  json_object_object_foreach(extra, key, value)
      json_object_object_add(l, key, json_object_get(value));
  json_object_put(extra);
  json_object_object_add(json_at(l, "memory_accesses"), "references",
                         json_object_new_int(refs));
}

/* A loop's footprint, entropy and ILP in two ranks (disjoint address
 * spaces, as for a function): footprints add (4096 + 8192 bytes, 64 + 128
 * lines); the entropy is that of the union of the two streams, H = p H_a +
 * (1 - p) H_b + H(p) with p = 1024 / (1024 + 3072) = 1/4 of the
 * references, H(1/4) = 2/4 + 3/4 log2(4/3); the ILP is weighted by
 * instructions (50 and 150): (2 * 50 + 4 * 150) / 200 = 3.5. */
static void test_loops_space_merge(void) {
  json_object *a[] = {loop(0, -1, 1, "f", 10, 20, 5, 1)};
  json_object *b[] = {loop(0, -1, 1, "f", 10, 20, 15, 1)};
  loop_space(a[0], 4096, 10, 4, 1024, 2);
  loop_space(b[0], 8192, 11, 5, 3072, 4);
  json_object *into = doc_of("loops", a, 1), *from = doc_of("loops", b, 1);
  EXPECT(pisa_source_merge(into, from) == 0);
  json_object *l = loop_at(into, 0);
  double mix = 0.5 + 0.75 * log2(4.0 / 3);
  EXPECT_EQ(at(l, "footprint/bytes"), 12288);
  EXPECT_EQ(at(l, "footprint/blocks/64"), 192);
  EXPECT_EQ(at(l, "memory_accesses/references"), 4096);
  EXPECT(near(at(l, "memory_entropy/0"), 0.25 * 10 + 0.75 * 11 + mix));
  EXPECT(near(at(l, "memory_entropy/1"), 0.25 * 4 + 0.75 * 5 + mix));
  EXPECT(near(at(l, "ilp/0/ilp"), 3.5));
  json_object_put(into);
  json_object_put(from);
}

static json_object *line(const char *file, int line, int loads) {
  char text[256];
  snprintf(text, sizeof text,
           "{\"file\": \"%s\", \"line\": %d, \"instructions\": %d, "
           "\"accesses\": %d, \"loads\": %d, \"stores\": 0}",
           file, line, 3 * loads, loads, loads);
  return json_tokener_parse(text);
}

/* Lines match by file and line, add, and stay sorted by both. */
static void test_lines_merge(void) {
  json_object *a[] = {line("a.c", 3, 1), line("a.c", 10, 2), line("b.c", 1, 4)};
  json_object *b[] = {line("a.c", 5, 8), line("a.c", 10, 16),
                      line("c.c", 2, 32)};
  json_object *into = doc_of("lines", a, 3), *from = doc_of("lines", b, 3);
  json_object *none = json_object_new_object();
  EXPECT(pisa_source_merge(into, from) == 0);
  EXPECT(pisa_source_merge(into, none) == 0);
  json_object *lines = json_at(into, "lines");
  static const char *const File[] = {"a.c", "a.c", "a.c", "b.c", "c.c"};
  static const int Line[] = {3, 5, 10, 1, 2}, Loads[] = {1, 8, 18, 4, 32};
  EXPECT_EQ(json_object_array_length(lines), 5);
  for (size_t i = 0; i < 5 && i < json_object_array_length(lines); i++) {
    json_object *l = json_object_array_get_idx(lines, i);
    EXPECT(!strcmp(json_object_get_string(json_at(l, "file")), File[i]));
    EXPECT_EQ(at(l, "line"), Line[i]);
    EXPECT_EQ(at(l, "loads"), Loads[i]);
    EXPECT_EQ(at(l, "instructions"), 3 * Loads[i]);
  }
  /* a result without lines or loops gets the other's */
  EXPECT(pisa_source_merge(none, into) == 0);
  EXPECT_EQ(json_object_array_length(json_at(none, "lines")), 5);
  json_object_put(into);
  json_object_put(from);
  json_object_put(none);
}

/* Functions of two ranks: counts add, their source line does not (it was
 * summed before metricsmerge.c). */
static void test_entries_keep_identity(void) {
  static const char *const Keys[] = {"linkage_name", "module", NULL};
  json_object *a = json_tokener_parse(
      "[{\"name\": \"f\", \"linkage_name\": \"f\", \"module\": \"m.c\", "
      "\"file\": \"m.c\", \"line\": 10, \"instructions\": 7}]");
  json_object *b = json_tokener_parse(
      "[{\"name\": \"f\", \"linkage_name\": \"f\", \"module\": \"m.c\", "
      "\"file\": \"m.c\", \"line\": 10, \"instructions\": 5}, "
      "{\"name\": \"g\", \"linkage_name\": \"g\", \"module\": \"m.c\", "
      "\"file\": \"m.c\", \"line\": 30, \"instructions\": 1}]");
  EXPECT(pisa_entries_merge(a, b, Keys) == 0);
  EXPECT_EQ(json_object_array_length(a), 2);
  EXPECT_EQ(at(json_object_array_get_idx(a, 0), "line"), 10);
  EXPECT_EQ(at(json_object_array_get_idx(a, 0), "instructions"), 12);
  EXPECT_EQ(at(json_object_array_get_idx(a, 1), "line"), 30);
  json_object_put(a);
  json_object_put(b);
}

/* ---- Data objects (objectmerge.h) ---------------------------------------- */

/* A heap object of site a.c:LINE (malloc) as the runtime writes it: `cold`
 * cold references, `far` references in reuse bin 7 (distances [64, 128)
 * lines) and the rest at distance 0; its miss ratios at 32 KiB (512 lines:
 * only the cold references miss) and 6 KiB (96 lines: half of bin 7 is
 * counted a miss, between the bounds of bin 7 all hits and all misses).
 * last < 0: never released. */
static json_object *heap(int line, int allocations, int bytes, int peak,
                         int first, int last, int loads, int stores, int cold,
                         int far, const char *functions) {
  int n = loads + stores;
  char last_free[16], text[2048];
  snprintf(last_free, sizeof last_free, last < 0 ? "null" : "%d", last);
  snprintf(
      text, sizeof text,
      "{\"kind\": \"heap\", \"name\": \"malloc\", \"site\": [{\"file\": "
      "\"a.c\", \"line\": %d}], \"allocations\": %d, \"frees\": %d, "
      "\"bytes_allocated\": %d, \"peak_live_bytes\": %d, "
      "\"first_allocation\": %d, \"last_free\": %s, \"accesses\": %d, "
      "\"loads\": %d, \"stores\": %d, \"bytes_loaded\": %d, "
      "\"bytes_stored\": %d, \"footprint_bytes\": %d, \"access_classes\": "
      "{\"irregular\": {\"accesses\": 0}, \"strided\": {\"accesses\": %d}, "
      "\"constant\": {\"accesses\": 0}}, \"reuse_distance\": "
      "[{\"line_bytes\": 64, \"cold\": %d, \"bins\": [%d, 0, 0, 0, 0, 0, 0, "
      "%d]}], \"miss_ratio\": [{\"cache_bytes\": 32768, \"line_bytes\": 64, "
      "\"ratio\": %.17g, \"cold\": %.17g}, {\"cache_bytes\": 6144, "
      "\"line_bytes\": 64, \"ratio\": %.17g, \"cold\": %.17g, "
      "\"approximate\": true, \"bound\": {\"ratio_low\": %.17g, "
      "\"ratio_high\": %.17g}}], \"functions\": %s}",
      line, allocations, last < 0 ? 0 : allocations, bytes, peak, first,
      last_free, n, loads, stores, 8 * loads, 8 * stores, 64 * cold, n, cold,
      n - cold - far, far, (double)cold / n, (double)cold / n,
      (cold + 0.5 * far) / n, (double)cold / n, (double)cold / n,
      (double)(cold + far) / n, functions);
  return json_tokener_parse(text);
}

/* A stack or unknown object with `n` loads and no reuse family. */
static json_object *plain_object(const char *kind, int thread, int n) {
  char text[512];
  snprintf(text, sizeof text,
           "{\"kind\": \"%s\", \"name\": \"%s\", %s\"accesses\": %d, "
           "\"loads\": %d, \"stores\": 0, \"bytes_loaded\": %d, "
           "\"bytes_stored\": 0, \"footprint_bytes\": 64, "
           "\"access_classes\": {\"irregular\": {\"accesses\": %d}, "
           "\"strided\": {\"accesses\": 0}, \"constant\": {\"accesses\": 0}}, "
           "\"functions\": []}",
           kind, kind, thread < 0 ? "" : "\"thread\": 0, \"size\": 8192, ", n,
           n, 8 * n, n);
  json_object *o = json_tokener_parse(text);
  if (thread >= 0)
    json_object_object_add(o, "thread", json_object_new_int(thread));
  return o;
}

/* The merged object at site a.c:LINE, or NULL. */
static json_object *site_object(json_object *doc, int line) {
  json_object *list = json_at(doc, "objects");
  for (size_t i = 0; list && i < json_object_array_length(list); i++) {
    json_object *o = json_object_array_get_idx(list, i);
    if (json_at(o, "site") && at(o, "site/0/line") == line)
      return o;
  }
  return NULL;
}

/* Two ranks (rank 1 added first) with one shared allocation site (line
 * 10), one site each (20 in rank 0, 30 in rank 1), a stack each and
 * `unknown` each: three heap objects, one unknown, two stacks.  At line
 * 10: rank 0 allocates 800 bytes once (freed at instruction 900, first at
 * 50) and makes 150 + 50 accesses, 13 cold and 12 in bin 7; rank 1
 * allocates twice, 3200 bytes with a peak of 1600, first at 30, never
 * frees, 450 + 150 accesses, 40 cold and 100 in bin 7.  Merged: 3
 * allocations, 4000 bytes, peak max(800, 1600) (address spaces of their
 * own), first min(50, 30), last 900 (the one release); 800 accesses, 53
 * cold, 112 in bin 7, 635 at distance 0; miss ratio at 32 KiB 53 / 800, at
 * 6 KiB (53 + 112 / 2) / 800 within [53 / 800, 165 / 800]; functions f
 * 120 + 500, h 250, g 80 (below f), in that order. */
static void test_objects_of_ranks(void) {
  json_object *r0 = raw_rank(0, 2, 1, 8), *r1 = raw_rank(1, 2, 0, 8);
  json_object *o0[] = {
      heap(10, 1, 800, 800, 50, 900, 150, 50, 13, 12,
           "[{\"name\": \"f\", \"accesses\": 120}, {\"name\": \"g\", "
           "\"accesses\": 80}]"),
      heap(20, 1, 64, 64, 70, -1, 7, 1, 1, 0, "[]"),
      plain_object("stack", 0, 9), plain_object("unknown", -1, 5)};
  json_object *o1[] = {
      heap(10, 2, 3200, 1600, 30, -1, 450, 150, 40, 100,
           "[{\"name\": \"f\", \"accesses\": 500}, {\"name\": \"h\", "
           "\"accesses\": 250}]"),
      heap(30, 1, 128, 128, 10, 20, 2, 2, 2, 0, "[]"),
      plain_object("stack", 0, 4), plain_object("unknown", -1, 6)};
  /* The shared site's entropy: rank 0's 200 accesses fall on 8 addresses
   * equally (H_0 = 3; one bit cut, 4 pairs: H_1 = 2), rank 1's 600 on 24
   * others (log2 24, log2 12). The union (other address spaces) is 32
   * addresses of 25 accesses each, H_0 = 5, and 16 pairs, H_1 = 4. */
  json_object_object_add(o0[0], "memory_entropy",
                         json_tokener_parse("[3.0, 2.0]"));
  json_object *h1 = json_object_new_array();
  json_object_array_add(h1, json_object_new_double(log2(24)));
  json_object_array_add(h1, json_object_new_double(log2(12)));
  json_object_object_add(o1[0], "memory_entropy", h1);
  /* Its loops, matched by function, file, line and depth: f's loop at
   * a.c:5 in both ranks (120 + 300), h's only in rank 1. */
  json_object_object_add(
      o0[0], "loops",
      json_tokener_parse("[{\"function\": \"f\", \"file\": \"a.c\", "
                         "\"line\": 5, \"depth\": 1, \"accesses\": 120}]"));
  json_object_object_add(
      o1[0], "loops",
      json_tokener_parse("[{\"function\": \"h\", \"file\": \"a.c\", "
                         "\"line\": 9, \"depth\": 2, \"accesses\": 250}, "
                         "{\"function\": \"f\", \"file\": \"a.c\", "
                         "\"line\": 5, \"depth\": 1, \"accesses\": 300}]"));
  json_object *doc =
      job_of(with_list(r1, "objects", o1, 4), with_list(r0, "objects", o0, 4));
  if (!doc)
    return;
  json_object *objects = json_at(doc, "objects"),
              *shared = site_object(doc, 10);
  EXPECT_EQ(json_object_array_length(json_at(shared, "loops")), 2);
  EXPECT_EQ(at(shared, "loops/0/line"), 5);
  EXPECT_EQ(at(shared, "loops/0/accesses"), 420);
  EXPECT_EQ(at(shared, "loops/1/line"), 9);
  EXPECT_EQ(at(shared, "loops/1/accesses"), 250);
  EXPECT(near(at(shared, "memory_entropy/0"), 5));
  EXPECT(near(at(shared, "memory_entropy/1"), 4));
  EXPECT_EQ(json_object_array_length(objects), 3 + 1 + 2);
  EXPECT(shared == json_object_array_get_idx(objects, 0)); /* most accesses */
  EXPECT_EQ(at(shared, "allocations"), 3);
  EXPECT_EQ(at(shared, "frees"), 1);
  EXPECT_EQ(at(shared, "bytes_allocated"), 4000);
  EXPECT_EQ(at(shared, "peak_live_bytes"), 1600);
  EXPECT_EQ(at(shared, "first_allocation"), 30);
  EXPECT_EQ(at(shared, "last_free"), 900);
  EXPECT_EQ(at(shared, "accesses"), 800);
  EXPECT_EQ(at(shared, "loads"), 600);
  EXPECT_EQ(at(shared, "stores"), 200);
  EXPECT_EQ(at(shared, "bytes_loaded"), 4800);
  EXPECT_EQ(at(shared, "footprint_bytes"), 64 * 53);
  EXPECT_EQ(at(shared, "access_classes/strided/accesses"), 800);
  EXPECT_EQ(at(shared, "reuse_distance/0/cold"), 53);
  EXPECT_EQ(at(shared, "reuse_distance/0/bins/0"), 635);
  EXPECT_EQ(at(shared, "reuse_distance/0/bins/7"), 112);
  EXPECT(near(at(shared, "miss_ratio/0/ratio"), 53.0 / 800));
  EXPECT(value_at(shared, "miss_ratio/0/bound") == NULL);
  EXPECT(near(at(shared, "miss_ratio/1/ratio"), (53 + 56.0) / 800));
  EXPECT(near(at(shared, "miss_ratio/1/cold"), 53.0 / 800));
  EXPECT(near(at(shared, "miss_ratio/1/bound/ratio_low"), 53.0 / 800));
  EXPECT(near(at(shared, "miss_ratio/1/bound/ratio_high"), 165.0 / 800));
  EXPECT_EQ(json_object_array_length(json_at(shared, "functions")), 3);
  EXPECT(!strcmp(json_object_get_string(value_at(shared, "functions/0/name")),
                 "f"));
  EXPECT_EQ(at(shared, "functions/0/accesses"), 620);
  EXPECT_EQ(at(shared, "functions/1/accesses"), 250);
  EXPECT_EQ(at(shared, "functions/2/accesses"), 80);
  /* the sites of one rank each, as they were */
  EXPECT_EQ(at(site_object(doc, 20), "accesses"), 8);
  EXPECT(json_at(site_object(doc, 20), "last_free") == NULL);
  EXPECT_EQ(at(site_object(doc, 30), "accesses"), 4);
  EXPECT_EQ(at(site_object(doc, 30), "last_free"), 20);
  /* one unknown (5 + 6 accesses); a stack per rank, on its thread: rank 0's
   * (9 accesses) is thread 0 of the sorted threads, rank 1's thread 1 */
  EXPECT_EQ(at(objects, "1/accesses"), 11);
  EXPECT(
      !strcmp(json_object_get_string(value_at(objects, "1/kind")), "unknown"));
  EXPECT_EQ(at(objects, "2/accesses"), 9);
  EXPECT_EQ(at(objects, "2/thread"), 0);
  EXPECT_EQ(at(objects, "5/accesses"), 4);
  EXPECT_EQ(at(objects, "5/thread"), 1);
  EXPECT_EQ(at(doc, "threads/1/rank"), 1);
  json_object_put(doc);
  json_object_put(r0);
  json_object_put(r1);
}

/* Two images of a process (the earlier one first in time): the earlier
 * image's first allocation (at 500 of its own count) and the later one's
 * last release (at 40, though smaller than the earlier image's 700); a
 * count the merge does not know (7 + 5) adds and a fraction it does not
 * know becomes the mean weighted by accesses ((0.5 * 200 + 0.25 * 600) /
 * 800); a function below the top five after the merge is cut. */
static void test_objects_of_images(void) {
  json_object *later, *earlier;
  json_object *a = heap(10, 1, 64, 64, 20, 40, 150, 50, 13, 12,
                        "[{\"name\": \"f1\", \"accesses\": 60}, {\"name\": "
                        "\"f2\", \"accesses\": 50}, {\"name\": \"f3\", "
                        "\"accesses\": 40}, {\"name\": \"f4\", \"accesses\": "
                        "30}, {\"name\": \"f5\", \"accesses\": 20}]");
  json_object *b = heap(10, 1, 64, 64, 500, 700, 450, 150, 40, 100,
                        "[{\"name\": \"f6\", \"accesses\": 25}]");
  json_object_object_add(a, "future_count", json_object_new_int(7));
  json_object_object_add(b, "future_count", json_object_new_int(5));
  json_object_object_add(a, "future_share", json_object_new_double(0.5));
  json_object_object_add(b, "future_share", json_object_new_double(0.25));
  /* only the earlier image has the entropy family: its entropy is kept */
  json_object_object_add(b, "memory_entropy", json_tokener_parse("[2.5]"));
  later = doc_of("objects", &a, 1);
  earlier = doc_of("objects", &b, 1);
  EXPECT(pisa_objects_merge(later, earlier, PISA_PARTS_SEQUENTIAL) == 0);
  json_object *o = site_object(later, 10);
  EXPECT_EQ(at(o, "first_allocation"), 500);
  EXPECT_EQ(at(o, "last_free"), 40);
  EXPECT_EQ(at(o, "future_count"), 12);
  EXPECT(near(at(o, "memory_entropy/0"), 2.5));
  EXPECT(near(at(o, "future_share"), (0.5 * 200 + 0.25 * 600) / 800));
  EXPECT_EQ(json_object_array_length(json_at(o, "functions")), 5);
  EXPECT_EQ(at(o, "functions/4/accesses"), 25); /* f6 in, f5 (20) out */
  EXPECT_EQ(at(b, "accesses"), 600);            /* the input unchanged */
  json_object_put(later);
  json_object_put(earlier);
}

int main(void) {
  RUN(test_entropy_of_union);
  RUN(test_loops_merge);
  RUN(test_loops_twice);
  RUN(test_loops_space_merge);
  RUN(test_lines_merge);
  RUN(test_entries_keep_identity);
  RUN(test_histograms_and_classes);
  RUN(test_parallelism);
  RUN(test_job);
  RUN(test_intervals);
  RUN(test_count_overflow);
  RUN(test_rank_bounds);
  RUN(test_objects_of_ranks);
  RUN(test_objects_of_images);
  return check_summary();
}
