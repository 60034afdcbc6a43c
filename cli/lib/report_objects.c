/* report_objects.c: an application's data objects in the report (deep mode
 * with --objects): its top objects by accesses, where each comes from, its
 * size and lifetime, its traffic and access classes, its miss ratios and
 * the functions and loops that touch it most (docs/report.md, "Data
 * objects"). */
#include "docset.h"
#include "html.h"
#include "jsonpath.h"
#include "numbers.h"
#include "pisa/vocabulary.h"
#include "report_sections.h"

#include <stdint.h>
#include <stdio.h>

/* The objects of a table: the most accessed ones. */
#define REPORT_OBJECTS 20
/* The caches whose miss ratios get a column, at most. */
#define OBJECT_CACHES 8

struct object_table {
  json_object *threads;           /* the document's, for stacks */
  uint64_t caches[OBJECT_CACHES]; /* miss-ratio columns, cache bytes */
  size_t ncaches;
  double accesses; /* of every object */
};

static void open_cell(struct report *r) {
  sb_puts(&r->html, "<td class=\"name\">");
}

/* Where the object comes from: its site chain, innermost first (heap:
 * the allocation and the calls it was inlined into; global: its
 * declaration), a stack's thread, or "-". */
static void origin_cell(struct report *r, const struct object_table *t,
                        json_object *o) {
  json_object *site = json_at(o, "site");
  open_cell(r);
  for (size_t k = 0; site && k < json_object_array_length(site); k++) {
    json_object *frame = json_object_array_get_idx(site, k);
    const char *file = json_object_get_string(json_at(frame, "file"));
    sb_puts(&r->html, k ? " &larr; " : "");
    sb_escaped(&r->html, file ? file : "(no debug info)");
    if (json_at(frame, "line"))
      sb_printf(&r->html, ":%.0f", json_count_at(frame, "line"));
  }
  if (json_at(o, "thread")) {
    json_object *th = json_object_array_get_idx(
        t->threads, (size_t)json_count_at(o, "thread"));
    sb_printf(&r->html, "thread %.0f of rank %.0f", json_count_at(th, "thread"),
              json_count_at(th, "rank"));
  }
  if (!site && !json_at(o, "thread"))
    sb_puts(&r->html, "-");
  sb_puts(&r->html, "</td>");
}

/* Heap: the bytes of all its allocations, how many, and the most live at
 * once; global and stack: their size. */
static void size_cell(struct report *r, json_object *o) {
  char bytes[32], peak[32], count[32];
  double allocations = json_count_at(o, "allocations");
  if (json_at(o, "bytes_allocated"))
    sb_printf(
        &r->html, "<td>%s<br><small>%s allocation%s, peak %s</small></td>",
        format_bytes(bytes, sizeof bytes, json_count_at(o, "bytes_allocated")),
        format_count(count, sizeof count, allocations),
        allocations == 1 ? "" : "s",
        format_bytes(peak, sizeof peak, json_count_at(o, "peak_live_bytes")));
  else if (json_at(o, "size"))
    sb_printf(&r->html, "<td>%s</td>",
              format_bytes(bytes, sizeof bytes, json_count_at(o, "size")));
  else
    sb_puts(&r->html, "<td>-</td>");
}

/* Heap: the instructions (of the allocating and releasing threads) at its
 * first allocation and its last release. */
static void lifetime_cell(struct report *r, json_object *o) {
  char first[32], last[32];
  if (!json_at(o, "first_allocation")) {
    sb_puts(&r->html, "<td>-</td>");
    return;
  }
  format_count(first, sizeof first, json_count_at(o, "first_allocation"));
  if (json_at(o, "last_free"))
    format_count(last, sizeof last, json_count_at(o, "last_free"));
  sb_printf(&r->html, "<td>%s..%s</td>", first,
            json_at(o, "last_free") ? last : "(not freed)");
}

static void traffic_cells(struct report *r, const struct object_table *t,
                          json_object *o) {
  char n[32], loads[32], stores[32], footprint[32];
  double accesses = json_count_at(o, "accesses");
  sb_printf(&r->html,
            "<td>%s<br><small>%.1f%%</small></td><td>%s / %s</td><td>%s</td>",
            format_count(n, sizeof n, accesses),
            t->accesses > 0 ? 100 * accesses / t->accesses : 0.0,
            format_count(loads, sizeof loads, json_count_at(o, "loads")),
            format_count(stores, sizeof stores, json_count_at(o, "stores")),
            format_bytes(footprint, sizeof footprint,
                         json_count_at(o, "footprint_bytes")));
}

/* The classes that made its accesses, with their shares. */
static void classes_cell(struct report *r, json_object *o) {
  static const char *const Classes[] = PISA_ACCESS_CLASS_SHOWN;
  double accesses = json_count_at(o, "accesses");
  int any = 0;
  open_cell(r);
  for (size_t c = 0; c < sizeof Classes / sizeof *Classes; c++) {
    json_object *class = json_at(json_at(o, "access_classes"), Classes[c]);
    double n = json_count_at(class, "accesses");
    if (n > 0 && accesses > 0)
      sb_printf(&r->html, "%s%s %.0f%%", any++ ? ", " : "", Classes[c],
                100 * n / accesses);
  }
  sb_puts(&r->html, any ? "</td>" : "-</td>");
}

