/* cmd_report.c: `pisa-char report`, one self-contained HTML file (inline CSS
 * and SVG, no scripts, no external resources) with the ranking, the plots of
 * PISA-NMC figure 4, reuse and miss-ratio curves, the instruction mix, the
 * principal components and per-function tables of a set of documents. */
#include "commands.h"
#include "compare.h"
#include "docset.h"
#include "rank.h"
#include "svg.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: pisa-char report [options] -o FILE.html FILE|DIR...\n"
    "\n"
    "Writes one self-contained HTML file (inline CSS and SVG; no scripts, no\n"
    "network) about the applications of the documents: the NMC offload\n"
    "ranking of `pisa-char rank`, memory entropy against low bits cut,\n"
    "spatial locality and parallelism per application (PISA-NMC figure 4),\n"
    "ILP, the instruction mix, miss-ratio curves, reuse-distance histograms,\n"
    "the first two principal components of `pisa-char compare` and the top\n"
    "functions of each application. docs/report.md explains how to read it.\n"
    "DIR means every *.json file in it.\n"
    "\n"
    "  -o, --output FILE   the HTML file to write (required)\n"
    "      --force         replace FILE if it exists\n"
    "      --title TEXT    the report's title (default \"pisa-char report\")\n"
    "      --functions N   functions per application table (default 10)\n"
    "      --weights LIST  weights of the ranking model (see rank --help)\n"
    "      --llc-bytes N   last-level cache for the ranking (default 32M)\n"
    "      --clusters K    k-means clusters of the components (default 3)\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 on success, 1 if writing fails, 2 on bad usage, an\n"
    "existing FILE without --force, or an unreadable, malformed or invalid\n"
    "document.\n";

struct options {
  const char *output, *title;
  int force;
  long functions, clusters;
  struct rank_model model;
};

struct report {
  const struct options *o;
  const struct pisa_docset *set;
  const char **labels; /* the applications, in document order */
  struct strbuf html;
};

static const char *const Categories[] = {"memory",  "int",        "fp",
                                         "bitwise", "conversion", "address",
                                         "control", "vector",     "other"};
#define NUM_CATEGORIES (sizeof Categories / sizeof *Categories)

static json_object *totals_of(const struct report *r, size_t i) {
  return json_at(r->set->docs[i].root, "totals");
}

/* ---- Axes --------------------------------------------------------------- */

static struct svg_axis axis(const char *title, enum svg_scale scale,
                            enum svg_label label) {
  return (struct svg_axis){.title = title, .scale = scale, .label = label};
}

/* A ratio axis from 0 to 1 (labelled in % or as a number). */
static struct svg_axis ratio_axis(const char *title, enum svg_label label) {
  return (struct svg_axis){
      .title = title, .label = label, .fixed = 1, .zero = 1, .max = 1};
}

#define WIDE_PLOT 760.0  /* line charts of every application */
#define SMALL_PLOT 440.0 /* the two charts side by side per application */

static struct svg_chart chart_of(const char *title, struct svg_axis x,
                                 struct svg_axis y) {
  return (struct svg_chart){.title = title, .x = x, .y = y, .legend = 1};
}

/* ---- Page structure ----------------------------------------------------- */

static const char Style[] =
    "body{font-family:sans-serif;margin:24px auto;max-width:1280px;"
    "padding:0 16px;color:#222;line-height:1.4}\n"
    "h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}"
    "h3{margin-top:1.6em}\n"
    "figure{margin:1em 0 2em 0}figure .scroll{overflow-x:auto}\n"
    "figcaption{font-weight:bold;margin-bottom:.4em}\n"
    "p.note,p.absent{color:#555;max-width:60em}\n"
    "p.absent{border-left:4px solid #bbb;padding:.4em .8em;background:#f6f6f6}"
    "\n"
    "table{border-collapse:collapse;font-size:13px;margin:.5em 0}\n"
    "th,td{border:1px solid #ddd;padding:3px 7px;text-align:right}\n"
    "th{background:#f2f2f2}td.name,th.name{text-align:left}\n"
    "td small{color:#777}\n"
    ".bar{display:inline-block;height:9px;background:#0072b2;"
    "margin-right:6px}\n"
    "nav a{margin-right:1em}\n"
    ".pair{display:flex;flex-wrap:wrap;gap:0 24px}"
    ".pair figure{margin-top:0;max-width:620px}\n"
    ".warn{color:#a00}\n";

static void html_text(struct report *r, const char *s) {
  sb_escaped(&r->html, s);
}

