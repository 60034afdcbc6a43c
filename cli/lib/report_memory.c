/* report_memory.c: the report's reuse-distance and miss-ratio plots: the
 * miss-ratio curves of every application, and per application its top
 * functions and data objects, reuse histograms and miss-ratio curves per
 * line size. */
#include "docmetrics.h"
#include "docset.h"
#include "html.h"
#include "jsonpath.h"
#include "report_sections.h"
#include "svg.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- Reuse distance and miss ratio -------------------------------------- */

/* The reuse histograms of a METRICS object (NULL when absent). */
static json_object *reuse_of(json_object *m) {
  json_object *all = json_at(m, "reuse_distance");
  return all && json_object_array_length(all) > 0 ? all : NULL;
}

/* Miss ratio at cache sizes line x 2^j, j = 0..bins, from the histogram of
 * that line size (docset.h's estimate, exact at these sizes). */
static size_t miss_curve(json_object *m, json_object *hist, double *x,
                         double *y, size_t max) {
  unsigned line = (unsigned)json_count_at(hist, "line_bytes");
  size_t bins = json_object_array_length(json_at(hist, "bins")), n = 0;
  for (size_t j = 0; j <= bins && n < max && j < 48; j++) {
    int interpolated = 0;
    double ratio;
    if (!metrics_miss_estimate(m, (uint64_t)line << j, line, &ratio,
                               &interpolated))
      break;
    x[n] = ldexp(line, (int)j), y[n++] = ratio;
  }
  return n;
}

enum { CURVE_MAX = 66 };

static struct svg_chart miss_chart(const char *caption) {
  return svg_chart_of(caption,
                      svg_axis_of("cache capacity (bytes, log2 scale)",
                                  SVG_LOG2, SVG_LABEL_BYTES),
                      svg_ratio_axis("miss ratio (%, cold misses included)",
                                     SVG_LABEL_PERCENT));
}

/* The miss ratio of every application at capacities 1 KiB to 1 GiB: a
 * heatmap, so that 400 applications read as well as 4. */
void report_miss(struct report *r) {
  enum { FIRST = 10, LAST = 30, COLUMNS = LAST - FIRST + 1, SORT = 25 };
  size_t n = r->set->count, with = 0;
  html_section(&r->html, "miss", "Miss-ratio curves");
  const char *caption = "LRU miss ratio against cache capacity, 64-byte lines";
  char names[COLUMNS][16];
  const char *columns[COLUMNS];
  double *values = xcalloc(n * COLUMNS + 1, sizeof *values);
  for (int e = FIRST; e <= LAST; e++)
    columns[e - FIRST] =
        svg_format_pow2_bytes(names[e - FIRST], sizeof names[0], e);
  for (size_t i = 0; i < n; i++) {
    int interpolated = 0, any = 0;
    for (int e = FIRST; e <= LAST; e++) {
      double *v = &values[i * COLUMNS + (size_t)(e - FIRST)];
      if (!metrics_miss_estimate(report_totals(r, i), (uint64_t)1 << e, 64, v,
                                 &interpolated))
        *v = NAN;
      any |= !isnan(*v);
    }
    with += any;
  }
  struct heatmap_spec spec = {
      caption,
      columns,
      COLUMNS,
      SORT - FIRST,
      "columns: cache capacity (a fully associative LRU cache, estimated "
      "from the reuse-distance histogram)",
      "miss ratio (0 to 1, cold misses included)",
      "Applications by their miss ratio at 32 MiB, highest first; each "
      "application's own curves per line size are in its section."};
  if (!with)
    html_figure_absent(&r->html, caption, "reuse_distance at 64-byte lines.");
  else
    report_heatmap_figure(r, &spec, values);
  free(values);
}

