/* report_plots.c: the report's plots of every application: memory
 * entropy (PISA-NMC figure 4a), spatial locality (4b), parallelism (4c),
 * ILP per instruction window and the instruction mix. */
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

/* ---- Figure 4a: memory entropy ------------------------------------------ */

static size_t entropy_length(json_object *m) {
  json_object *h = json_at(m, "memory_entropy");
  return h ? json_object_array_length(h) : 0;
}

void report_entropy(struct report *r) {
  size_t n = r->set->count, longest = 0, with = 0;
  for (size_t i = 0; i < n; i++) {
    size_t len = entropy_length(report_totals(r, i));
    longest = len > longest ? len : longest;
    with += len > 0;
  }
  html_section(&r->html, "entropy", "Memory entropy (PISA-NMC figure 4a)");
  const char *caption = "Memory entropy against low address bits cut";
  if (!with) {
    html_figure_absent(&r->html, caption,
                       "memory_entropy (run with the entropy family).");
    return;
  }
  struct svg_series *s = xcalloc(n, sizeof *s);
  double *xs = xcalloc(longest, sizeof *xs), *ys = xcalloc(n * longest, 8);
  for (size_t k = 0; k < longest; k++)
    xs[k] = (double)k;
  for (size_t i = 0; i < n; i++) {
    s[i] = (struct svg_series){r->labels[i], xs, &ys[i * longest], 0, i};
    for (size_t k = 0; k < longest; k++)
      if (!metrics_entropy(report_totals(r, i), (int)k, &ys[i * longest + k]))
        ys[i * longest + k] = NAN;
    s[i].n = longest;
  }
  struct svg_chart chart = svg_chart_of(
      caption,
      svg_axis_of("low address bits cut (k: 2^k-byte granularity)", SVG_LINEAR,
                  SVG_LABEL_NUMBER),
      svg_zero_axis("memory entropy H_k (bits)", SVG_LABEL_NUMBER));
  report_line_figure(r, &chart, WIDE_PLOT, s, n,
                     with < n ? "An application without a line has no "
                                "memory_entropy in its document."
                              : NULL);
  free(s), free(xs), free(ys);
}

/* ---- Bar charts per application ----------------------------------------- */

struct metric_ref {
  const char *name, *path;
};

/* Fills values[k * n + i] with metric k of application i (NaN if absent);
 * returns how many (application, metric) values exist. */
static size_t gather(const struct report *r, const struct metric_ref *m,
                     size_t nm, double *values) {
  size_t n = r->set->count, found = 0;
  for (size_t k = 0; k < nm; k++)
    for (size_t i = 0; i < n; i++) {
      double v;
      int ok = json_number_at(report_totals(r, i), m[k].path, &v);
      values[k * n + i] = ok ? v : NAN;
      found += ok;
    }
  return found;
}

static void bars(struct report *r, const struct svg_chart *chart,
                 const struct metric_ref *m, size_t nm, const double *values,
                 int stacked, const char *note) {
  size_t n = r->set->count;
  struct svg_series *s = xcalloc(nm, sizeof *s);
  for (size_t k = 0; k < nm; k++)
    s[k] = (struct svg_series){m[k].name, NULL, &values[k * n], n, k};
  report_bar_figure(r, chart, s, nm, stacked, note);
  free(s);
}

/* A note when some applications lack a metric that others have. */
static const char *partial_note(size_t found, size_t expected) {
  return found < expected ? "n/a: not in that application's document." : NULL;
}

void report_locality(struct report *r) {
  static const struct metric_ref m[] = {
      {"SLQ (PISA-NMC)", "spatial_locality/score"},
      {"strict SLQ", "spatial_locality/score_strict"},
  };
  size_t n = r->set->count;
  double *v = xcalloc(2 * n, sizeof *v);
  size_t found = gather(r, m, 2, v);
  html_section(&r->html, "locality", "Spatial locality (PISA-NMC figure 4b)");
  const char *caption = "Spatial locality score per application";
  struct svg_chart chart = svg_chart_of(
      caption, svg_axis_of("application", SVG_LINEAR, SVG_LABEL_NUMBER),
      svg_ratio_axis("spatial locality score (0 to 1)", SVG_LABEL_NUMBER));
  if (!found)
    html_figure_absent(&r->html, caption,
                       "spatial_locality (run with the locality family).");
  else
    bars(r, &chart, m, 2, v, 0, partial_note(found, 2 * n));
  free(v);
}