static void page_open(struct report *r) {
  sb_puts(&r->html, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                    "<meta charset=\"utf-8\">\n<title>");
  html_text(r, r->o->title);
  sb_printf(&r->html, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>",
            Style);
  html_text(r, r->o->title);
  sb_printf(&r->html,
            "</h1>\n<p>%zu application%s, generated by pisa-char %s. "
            "docs/report.md explains each part and how to read it for "
            "near-memory computing (NMC) decisions.</p>\n"
            "<nav><a href=\"#ranking\">ranking</a>"
            "<a href=\"#entropy\">entropy</a>"
            "<a href=\"#locality\">spatial locality</a>"
            "<a href=\"#parallelism\">parallelism</a>"
            "<a href=\"#mix\">instruction mix</a>"
            "<a href=\"#miss\">miss ratio</a>"
            "<a href=\"#similarity\">similarity</a>"
            "<a href=\"#documents\">documents</a>"
            "<a href=\"#applications\">per application</a></nav>\n",
            r->set->count, r->set->count == 1 ? "" : "s", PISA_VERSION);
}

static void section(struct report *r, const char *id, const char *title) {
  sb_printf(&r->html, "<h2 id=\"%s\">", id);
  html_text(r, title);
  sb_puts(&r->html, "</h2>\n");
}

static void figure_open(struct report *r, const char *caption) {
  sb_puts(&r->html, "<figure><figcaption>");
  html_text(r, caption);
  sb_puts(&r->html, "</figcaption>\n<div class=\"scroll\">\n");
}

static void figure_close(struct report *r, const char *note) {
  sb_puts(&r->html, "</div>\n");
  if (note && *note) {
    sb_puts(&r->html, "<p class=\"note\">");
    html_text(r, note);
    sb_puts(&r->html, "</p>\n");
  }
  sb_puts(&r->html, "</figure>\n");
}

/* A plot whose metric no document holds. */
static void figure_absent(struct report *r, const char *caption,
                          const char *what) {
  sb_puts(&r->html, "<figure><figcaption>");
  html_text(r, caption);
  sb_puts(&r->html, "</figcaption>\n<p class=\"absent\">Not in these "
                    "documents: ");
  html_text(r, what);
  sb_puts(&r->html, "</p>\n</figure>\n");
}

/* ---- Documents ---------------------------------------------------------- */

static void documents_table(struct report *r) {
  char count[32];
  section(r, "documents", "Documents");
  sb_puts(&r->html, "<table><tr><th class=\"name\">application</th>"
                    "<th class=\"name\">document</th>"
                    "<th class=\"name\">program</th><th>mode</th>"
                    "<th>instructions</th><th>memory accesses</th>"
                    "<th>wall time (s)</th></tr>\n");
  for (size_t i = 0; i < r->set->count; i++) {
    json_object *root = r->set->docs[i].root, *t = totals_of(r, i);
    sb_puts(&r->html, "<tr><td class=\"name\">");
    html_text(r, r->labels[i]);
    sb_puts(&r->html, "</td><td class=\"name\">");
    html_text(r, r->set->docs[i].path);
    sb_puts(&r->html, "</td><td class=\"name\">");
    html_text(r, json_object_get_string(json_at(root, "program/path")));
    sb_puts(&r->html, "</td><td>");
    html_text(r, json_object_get_string(json_at(root, "mode")));
    if (!json_object_get_boolean(json_at(root, "complete")))
      sb_puts(&r->html, " <span class=\"warn\">(cut short)</span>");
    sb_printf(
        &r->html, "</td><td>%s</td>",
        format_count(count, sizeof count, json_count_at(t, "instructions")));
    sb_printf(&r->html, "<td>%s</td><td>%.2f</td></tr>\n",
              format_count(count, sizeof count, metrics_accesses(t)),
              json_count_at(root, "program/wall_seconds"));
  }
  sb_puts(&r->html, "</table>\n");
}

/* ---- Ranking (the model of rank.h) -------------------------------------- */

struct candidate {
  char *label;
  json_object *metrics;
  struct rank_result result;
};

static int by_score(const void *a, const void *b) {
  const struct candidate *x = a, *y = b;
  if (x->result.score != y->result.score)
    return x->result.score < y->result.score ? 1 : -1;
  return strcmp(x->label, y->label);
}

static void ranking_header(struct report *r, const char *what) {
  sb_printf(&r->html,
            "<table><tr><th>#</th><th class=\"name\">%s</th>"
            "<th class=\"name\">score</th>",
            what);
  for (int m = 0; m < RANK_NUM_METRICS; m++)
    sb_printf(&r->html, "<th>%s<br><small>w %g</small></th>",
              rank_metric_name(m), r->o->model.weights[m]);
  sb_puts(&r->html, "</tr>\n");
}