static void reuse_histograms(struct report *r, const char *label,
                             json_object *all) {
  size_t nl = json_object_array_length(all), longest = 0;
  struct svg_series *s = xcalloc(nl, sizeof *s);
  char(*names)[32] = xcalloc(nl, sizeof *names);
  struct strbuf cold = {0};
  for (size_t l = 0; l < nl; l++) {
    json_object *bins = json_at(json_object_array_get_idx(all, l), "bins");
    if (json_object_array_length(bins) > longest)
      longest = json_object_array_length(bins);
  }
  double *x = xcalloc(longest + 1, sizeof *x), *y = xcalloc(nl * longest, 8);
  for (size_t b = 0; b < longest; b++)
    x[b] = (double)b;
  for (size_t l = 0; l < nl; l++) {
    json_object *h = json_object_array_get_idx(all, l), *bins;
    bins = json_at(h, "bins");
    double total = json_count_at(h, "cold");
    for (size_t b = 0; b < json_object_array_length(bins); b++)
      total += json_object_get_double(json_object_array_get_idx(bins, b));
    for (size_t b = 0; b < longest; b++)
      y[l * longest + b] =
          b < json_object_array_length(bins) && total > 0
              ? json_object_get_double(json_object_array_get_idx(bins, b)) /
                    total
              : NAN;
    snprintf(names[l], sizeof names[l], "%.0f-byte lines",
             json_count_at(h, "line_bytes"));
    s[l] = (struct svg_series){names[l], x, &y[l * longest], longest, l};
    sb_printf(&cold, "%s%.0f B %.1f%%", l ? ", " : "",
              json_count_at(h, "line_bytes"),
              total > 0 ? 100 * json_count_at(h, "cold") / total : 0.0);
  }
  char *caption = xasprintf("%s: reuse-distance histograms", label);
  char *note = xasprintf("Bin 0 holds distance 0; the bin at d holds "
                         "distances in [d, 2d). Cold (first) references, not "
                         "plotted: %s.",
                         cold.data ? cold.data : "none");
  struct svg_chart chart =
      svg_chart_of(caption,
                   svg_axis_of("reuse distance (distinct lines, log2 bins)",
                               SVG_LINEAR, SVG_LABEL_REUSE_BIN),
                   svg_zero_axis("share of accesses (%)", SVG_LABEL_PERCENT));
  report_line_figure(r, &chart, SMALL_PLOT, s, nl, note);
  free(caption), free(note), free(s), free(names), free(x), free(y);
  sb_free(&cold);
}

static void miss_curves(struct report *r, const char *label, json_object *m,
                        json_object *all) {
  size_t nl = json_object_array_length(all);
  struct svg_series *s = xcalloc(nl, sizeof *s);
  char(*names)[32] = xcalloc(nl, sizeof *names);
  double *x = xcalloc(nl * CURVE_MAX, sizeof *x);
  double *y = xcalloc(nl * CURVE_MAX, sizeof *y);
  for (size_t l = 0; l < nl; l++) {
    json_object *h = json_object_array_get_idx(all, l);
    snprintf(names[l], sizeof names[l], "%.0f-byte lines",
             json_count_at(h, "line_bytes"));
    size_t len =
        miss_curve(m, h, &x[l * CURVE_MAX], &y[l * CURVE_MAX], CURVE_MAX);
    s[l] = (struct svg_series){names[l], &x[l * CURVE_MAX], &y[l * CURVE_MAX],
                               len, l};
  }
  char *caption = xasprintf("%s: miss-ratio curves per line size", label);
  struct svg_chart chart = miss_chart(caption);
  report_line_figure(r, &chart, SMALL_PLOT, s, nl, NULL);
  free(caption), free(s), free(names), free(x), free(y);
}

/* ---- Per application ---------------------------------------------------- */

static void application(struct report *r, size_t i) {
  json_object *m = report_totals(r, i), *all = reuse_of(m);
  char id[32];
  snprintf(id, sizeof id, "app-%zu", i + 1);
  if (report_folded(r)) {
    html_fold_open(&r->html, id, r->labels[i]);
  } else {
    sb_printf(&r->html, "<h3 id=\"%s\">", id);
    sb_escaped(&r->html, r->labels[i]);
    sb_puts(&r->html, "</h3>\n");
  }
  report_function_table(r, i);
  report_object_table(r, i);
  if (all) {
    sb_puts(&r->html, "<div class=\"pair\">\n");
    reuse_histograms(r, r->labels[i], all);
    miss_curves(r, r->labels[i], m, all);
    sb_puts(&r->html, "</div>\n");
  } else {
    html_figure_absent(&r->html, "Reuse distance and miss-ratio curves",
                       "reuse_distance (run with the reuse family).");
  }
  report_time_series(r, i);
  if (report_folded(r))
    html_fold_close(&r->html);
}

void report_applications(struct report *r) {
  html_section(&r->html, "applications", "Per application");
  sb_puts(&r->html, "<p class=\"note\">Functions by instructions executed "
                    "(exclusive of callees), with the metrics of the "
                    "ranking model; for a deep run with --objects, its data "
                    "objects by accesses; then the reuse-distance histograms "
                    "and miss-ratio curves of the whole program and, for a "
                    "deep run with intervals, its time series with its "
                    "phases.</p>\n<nav>");
  for (size_t i = 0; i < r->set->count; i++) {
    sb_printf(&r->html, "<a href=\"#app-%zu\">", i + 1);
    sb_escaped(&r->html, r->labels[i]);
    sb_puts(&r->html, "</a> ");
  }
  sb_puts(&r->html, "</nav>\n");
  for (size_t i = 0; i < r->set->count; i++)
    application(r, i);
}