static void miss_cells(struct report *r, const struct object_table *t,
                       json_object *o) {
  json_object *list = json_at(o, "miss_ratio");
  for (size_t c = 0; c < t->ncaches; c++) {
    double ratio = -1;
    for (size_t k = 0; list && k < json_object_array_length(list); k++) {
      json_object *e = json_object_array_get_idx(list, k);
      if ((uint64_t)json_count_at(e, "cache_bytes") == t->caches[c])
        ratio = json_count_at(e, "ratio");
    }
    if (ratio < 0)
      sb_puts(&r->html, "<td>n/a</td>");
    else
      sb_printf(&r->html, "<td>%.3f</td>", ratio);
  }
}

/* Its top functions (`name`) or loops (`function`:`line`, a loop's
 * accesses including its inner loops'), one per line with its accesses. */
static void top_cell(struct report *r, json_object *o, const char *list_key,
                     const char *name_key) {
  json_object *list = json_at(o, list_key);
  char n[32];
  open_cell(r);
  for (size_t k = 0; list && k < json_object_array_length(list); k++) {
    json_object *e = json_object_array_get_idx(list, k);
    sb_puts(&r->html, k ? "<br>" : "");
    sb_escaped(&r->html, json_object_get_string(json_at(e, name_key)));
    if (json_at(e, "line"))
      sb_printf(&r->html, ":%.0f", json_count_at(e, "line"));
    sb_printf(&r->html, " <small>%s</small>",
              format_count(n, sizeof n, json_count_at(e, "accesses")));
  }
  sb_puts(&r->html, "</td>");
}

static void object_row(struct report *r, const struct object_table *t,
                       size_t rank, json_object *o) {
  sb_printf(&r->html, "<tr><td>%zu</td>", rank);
  open_cell(r);
  sb_escaped(&r->html, json_object_get_string(json_at(o, "kind")));
  sb_puts(&r->html, "</td>");
  open_cell(r);
  sb_escaped(&r->html, json_object_get_string(json_at(o, "name")));
  sb_puts(&r->html, "</td>");
  origin_cell(r, t, o);
  size_cell(r, o);
  lifetime_cell(r, o);
  traffic_cells(r, t, o);
  classes_cell(r, o);
  miss_cells(r, t, o);
  top_cell(r, o, "functions", "name");
  top_cell(r, o, "loops", "function");
  sb_puts(&r->html, "</tr>\n");
}

/* The accesses of all objects, and the caches of the first object with
 * miss ratios (every object has the same ones). */
static void table_of(json_object *doc, json_object *objects,
                     struct object_table *t) {
  json_object *caches = NULL;
  *t = (struct object_table){.threads = json_at(doc, "threads")};
  for (size_t i = 0; i < json_object_array_length(objects); i++) {
    json_object *o = json_object_array_get_idx(objects, i);
    t->accesses += json_count_at(o, "accesses");
    if (!caches)
      caches = json_at(o, "miss_ratio");
  }
  for (size_t c = 0; caches && c < json_object_array_length(caches) &&
                     t->ncaches < OBJECT_CACHES;
       c++)
    t->caches[t->ncaches++] = (uint64_t)json_count_at(
        json_object_array_get_idx(caches, c), "cache_bytes");
}

static void table_header(struct report *r, const struct object_table *t) {
  char bytes[32];
  sb_puts(&r->html,
          "<table class=\"objects\"><tr><th>#</th><th class=\"name\">kind</th>"
          "<th class=\"name\">name</th>"
          "<th class=\"name\">site (innermost first) or thread</th>"
          "<th>size</th><th>lifetime (instructions)</th>"
          "<th>accesses</th><th>loads / stores</th><th>footprint</th>"
          "<th class=\"name\">access classes</th>");
  for (size_t c = 0; c < t->ncaches; c++)
    sb_printf(&r->html, "<th>miss ratio, %s</th>",
              format_bytes(bytes, sizeof bytes, (double)t->caches[c]));
  sb_puts(&r->html, "<th class=\"name\">functions (accesses)</th>"
                    "<th class=\"name\">loops (accesses)</th></tr>\n");
}

void report_object_table(struct report *r, size_t i) {
  json_object *doc = r->set->docs[i].root, *objects = json_at(doc, "objects");
  size_t n = objects ? json_object_array_length(objects) : 0;
  struct object_table t;
  if (!n)
    return;
  table_of(doc, objects, &t);
  sb_puts(&r->html, "<h4>Data objects</h4>\n");
  table_header(r, &t);
  for (size_t k = 0; k < n && k < REPORT_OBJECTS; k++)
    object_row(r, &t, k + 1, json_object_array_get_idx(objects, k));
  sb_puts(&r->html, "</table>\n");
  sb_printf(&r->html,
            "<p class=\"note\">The %zu objects with the most accesses of %zu, "
            "most first; shares are of all objects' accesses.</p>\n",
            n < REPORT_OBJECTS ? n : (size_t)REPORT_OBJECTS, n);
}
