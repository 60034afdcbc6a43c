/* svg.h: SVG charts written as text into a strbuf for `pisa-char report`
 * (no scripts, no external resources): axis scales with "nice" ticks, a
 * palette for up to 40 series, and line, bar and scatter charts and
 * heatmaps. */
#ifndef PISA_CLI_SVG_H
#define PISA_CLI_SVG_H

#include "strbuf.h"

#include <stddef.h>

/* ---- Text ---- */

/* Copies s into buf, cut to at most max_chars characters (UTF-8 aware)
 * with "…" as the last one when it was cut. */
const char *svg_truncate(char *buf, size_t n, const char *s, size_t max_chars);

/* ---- Scales and ticks ---- */

enum { SVG_MAX_TICKS = 64 };

/* Ticks of a linear axis covering [lo, hi]: multiples of a step of 1, 2 or
 * 5 x 10^k, the smallest giving at most max_intervals intervals; the first
 * tick is <= lo and the last >= hi. A range without width is widened
 * around its value. Returns the number of ticks (at least 2). */
size_t svg_linear_ticks(double lo, double hi, size_t max_intervals,
                        double *ticks);

/* Exponents of the powers of two for a log2 axis covering [2^lo, 2^hi]:
 * every step-th exponent from floor to ceiling, step the smallest of
 * 1, 2, 3, ... giving at most max_intervals intervals. */
size_t svg_log2_ticks(double lo_exp, double hi_exp, size_t max_intervals,
                      int *exps);

/* A tick label: a number with the decimals the tick step needs. */
const char *svg_format_tick(char *buf, size_t n, double value, double step);

/* A power of two of bytes with a binary unit: "512 B", "1 KiB", "32 MiB". */
const char *svg_format_pow2_bytes(char *buf, size_t n, int exp);

/* A power of two as a count: "1", "512", "1 Ki", "16 Mi". */
const char *svg_format_pow2_count(char *buf, size_t n, int exp);

/* ---- Palette ---- */

/* Series i's colour: 10 hues that stay apart for colour-blind readers too,
 * repeated with a different dash pattern and marker for i >= 10, so that
 * 40 series keep distinct (colour, dash, marker) styles. */
const char *svg_color(size_t i);
const char *svg_dash(size_t i); /* "" for solid */
int svg_marker(size_t i);       /* 0 circle, 1 square, 2 triangle, 3 diamond */

/* ---- Charts ---- */

enum svg_scale {
  SVG_LINEAR,
  SVG_LOG2, /* values > 0, mapped by log2 */
};

enum svg_label {
  SVG_LABEL_NUMBER,
  SVG_LABEL_PERCENT,   /* value is a fraction, labelled in % */
  SVG_LABEL_BYTES,     /* log2 axis of byte sizes */
  SVG_LABEL_COUNT,     /* log2 axis of counts: 1, 2, ..., 1 Ki */
  SVG_LABEL_REUSE_BIN, /* linear axis of reuse-distance bins 0, 1, 2, ... */
};

struct svg_axis {
  const char *title; /* with the unit in parentheses */
  enum svg_scale scale;
  enum svg_label label;
  int fixed;       /* use min and max as given (else from the data) */
  int zero;        /* linear: include 0 in the range */
  double min, max; /* when fixed */
};

struct svg_chart {
  const char *title; /* the SVG's accessible title */
  struct svg_axis x, y;
  int legend;        /* draw a legend of the series */
  double plot_width; /* pixels of the plotting area; 0: 560 (bar charts
                        widen it for many categories) */
};

/* A series: y[i] at x[i] (line charts) or at category i (bar charts; x is
 * NULL). A NaN y is a missing value: a gap in a line, no bar. */
struct svg_series {
  const char *name;
  const double *x, *y;
  size_t n;
  size_t style; /* palette index */
};

/* An axis titled `title` (with its unit in parentheses), its range from
 * the data; a ratio axis from 0 to 1; a chart of two axes with a legend. */
struct svg_axis svg_axis_of(const char *title, enum svg_scale scale,
                            enum svg_label label);
struct svg_axis svg_ratio_axis(const char *title, enum svg_label label);
/* A linear axis whose range from the data includes 0. */
struct svg_axis svg_zero_axis(const char *title, enum svg_label label);
struct svg_chart svg_chart_of(const char *title, struct svg_axis x,
                              struct svg_axis y);

/* Lines with markers, one per series, over numeric x. */
void svg_line_chart(struct strbuf *out, const struct svg_chart *chart,
                    const struct svg_series *series, size_t nseries);

/* Vertical bars over categories (x axis: the category names, rotated and
 * truncated when long): side by side per category, or stacked. A category
 * with no value in any series is marked "n/a". */
void svg_bar_chart(struct strbuf *out, const struct svg_chart *chart,
                   const char *const *categories, size_t ncategories,
                   const struct svg_series *series, size_t nseries,
                   int stacked);

/* Labelled points (x[i], y[i]) coloured by group[i]; the legend names the
 * groups. A label goes at the first of eight places around its point that
 * stays in the plot and overlaps no earlier label and no point; where none
 * is free it is left out (the point's tooltip names it), so labels never
 * overlap however many points there are. */
struct svg_points {
  const double *x, *y;
  const char *const *labels;
  const size_t *group;
  size_t n;
  const char *const *group_names;
  size_t ngroups;
};
void svg_scatter(struct strbuf *out, const struct svg_chart *chart,
                 const struct svg_points *points);

/* A heatmap: one row per row name (top to bottom in the given order), one
 * column per column name, values[row * columns + column] coloured on one
 * sequential scale from the smallest to the largest value (NaN: no cell),
 * with a key. Rows shrink to fit 600 pixels beyond 60 rows; their names
 * are then left out (each cell's tooltip names its row). chart->x.title
 * says what the columns are, chart->y.title what the colour is. */
struct svg_heatmap {
  const char *const *row_names;
  size_t rows;
  const char *const *column_names;
  size_t columns;
  const double *values;
};
void svg_heatmap(struct strbuf *out, const struct svg_chart *chart,
                 const struct svg_heatmap *h);

#endif