void report_parallelism(struct report *r) {
  static const struct metric_ref m[] = {
      {"DLP1", "dlp/dlp1"},    {"DLP2", "dlp/dlp2"},
      {"BBLP", "bblp/bblp"},   {"smart BBLP", "bblp/bblp_smart"},
      {"PBBLP", "bblp/pbblp"},
  };
  size_t n = r->set->count, nm = sizeof m / sizeof *m;
  double *v = xcalloc(nm * n, sizeof *v);
  size_t found = gather(r, m, nm, v);
  html_section(&r->html, "parallelism", "Parallelism (PISA-NMC figure 4c)");
  const char *caption = "DLP, BBLP and PBBLP per application";
  struct svg_chart chart = svg_chart_of(
      caption, svg_axis_of("application", SVG_LINEAR, SVG_LABEL_NUMBER),
      svg_axis_of("parallelism (instructions per cycle, log2 scale)", SVG_LOG2,
                  SVG_LABEL_NUMBER));
  if (!found)
    html_figure_absent(
        &r->html, caption,
        "dlp and bblp (the parallelism families: dlp1, dlp2, bblp, "
        "bblp_smart, pbblp).");
  else
    bars(r, &chart, m, nm, v, 0, partial_note(found, nm * n));
  free(v);
}

/* The ILP of application i at window w, or NaN. */
static double ilp_at(json_object *m, long window) {
  json_object *all = json_at(m, "ilp");
  for (size_t j = 0; all && j < json_object_array_length(all); j++) {
    json_object *e = json_object_array_get_idx(all, j);
    double w, v;
    if (json_number_at(e, "window", &w) && (long)w == window &&
        json_number_at(e, "ilp", &v))
      return v;
  }
  return NAN;
}

/* The distinct windows of all documents, unlimited (0) first. */
static size_t ilp_windows(const struct report *r, long *windows, size_t max) {
  size_t count = 0;
  for (size_t i = 0; i < r->set->count; i++) {
    json_object *all = json_at(report_totals(r, i), "ilp");
    for (size_t j = 0; all && j < json_object_array_length(all); j++) {
      long w = (long)json_count_at(json_object_array_get_idx(all, j), "window");
      size_t k = 0;
      while (k < count && windows[k] != w)
        k++;
      if (k == count && count < max)
        windows[count++] = w;
    }
  }
  for (size_t a = 1; a < count; a++) /* insertion sort, 0 first */
    for (size_t b = a; b > 0 && windows[b] < windows[b - 1]; b--) {
      long t = windows[b];
      windows[b] = windows[b - 1], windows[b - 1] = t;
    }
  return count;
}

void report_ilp(struct report *r) {
  enum { MAX_WINDOWS = 8 };
  long windows[MAX_WINDOWS];
  size_t nw = ilp_windows(r, windows, MAX_WINDOWS), n = r->set->count;
  const char *caption = "ILP per application and instruction window";
  if (!nw) {
    html_figure_absent(&r->html, caption, "ilp (the ILP schedules).");
    return;
  }
  struct svg_series s[MAX_WINDOWS];
  char names[MAX_WINDOWS][48];
  double *v = xcalloc(nw * n, sizeof *v);
  size_t found = 0;
  for (size_t k = 0; k < nw; k++) {
    if (windows[k] == 0)
      snprintf(names[k], sizeof names[k], "ILP, unlimited window");
    else
      snprintf(names[k], sizeof names[k], "ILP, window %ld", windows[k]);
    for (size_t i = 0; i < n; i++)
      found += !isnan(v[k * n + i] = ilp_at(report_totals(r, i), windows[k]));
    s[k] = (struct svg_series){names[k], NULL, &v[k * n], n, 5 + k};
  }
  struct svg_chart chart = svg_chart_of(
      caption, svg_axis_of("application", SVG_LINEAR, SVG_LABEL_NUMBER),
      svg_axis_of("ILP (instructions per cycle, log2 scale)", SVG_LOG2,
                  SVG_LABEL_NUMBER));
  report_bar_figure(r, &chart, s, nw, 0, partial_note(found, nw * n));
  free(v);
}

/* ---- Instruction mix ---------------------------------------------------- */

void report_mix(struct report *r) {
  size_t n = r->set->count;
  struct metric_ref m[PISA_CAT_COUNT];
  double *v = xcalloc(PISA_CAT_COUNT * n, sizeof *v);
  for (size_t c = 0; c < PISA_CAT_COUNT; c++)
    m[c] =
        (struct metric_ref){metrics_category_name(c), metrics_category_path(c)};
  gather(r, m, PISA_CAT_COUNT, v);
  for (size_t i = 0; i < n; i++) {
    double instructions = json_count_at(report_totals(r, i), "instructions");
    for (size_t c = 0; c < PISA_CAT_COUNT; c++)
      v[c * n + i] = instructions > 0 ? v[c * n + i] / instructions : NAN;
  }
  html_section(&r->html, "mix", "Instruction mix");
  struct svg_chart chart = svg_chart_of(
      "Instruction mix by category",
      svg_axis_of("application", SVG_LINEAR, SVG_LABEL_NUMBER),
      svg_ratio_axis("share of instructions (%)", SVG_LABEL_PERCENT));
  bars(
      r, &chart, m, PISA_CAT_COUNT, v, 1,
      "Categories as in docs/metrics.md: memory = load, store, atomics, fence; "
      "address = getelementptr, alloca; control = branches, calls, returns.");
  free(v);
}