static void ranking_row(struct report *r, size_t rank,
                        const struct candidate *c) {
  const struct rank_result *res = &c->result;
  sb_printf(&r->html, "<tr><td>%zu</td><td class=\"name\">", rank);
  html_text(r, c->label);
  if (res->score < 0)
    sb_puts(&r->html, "</td><td class=\"name\">n/a</td>");
  else
    sb_printf(&r->html,
              "</td><td class=\"name\"><span class=\"bar\" "
              "style=\"width:%.0fpx\"></span>%.3f</td>",
              100 * res->score, res->score);
  for (int m = 0; m < RANK_NUM_METRICS; m++) {
    if (!res->present[m]) {
      sb_puts(&r->html, "<td>n/a</td>");
      continue;
    }
    sb_printf(&r->html,
              "<td title=\"measured %.4g, normalised %.3f\">%.3f<br>"
              "<small>%.3g</small></td>",
              res->value[m], res->normalised[m], res->contribution[m],
              res->value[m]);
  }
  sb_puts(&r->html, "</tr>\n");
}

static void ranking_table(struct report *r, struct candidate *c, size_t n,
                          size_t top, const char *what) {
  qsort(c, n, sizeof *c, by_score);
  ranking_header(r, what);
  for (size_t i = 0; i < n && i < top; i++)
    ranking_row(r, i + 1, &c[i]);
  sb_puts(&r->html, "</table>\n");
}

static void add_candidate(struct report *r, struct candidate **list, size_t *n,
                          char *label, json_object *metrics) {
  *list = xrealloc(*list, (*n + 1) * sizeof **list);
  struct candidate *c = &(*list)[(*n)++];
  c->label = label;
  c->metrics = metrics;
  rank_evaluate(&r->o->model, metrics, &c->result);
}

static void free_candidates(struct candidate *c, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(c[i].label);
  free(c);
}

/* The functions that rank --by function keeps by default. */
static void function_ranking(struct report *r) {
  struct candidate *list = NULL;
  size_t n = 0;
  for (size_t i = 0; i < r->set->count; i++) {
    json_object *functions = json_at(r->set->docs[i].root, "functions");
    double total = metrics_accesses(totals_of(r, i));
    for (size_t f = 0; f < json_object_array_length(functions); f++) {
      json_object *fn = json_object_array_get_idx(functions, f);
      if (total > 0 && metrics_accesses(fn) / total >= RANK_MIN_SHARE)
        add_candidate(r, &list, &n,
                      xasprintf("%s:%s", r->labels[i],
                                json_object_get_string(json_at(fn, "name"))),
                      fn);
    }
  }
  sb_puts(&r->html, "<h3>Functions (top 20 of those with at least 1% of "
                    "their program's memory accesses)</h3>\n");
  if (n)
    ranking_table(r, list, n, 20, "function");
  else
    sb_puts(&r->html, "<p class=\"absent\">Not in these documents: no "
                      "function makes 1% of its program's accesses.</p>\n");
  free_candidates(list, n);
}

static void ranking(struct report *r) {
  char llc[32];
  section(r, "ranking", "NMC offload ranking");
  sb_printf(&r->html,
            "<p class=\"note\">The model of <code>pisa-char rank</code> "
            "(docs/ranking.md), last-level cache %s with 64-byte lines. "
            "Higher scores are better candidates for near-memory computing. "
            "Each metric column is its contribution to the score (weight x "
            "normalised value / sum of the weights present), with the "
            "measured value below it; n/a: not in the document, and the "
            "score then covers the metrics present.</p>\n",
            format_bytes(llc, sizeof llc, (double)r->o->model.llc_bytes));
  struct candidate *list = NULL;
  size_t n = 0;
  for (size_t i = 0; i < r->set->count; i++)
    add_candidate(r, &list, &n, xstrdup(r->labels[i]), totals_of(r, i));
  sb_puts(&r->html, "<h3>Applications</h3>\n");
  ranking_table(r, list, n, n, "application");
  free_candidates(list, n);
  function_ranking(r);
}

/* ---- Figure 4a: memory entropy ------------------------------------------ */

static size_t entropy_length(json_object *m) {
  json_object *h = json_at(m, "memory_entropy");
  return h ? json_object_array_length(h) : 0;
}

