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
#include <string.h>

/* ---- Figure 4a: memory entropy ------------------------------------------ */

static size_t entropy_length(json_object *m) {
  json_object *h = json_at(m, "memory_entropy");
  return h ? json_object_array_length(h) : 0;
}

/* Rows of a heatmap: applications by the sort column, largest first,
 * missing values last, ties in document order. */
static const double *sort_values;
static size_t sort_stride, sort_column;

static int by_sort_column(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  double vx = sort_values[x * sort_stride + sort_column];
  double vy = sort_values[y * sort_stride + sort_column];
  if (isnan(vx) != isnan(vy))
    return isnan(vx) ? 1 : -1;
  if (!isnan(vx) && vx != vy)
    return vx < vy ? 1 : -1;
  return (x > y) - (x < y);
}

static int has_value(const double *row, size_t n) {
  for (size_t k = 0; k < n; k++)
    if (!isnan(row[k]))
      return 1;
  return 0;
}

void report_heatmap_figure(struct report *r, const struct heatmap_spec *spec,
                           const double *values) {
  size_t n = r->set->count, nc = spec->ncolumns, rows = 0;
  size_t *order = xcalloc(n + 1, sizeof *order);
  const char **names = xcalloc(n + 1, sizeof *names);
  double *sorted = xcalloc(n * nc + 1, sizeof *sorted);
  for (size_t i = 0; i < n; i++)
    order[i] = i;
  sort_values = values, sort_stride = nc, sort_column = spec->sort_column;
  qsort(order, n, sizeof *order, by_sort_column);
  for (size_t j = 0; j < n; j++)
    if (has_value(&values[order[j] * nc], nc)) {
      names[rows] = r->labels[order[j]];
      memcpy(&sorted[rows * nc], &values[order[j] * nc], nc * sizeof *sorted);
      rows++;
    }
  struct svg_chart chart = svg_chart_of(
      spec->caption,
      svg_axis_of(spec->columns_title, SVG_LINEAR, SVG_LABEL_NUMBER),
      svg_axis_of(spec->colour_title, SVG_LINEAR, SVG_LABEL_NUMBER));
  struct svg_heatmap h = {names, rows, spec->columns, nc, sorted};
  html_figure_open(&r->html, spec->caption);
  svg_heatmap(&r->html, &chart, &h);
  html_figure_close(&r->html, spec->note);
  free(order), free(names), free(sorted);
}

/* One row per application with memory_entropy, one column per k: a
 * heatmap reads at 400 applications where 400 lines would not. */
static void entropy_heatmap(struct report *r, size_t longest, size_t with,
                            const char *caption) {
  size_t n = r->set->count;
  char(*columns)[24] = xcalloc(longest + 1, sizeof *columns);
  const char **names = xcalloc(longest + 1, sizeof *names);
  double *values = xcalloc(n * longest + 1, sizeof *values);
  for (size_t k = 0; k < longest; k++) {
    snprintf(columns[k], sizeof columns[k], "%zu", k);
    names[k] = columns[k];
  }
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < longest; k++)
      if (!metrics_entropy(report_totals(r, i), (int)k,
                           &values[i * longest + k]))
        values[i * longest + k] = NAN;
  struct heatmap_spec spec = {
      caption,
      names,
      longest,
      longest > 6 ? 6 : longest - 1,
      "columns: low address bits cut (k: 2^k-byte granularity)",
      "H_k (bits)",
      with < n ? "Applications by H_6, highest first; those without "
                 "memory_entropy are left out."
               : "Applications by H_6, highest first."};
  report_heatmap_figure(r, &spec, values);
  free(columns), free(names), free(values);
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
  if (!with)
    html_figure_absent(&r->html, caption,
                       "memory_entropy (run with the entropy family).");
  else
    entropy_heatmap(r, longest, with, caption);
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

/* PISA-NMC's reading of figures 4a and 4b together: high entropy and low
 * spatial locality mark NMC candidates. H_6 against the SLQ score. */
static void entropy_locality_scatter(struct report *r) {
  size_t n = r->set->count, shown = 0;
  double *x = xcalloc(n + 1, sizeof *x), *y = xcalloc(n + 1, sizeof *y);
  size_t *groups = xcalloc(n + 1, sizeof *groups);
  static const char *const Names[] = {"application"};
  for (size_t i = 0; i < n; i++) {
    json_object *m = report_totals(r, i);
    int ok = json_number_at(m, "spatial_locality/score", &x[i]) &&
             metrics_entropy(m, 6, &y[i]);
    if (!ok)
      x[i] = y[i] = NAN;
    shown += ok;
  }
  const char *caption = "Memory entropy against spatial locality";
  if (shown) {
    struct svg_chart chart = svg_chart_of(
        caption,
        svg_ratio_axis("spatial locality score SLQ (0 to 1)", SVG_LABEL_NUMBER),
        svg_zero_axis("memory entropy H_6 (bits, 64-byte lines)",
                      SVG_LABEL_NUMBER));
    chart.legend = 0;
    struct svg_points p = {x, y, r->labels, groups, n, Names, 1};
    html_figure_open(&r->html, caption);
    svg_scatter(&r->html, &chart, &p);
    html_figure_close(&r->html,
                      "Top left (high entropy, low locality) are PISA-NMC's "
                      "NMC candidates. A label is drawn where it overlaps "
                      "nothing; every point names its application when "
                      "pointed at.");
  }
  free(x), free(y), free(groups);
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
  entropy_locality_scatter(r);
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
