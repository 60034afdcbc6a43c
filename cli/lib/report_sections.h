/* report_sections.h: the sections of the report, each written into
 * r->html by one of the report_*.c files; report.c puts them in order.
 * Internal to those files. */
#ifndef PISA_CLI_REPORT_SECTIONS_H
#define PISA_CLI_REPORT_SECTIONS_H

#include "report.h"
#include "strbuf.h"
#include "svg.h"

#include <json-c/json.h>
#include <stddef.h>

struct report {
  const struct report_options *o;
  const struct pisa_docset *set;
  const char **labels; /* the applications, in document order */
  struct strbuf html;
};

/* Above this many applications the long lists are folded (html.h): the
 * applications' ranking after its first REPORT_OPEN rows, the documents
 * table and each application's section, so that the page stays short
 * enough to read, and to load, at hundreds of applications. */
#define REPORT_OPEN 40
#define WIDE_PLOT 760.0  /* line charts of every application */
#define SMALL_PLOT 440.0 /* the two charts side by side per application */

/* Whether r's long lists are folded (REPORT_OPEN). */
int report_folded(const struct report *r);
/* The totals of application i. */
json_object *report_totals(const struct report *r, size_t i);

/* A figure captioned with the chart's title: lines `width` pixels wide, or
 * bars over the applications, sorted by the first series, largest first
 * (missing values last); `note` (or NULL) below it. */
void report_line_figure(struct report *r, struct svg_chart *chart, double width,
                        const struct svg_series *s, size_t n, const char *note);
/* A heatmap figure of every application (rows, sorted by column
 * sort_column, largest first; applications without any value left out)
 * against `columns`; values[i * ncolumns + k] for application i (NaN:
 * absent). */
struct heatmap_spec {
  const char *caption;
  const char *const *columns;
  size_t ncolumns, sort_column;
  const char *columns_title, *colour_title, *note;
};
void report_heatmap_figure(struct report *r, const struct heatmap_spec *spec,
                           const double *values);
void report_bar_figure(struct report *r, const struct svg_chart *chart,
                       const struct svg_series *s, size_t n, int stacked,
                       const char *note);

/* report_rank.c: the NMC offload ranking; application i's top functions. */
void report_ranking(struct report *r);
void report_function_table(struct report *r, size_t i);

/* report_plots.c: plots of every application. */
void report_entropy(struct report *r);
void report_locality(struct report *r);
void report_parallelism(struct report *r);
void report_ilp(struct report *r);
void report_mix(struct report *r);

/* report_memory.c: miss-ratio curves; then each application's section. */
void report_miss(struct report *r);
void report_applications(struct report *r);

/* report_objects.c: application i's top data objects (deep mode with
 * --objects); nothing when its document has none. */
void report_object_table(struct report *r, size_t i);

/* report_timeline.c: application i's time series (deep mode's intervals,
 * coloured by phase); nothing without intervals. */
void report_time_series(struct report *r, size_t i);

#endif