static void entropy_plot(struct report *r) {
  size_t n = r->set->count, longest = 0, with = 0;
  for (size_t i = 0; i < n; i++) {
    size_t len = entropy_length(totals_of(r, i));
    longest = len > longest ? len : longest;
    with += len > 0;
  }
  section(r, "entropy", "Memory entropy (PISA-NMC figure 4a)");
  const char *caption = "Memory entropy against low address bits cut";
  if (!with) {
    figure_absent(r, caption, "memory_entropy (run with the entropy family).");
    return;
  }
  struct svg_series *s = xcalloc(n, sizeof *s);
  double *xs = xcalloc(longest, sizeof *xs), *ys = xcalloc(n * longest, 8);
  for (size_t k = 0; k < longest; k++)
    xs[k] = (double)k;
  for (size_t i = 0; i < n; i++) {
    s[i] = (struct svg_series){r->labels[i], xs, &ys[i * longest], 0, i};
    for (size_t k = 0; k < longest; k++)
      if (!metrics_entropy(totals_of(r, i), (int)k, &ys[i * longest + k]))
        ys[i * longest + k] = NAN;
    s[i].n = longest;
  }
  struct svg_axis y =
      axis("memory entropy H_k (bits)", SVG_LINEAR, SVG_LABEL_NUMBER);
  y.zero = 1;
  struct svg_chart chart =
      chart_of(caption,
               axis("low address bits cut (k: 2^k-byte granularity)",
                    SVG_LINEAR, SVG_LABEL_NUMBER),
               y);
  chart.plot_width = WIDE_PLOT;
  figure_open(r, caption);
  svg_line_chart(&r->html, &chart, s, n);
  figure_close(r, with < n ? "An application without a line has no "
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
      int ok = json_number_at(totals_of(r, i), m[k].path, &v);
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
  figure_open(r, chart->title);
  svg_bar_chart(&r->html, chart, r->labels, n, s, nm, stacked);
  figure_close(r, note);
  free(s);
}

/* A note when some applications lack a metric that others have. */
static const char *partial_note(size_t found, size_t expected) {
  return found < expected ? "n/a: not in that application's document." : NULL;
}

static void locality_plot(struct report *r) {
  static const struct metric_ref m[] = {
      {"SLQ (PISA-NMC)", "spatial_locality/score"},
      {"strict SLQ", "spatial_locality/score_strict"},
  };
  size_t n = r->set->count;
  double *v = xcalloc(2 * n, sizeof *v);
  size_t found = gather(r, m, 2, v);
  section(r, "locality", "Spatial locality (PISA-NMC figure 4b)");
  const char *caption = "Spatial locality score per application";
  struct svg_chart chart =
      chart_of(caption, axis("application", SVG_LINEAR, SVG_LABEL_NUMBER),
               ratio_axis("spatial locality score (0 to 1)", SVG_LABEL_NUMBER));
  if (!found)
    figure_absent(r, caption,
                  "spatial_locality (run with the locality family).");
  else
    bars(r, &chart, m, 2, v, 0, partial_note(found, 2 * n));
  free(v);
}

static void parallelism_plot(struct report *r) {
  static const struct metric_ref m[] = {
      {"DLP1", "dlp/dlp1"},    {"DLP2", "dlp/dlp2"},
      {"BBLP", "bblp/bblp"},   {"smart BBLP", "bblp/bblp_smart"},
      {"PBBLP", "bblp/pbblp"},
  };
  size_t n = r->set->count, nm = sizeof m / sizeof *m;
  double *v = xcalloc(nm * n, sizeof *v);
  size_t found = gather(r, m, nm, v);
  section(r, "parallelism", "Parallelism (PISA-NMC figure 4c)");
  const char *caption = "DLP, BBLP and PBBLP per application";
  struct svg_chart chart =
      chart_of(caption, axis("application", SVG_LINEAR, SVG_LABEL_NUMBER),
               axis("parallelism (instructions per cycle, log2 scale)",
                    SVG_LOG2, SVG_LABEL_NUMBER));
  if (!found)
    figure_absent(r, caption,
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
    json_object *all = json_at(totals_of(r, i), "ilp");
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

static void ilp_plot(struct report *r) {
  enum { MAX_WINDOWS = 8 };
  long windows[MAX_WINDOWS];
  size_t nw = ilp_windows(r, windows, MAX_WINDOWS), n = r->set->count;
  const char *caption = "ILP per application and instruction window";
  if (!nw) {
    figure_absent(r, caption, "ilp (the ILP schedules).");
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
      found += !isnan(v[k * n + i] = ilp_at(totals_of(r, i), windows[k]));
    s[k] = (struct svg_series){names[k], NULL, &v[k * n], n, 5 + k};
  }
  struct svg_chart chart =
      chart_of(caption, axis("application", SVG_LINEAR, SVG_LABEL_NUMBER),
               axis("ILP (instructions per cycle, log2 scale)", SVG_LOG2,
                    SVG_LABEL_NUMBER));
  figure_open(r, caption);
  svg_bar_chart(&r->html, &chart, r->labels, n, s, nw, 0);
  figure_close(r, partial_note(found, nw * n));
  free(v);
}

/* ---- Instruction mix ---------------------------------------------------- */

static void mix_plot(struct report *r) {
  size_t n = r->set->count;
  struct metric_ref m[NUM_CATEGORIES];
  double *v = xcalloc(NUM_CATEGORIES * n, sizeof *v);
  char paths[NUM_CATEGORIES][64];
  for (size_t c = 0; c < NUM_CATEGORIES; c++) {
    snprintf(paths[c], sizeof paths[c], "instruction_mix/categories/%s",
             Categories[c]);
    m[c] = (struct metric_ref){Categories[c], paths[c]};
  }
  gather(r, m, NUM_CATEGORIES, v);
  for (size_t i = 0; i < n; i++) {
    double instructions = json_count_at(totals_of(r, i), "instructions");
    for (size_t c = 0; c < NUM_CATEGORIES; c++)
      v[c * n + i] = instructions > 0 ? v[c * n + i] / instructions : NAN;
  }
  section(r, "mix", "Instruction mix");
  struct svg_chart chart =
      chart_of("Instruction mix by category",
               axis("application", SVG_LINEAR, SVG_LABEL_NUMBER),
               ratio_axis("share of instructions (%)", SVG_LABEL_PERCENT));
  bars(r, &chart, m, NUM_CATEGORIES, v, 1,
       "Categories as in METRICS.md: memory = load, store, atomics, fence; "
       "address = getelementptr, alloca; control = branches, calls, returns.");
  free(v);
}

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
  return chart_of(
      caption,
      axis("cache capacity (bytes, log2 scale)", SVG_LOG2, SVG_LABEL_BYTES),
      ratio_axis("miss ratio (%, cold misses included)", SVG_LABEL_PERCENT));
}

static void miss_overview(struct report *r) {
  size_t n = r->set->count, with = 0;
  section(r, "miss", "Miss-ratio curves");
  const char *caption = "LRU miss ratio against cache capacity, 64-byte lines";
  struct svg_series *s = xcalloc(n, sizeof *s);
  double *x = xcalloc(n * CURVE_MAX, sizeof *x);
  double *y = xcalloc(n * CURVE_MAX, sizeof *y);
  for (size_t i = 0; i < n; i++) {
    json_object *all = reuse_of(totals_of(r, i)), *hist = NULL;
    for (size_t j = 0; all && j < json_object_array_length(all); j++)
      if (json_count_at(json_object_array_get_idx(all, j), "line_bytes") == 64)
        hist = json_object_array_get_idx(all, j);
    size_t len = hist ? miss_curve(totals_of(r, i), hist, &x[i * CURVE_MAX],
                                   &y[i * CURVE_MAX], CURVE_MAX)
                      : 0;
    with += len > 0;
    s[i] = (struct svg_series){r->labels[i], &x[i * CURVE_MAX],
                               &y[i * CURVE_MAX], len, i};
  }
  struct svg_chart chart = miss_chart(caption);
  if (!with) {
    figure_absent(r, caption, "reuse_distance at 64-byte lines.");
  } else {
    chart.plot_width = WIDE_PLOT;
    figure_open(r, caption);
    svg_line_chart(&r->html, &chart, s, n);
    figure_close(r, "A fully associative LRU cache, estimated from the "
                    "reuse-distance histogram; per line size in each "
                    "application's section.");
  }
  free(s), free(x), free(y);
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
  struct svg_axis share =
      axis("share of accesses (%)", SVG_LINEAR, SVG_LABEL_PERCENT);
  share.zero = 1;
  struct svg_chart chart =
      chart_of(caption,
               axis("reuse distance (distinct lines, log2 bins)", SVG_LINEAR,
                    SVG_LABEL_REUSE_BIN),
               share);
  chart.plot_width = SMALL_PLOT;
  figure_open(r, caption);
  svg_line_chart(&r->html, &chart, s, nl);
  figure_close(r, note);
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
  chart.plot_width = SMALL_PLOT;
  figure_open(r, caption);
  svg_line_chart(&r->html, &chart, s, nl);
  figure_close(r, NULL);
  free(caption), free(s), free(names), free(x), free(y);
}

/* ---- Principal components (the comparison of compare.h) ----------------- */

static void loadings_note(struct report *r, const struct comparison *c) {
  sb_puts(&r->html, "<p class=\"note\">Features used (z-scores): ");
  for (size_t f = 0; f < c->d; f++)
    sb_printf(&r->html, "%s%s", f ? ", " : "", c->names[f]);
  sb_puts(&r->html, ". Left out: ");
  size_t out = 0;
  for (size_t f = 0; f < c->all; f++)
    if (c->use[f] != COMPARE_USED)
      sb_printf(&r->html, "%s%s (%s)", out++ ? ", " : "", c->all_names[f],
                c->use[f] == COMPARE_CONSTANT ? "the same everywhere"
                                              : "absent from some documents");
  sb_printf(&r->html, "%s. Largest loadings:", out ? "" : "none");
  for (size_t k = 0; k < 2 && k < c->d; k++) {
    size_t best = 0;
    for (size_t j = 1; j < c->d; j++)
      if (fabs(c->vectors[j * c->d + k]) > fabs(c->vectors[best * c->d + k]))
        best = j;
    sb_printf(&r->html, " PC%zu %s %+.2f%s", k + 1, c->names[best],
              c->vectors[best * c->d + k], k == 0 && c->d > 1 ? ";" : ".");
  }
  sb_puts(&r->html, "</p>\n");
}

static void pca_figure(struct report *r, const struct comparison *c) {
  size_t n = c->n;
  double *x = xcalloc(n, sizeof *x), *y = xcalloc(n, sizeof *y), total = 0;
  char **groups = xcalloc(c->clusters, sizeof *groups);
  for (size_t i = 0; i < n; i++) {
    x[i] = compare_component_score(c, i, 0);
    y[i] = compare_component_score(c, i, 1);
  }
  for (size_t k = 0; k < c->d; k++)
    total += c->values[k];
  for (size_t k = 0; k < c->clusters; k++)
    groups[k] = xasprintf("cluster %zu", k + 1);
  char *xt = xasprintf("PC1 (%.1f%% of the variance; z-score units)",
                       total > 0 ? 100 * c->values[0] / total : 0.0);
  char *yt =
      xasprintf("PC2 (%.1f%% of the variance)",
                total > 0 && c->d > 1 ? 100 * c->values[1] / total : 0.0);
  const char *caption = "First two principal components, k-means clusters";
  struct svg_chart chart =
      chart_of(caption, axis(xt, SVG_LINEAR, SVG_LABEL_NUMBER),
               axis(yt, SVG_LINEAR, SVG_LABEL_NUMBER));
  struct svg_points p = {.x = x,
                         .y = y,
                         .labels = r->labels,
                         .group = c->cluster,
                         .n = n,
                         .group_names = (const char *const *)groups,
                         .ngroups = c->clusters};
  figure_open(r, caption);
  svg_scatter(&r->html, &chart, &p);
  figure_close(r, NULL);
  loadings_note(r, c);
  for (size_t k = 0; k < c->clusters; k++)
    free(groups[k]);
  free(groups), free(xt), free(yt), free(x), free(y);
}

static void similarity(struct report *r) {
  section(r, "similarity", "Workload similarity");
  const char *caption = "First two principal components";
  if (r->set->count < 2) {
    figure_absent(r, caption, "a comparison needs at least two applications.");
    return;
  }
  struct comparison c;
  int status = compare_build(r->set, (size_t)r->o->clusters, &c);
  if (status)
    figure_absent(r, caption, "the eigen decomposition failed.");
  else if (c.d == 0)
    figure_absent(r, caption, "no metric varies between the applications.");
  else
    pca_figure(r, &c);
  compare_free(&c);
}

/* ---- Per application ---------------------------------------------------- */

struct function_row {
  json_object *entry;
  double instructions;
};

static int by_instructions(const void *a, const void *b) {
  const struct function_row *x = a, *y = b;
  return (x->instructions < y->instructions) -
         (x->instructions > y->instructions);
}

static void cell_value(struct report *r, const struct rank_result *res, int m,
                       const char *fmt) {
  sb_puts(&r->html, "<td>");
  if (res->present[m])
    sb_printf(&r->html, fmt, res->value[m]);
  else
    sb_puts(&r->html, "n/a");
  sb_puts(&r->html, "</td>");
}

static void function_row(struct report *r, json_object *f, double instr_total,
                         double access_total) {
  struct rank_result res;
  rank_evaluate(&r->o->model, f, &res);
  json_object *file = json_at(f, "file");
  double line = 0, instructions = json_count_at(f, "instructions");
  sb_puts(&r->html, "<tr><td class=\"name\">");
  html_text(r, json_object_get_string(json_at(f, "name")));
  sb_puts(&r->html, "</td><td class=\"name\">");
  if (json_object_is_type(file, json_type_string)) {
    html_text(r, json_object_get_string(file));
    if (json_number_at(f, "line", &line))
      sb_printf(&r->html, ":%.0f", line);
  } else {
    sb_puts(&r->html, "(no debug info)");
  }
  sb_printf(&r->html, "</td><td>%.1f</td><td>%.1f</td>",
            instr_total > 0 ? 100 * instructions / instr_total : 0.0,
            access_total > 0 ? 100 * metrics_accesses(f) / access_total : 0.0);
  cell_value(r, &res, RANK_INTENSITY, "%.3f");
  cell_value(r, &res, RANK_ENTROPY, "%.2f");
  cell_value(r, &res, RANK_SPATIAL, "%.3f");
  cell_value(r, &res, RANK_MISS, "%.3f");
  cell_value(r, &res, RANK_DLP, "%.2f");
  cell_value(r, &res, RANK_PBBLP, "%.2f");
  if (res.score >= 0)
    sb_printf(&r->html, "<td>%.3f</td></tr>\n", res.score);
  else
    sb_puts(&r->html, "<td>n/a</td></tr>\n");
}

static void function_table(struct report *r, size_t i) {
  json_object *functions = json_at(r->set->docs[i].root, "functions");
  size_t n = json_object_array_length(functions), shown = 0;
  struct function_row *rows = xcalloc(n + 1, sizeof *rows);
  for (size_t f = 0; f < n; f++) {
    rows[f].entry = json_object_array_get_idx(functions, f);
    rows[f].instructions = json_count_at(rows[f].entry, "instructions");
  }
  qsort(rows, n, sizeof *rows, by_instructions);
  double instr = json_count_at(totals_of(r, i), "instructions");
  double accesses = metrics_accesses(totals_of(r, i));
  char llc[32];
  sb_printf(&r->html,
            "<table><tr><th class=\"name\">function</th>"
            "<th class=\"name\">source</th><th>instructions (%%)</th>"
            "<th>memory accesses (%%)</th><th>accesses per instruction</th>"
            "<th>H_6 (bits)</th><th>strict SLQ</th><th>miss ratio, %s LLC</th>"
            "<th>DLP2</th><th>PBBLP</th><th>NMC score</th></tr>\n",
            format_bytes(llc, sizeof llc, (double)r->o->model.llc_bytes));
  for (size_t f = 0; f < n && shown < (size_t)r->o->functions; f++)
    if (rows[f].instructions > 0 || metrics_accesses(rows[f].entry) > 0) {
      function_row(r, rows[f].entry, instr, accesses);
      shown++;
    }
  sb_puts(&r->html, "</table>\n");
  if (!shown)
    sb_puts(&r->html, "<p class=\"absent\">Not in this document: no "
                      "function executed an instruction.</p>\n");
  else if (shown < n)
    sb_printf(&r->html,
              "<p class=\"note\">The %zu functions that execute the most "
              "instructions of %zu.</p>\n",
              shown, n);
  free(rows);
}

static void application(struct report *r, size_t i) {
  json_object *m = totals_of(r, i), *all = reuse_of(m);
  sb_printf(&r->html, "<h3 id=\"app-%zu\">", i + 1);
  html_text(r, r->labels[i]);
  sb_puts(&r->html, "</h3>\n");
  function_table(r, i);
  if (!all) {
    figure_absent(r, "Reuse distance and miss-ratio curves",
                  "reuse_distance (run with the reuse family).");
    return;
  }
  sb_puts(&r->html, "<div class=\"pair\">\n");
  reuse_histograms(r, r->labels[i], all);
  miss_curves(r, r->labels[i], m, all);
  sb_puts(&r->html, "</div>\n");
}

static void applications(struct report *r) {
  section(r, "applications", "Per application");
  sb_puts(&r->html, "<p class=\"note\">Functions by instructions executed "
                    "(exclusive of callees), with the metrics of the "
                    "ranking model; then the reuse-distance histograms and "
                    "miss-ratio curves of the whole program.</p>\n<nav>");
  for (size_t i = 0; i < r->set->count; i++) {
    sb_printf(&r->html, "<a href=\"#app-%zu\">", i + 1);
    html_text(r, r->labels[i]);
    sb_puts(&r->html, "</a> ");
  }
  sb_puts(&r->html, "</nav>\n");
  for (size_t i = 0; i < r->set->count; i++)
    application(r, i);
}

/* ---- Writing ------------------------------------------------------------ */

static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    return xstrdup(".");
  return slash == path ? xstrdup("/")
                       : xasprintf("%.*s", (int)(slash - path), path);
}

static int write_all(int fd, const char *data, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    data += n, len -= (size_t)n;
  }
  return 0;
}

