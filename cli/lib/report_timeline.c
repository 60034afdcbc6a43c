/* report_timeline.c: deep mode's time series of one application in the
 * report, in the manner of the folding and NMO views: footprint growth,
 * miss ratio, memory entropy and ILP per interval of its first thread over
 * the instructions, each interval's point in the colour of its phase. */
#include "docset.h"
#include "html.h"
#include "jsonpath.h"
#include "report_sections.h"
#include "svg.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const struct {
  const char *what, *axis, *path; /* path NULL: the first miss ratio */
} Charts[] = {
    {"footprint growth", "footprint (64-byte lines)", "footprint/lines"},
    {"miss ratio", "miss ratio at the first cache (%)", NULL},
    {"memory entropy", "entropy of 64-byte lines (bits)",
     "memory_entropy/entropy"},
    {"ILP", "ILP (instructions per cycle)", "ilp/ilp"},
};
#define CHARTS (sizeof Charts / sizeof *Charts)

static double chart_value(json_object *e, size_t c) {
  double v;
  json_object *miss = json_at(e, "miss_ratio");
  if (!Charts[c].path)
    return miss && json_object_get_type(miss) == json_type_array &&
                   json_number_at(json_object_array_get_idx(miss, 0), "ratio",
                                  &v)
               ? v
               : NAN;
  return json_number_at(e, Charts[c].path, &v) ? v : NAN;
}

struct timeline {
  json_object **at; /* thread 0's intervals, in order */
  size_t n, phases;
  double *x, *y; /* y: one row of n per phase */
};

/* Thread 0's deep intervals of the document (none in counter mode). */
static void timeline_of(json_object *doc, struct timeline *t) {
  json_object *list = json_at(doc, "intervals");
  json_object *phases = json_at(doc, "phases");
  size_t all = list ? json_object_array_length(list) : 0;
  t->at = xcalloc(all + 1, sizeof *t->at);
  t->n = 0;
  for (size_t i = 0; i < all; i++) {
    json_object *e = json_object_array_get_idx(list, i);
    if (json_at(e, "first_instruction") && json_count_at(e, "thread") == 0 &&
        json_count_at(e, "rank") == 0)
      t->at[t->n++] = e;
  }
  t->phases = phases ? json_object_array_length(phases) : 0;
  t->phases = t->phases ? t->phases : 1;
  t->x = xcalloc(t->n + 1, sizeof *t->x);
  t->y = xcalloc(t->n * t->phases + 1, sizeof *t->y);
}

/* Chart c's series, one per phase; 0 when no interval has its value. */
static int timeline_series(struct timeline *t, size_t c, struct svg_series *s,
                           char (*names)[32]) {
  int any = 0;
  for (size_t p = 0; p < t->phases; p++) {
    snprintf(names[p], sizeof names[p], "phase %zu", p);
    s[p] = (struct svg_series){names[p], t->x, &t->y[p * t->n], t->n, p};
  }
  for (size_t k = 0; k < t->n; k++) {
    double v = chart_value(t->at[k], c);
    size_t phase = (size_t)json_count_at(t->at[k], "phase");
    t->x[k] = json_count_at(t->at[k], "first_instruction");
    for (size_t p = 0; p < t->phases; p++)
      t->y[p * t->n + k] = p == phase ? v : NAN;
    any |= !isnan(v);
  }
  return any;
}

void report_time_series(struct report *r, size_t app) {
  struct timeline t;
  timeline_of(r->set->docs[app].root, &t);
  struct svg_series *s = xcalloc(t.phases, sizeof *s);
  char(*names)[32] = xcalloc(t.phases, sizeof *names);
  if (t.n)
    sb_puts(&r->html, "<div class=\"pair\">\n");
  for (size_t c = 0; t.n && c < CHARTS; c++) {
    if (!timeline_series(&t, c, s, names))
      continue;
    char *caption = xasprintf("%s: %s over the run (thread 0, intervals of "
                              "%.0f instructions, coloured by phase)",
                              r->labels[app], Charts[c].what,
                              json_count_at(t.at[0], "length"));
    struct svg_chart chart = svg_chart_of(
        caption,
        svg_zero_axis("instructions executed before the interval",
                      SVG_LABEL_NUMBER),
        Charts[c].path ? svg_zero_axis(Charts[c].axis, SVG_LABEL_NUMBER)
                       : svg_ratio_axis(Charts[c].axis, SVG_LABEL_PERCENT));
    report_line_figure(r, &chart, SMALL_PLOT, s, t.phases, NULL);
    free(caption);
  }
  if (t.n)
    sb_puts(&r->html, "</div>\n");
  free(s), free(names), free(t.at), free(t.x), free(t.y);
}