static mode_t current_umask(void) {
  mode_t mask = umask(0);
  umask(mask);
  return mask;
}

/* Writes through a temporary file in the same directory and renames (or,
 * without --force, links so that a file created meanwhile is kept). */
static int write_report(const struct options *o, const struct strbuf *html) {
  char *dir = dir_of(o->output);
  const char *base =
      strrchr(o->output, '/') ? strrchr(o->output, '/') + 1 : o->output;
  char *tmp = xasprintf("%s/.%s.XXXXXX", dir, base);
  int status = 1, fd = mkstemp(tmp);
  if (fd < 0)
    error("report: cannot create a file in %s: %s", dir, strerror(errno));
  else if (fchmod(fd, 0666 & ~current_umask()) ||
           write_all(fd, html->data, html->len) || fsync(fd) || close(fd))
    error("report: cannot write %s: %s", tmp, strerror(errno)), fd = -1;
  else if (o->force ? rename(tmp, o->output) : link(tmp, o->output))
    error("report: cannot write %s: %s%s", o->output, strerror(errno),
          errno == EEXIST ? " (use --force to replace it)" : "");
  else
    status = 0;
  if (fd >= 0 && status)
    close(fd);
  if (status || !o->force)
    unlink(tmp);
  free(tmp), free(dir);
  return status;
}

/* Whether path is (a link to) one of the documents: --force must not
 * replace the input with its own report. */
static int is_input(const struct pisa_docset *set, const char *path) {
  struct stat out, in;
  if (stat(path, &out))
    return 0;
  for (size_t i = 0; i < set->count; i++)
    if (stat(set->docs[i].path, &in) == 0 && in.st_dev == out.st_dev &&
        in.st_ino == out.st_ino)
      return 1;
  return 0;
}

static void build(struct report *r) {
  page_open(r);
  ranking(r);
  entropy_plot(r);
  locality_plot(r);
  parallelism_plot(r);
  ilp_plot(r);
  mix_plot(r);
  miss_overview(r);
  similarity(r);
  documents_table(r);
  applications(r);
  sb_puts(&r->html, "</body>\n</html>\n");
}

/* ---- Command line ------------------------------------------------------- */

static int parse_option(int opt, struct options *o, char **argv) {
  char err[512];
  if (opt == 'o')
    o->output = optarg;
  else if (opt == 'F')
    o->force = 1;
  else if (opt == 'T')
    o->title = optarg;
  else if (opt == 'n' && parse_long(optarg, 0, 1000000, &o->functions))
    return cmd_usage_error("report", usage_text,
                           "--functions wants a count >= 0, not '%s'", optarg);
  else if (opt == 'k' && parse_long(optarg, 1, 1000000, &o->clusters))
    return cmd_usage_error("report", usage_text,
                           "--clusters wants a count >= 1, not '%s'", optarg);
  else if (opt == 'w' && rank_parse_weights(&o->model, optarg, err, sizeof err))
    return cmd_usage_error("report", usage_text, "--weights: %s", err);
  else if (opt == 'l' && rank_parse_llc_bytes(optarg, &o->model.llc_bytes))
    return cmd_usage_error("report", usage_text,
                           "--llc-bytes wants a size >= 64 bytes, not '%s'",
                           optarg);
  else if (!strchr("oFTnkwl", opt))
    return cmd_bad_option("report", usage_text, opt, argv);
  return 0;
}

static int parse_options(int argc, char **argv, struct options *o) {
  static const struct option options[] = {
      {"output", required_argument, NULL, 'o'},
      {"force", no_argument, NULL, 'F'},
      {"title", required_argument, NULL, 'T'},
      {"functions", required_argument, NULL, 'n'},
      {"clusters", required_argument, NULL, 'k'},
      {"weights", required_argument, NULL, 'w'},
      {"llc-bytes", required_argument, NULL, 'l'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  int opt;
  optind = 0;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, ":ho:", options, NULL)) != -1) {
    if (opt == 'h') {
      fputs(usage_text, stdout);
      return 0;
    }
    if (parse_option(opt, o, argv))
      return 2;
  }
  if (!o->output)
    return cmd_usage_error("report", usage_text, "no output: use -o FILE");
  if (optind >= argc)
    return cmd_usage_error("report", usage_text, "no FILE or DIR to report on");
  return -1;
}

int cmd_report(int argc, char **argv) {
  struct options o = {
      .title = "pisa-char report", .functions = 10, .clusters = 3};
  rank_model_init(&o.model);
  int status = parse_options(argc, argv, &o);
  if (status >= 0)
    return status;
  struct stat st;
  if (!o.force && lstat(o.output, &st) == 0) {
    error("report: %s exists; use --force to replace it or -o to choose "
          "another file",
          o.output);
    return 2;
  }
  struct pisa_docset set;
  if (docset_load(&set, argv + optind, argc - optind))
    return 2;
  if (is_input(&set, o.output)) {
    error("report: %s is one of the documents read; choose another -o",
          o.output);
    docset_free(&set);
    return 2;
  }
  struct report r = {.o = &o, .set = &set};
  r.labels = xcalloc(set.count, sizeof *r.labels);
  for (size_t i = 0; i < set.count; i++)
    r.labels[i] = set.docs[i].label;
  build(&r);
  status = write_report(&o, &r.html);
  sb_free(&r.html);
  free(r.labels);
  docset_free(&set);
  return status;
}
