/* svg.c: the SVG charts of `pisa-char report`, written as text: axes with
 * the ticks of svg_scale.c, legends laid out in columns, and line, bar and
 * scatter charts. Data marks carry class "mark" so tests can find them. */
#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An estimate of the width of text in pixels at a font size. */
static double text_width(const char *s, double size) {
  size_t chars = 0;
  for (; *s; s++)
    chars += ((unsigned char)*s & 0xc0) != 0x80;
  return (double)chars * size * 0.6;
}

/* ---- Axes --------------------------------------------------------------- */

#define FONT 12.0
#define PLOT_HEIGHT 260.0
#define MARGIN_LEFT 76.0
#define MARGIN_RIGHT 24.0
#define MARGIN_TOP 14.0
#define TICK_LABEL_MAX 18 /* characters of a category label */

/* An axis resolved against the data: the domain in scale units (log2 of
 * the value on a log2 axis) and its ticks. */
struct axis {
  const struct svg_axis *spec;
  double d0, d1; /* domain */
  double r0, r1; /* pixel range */
  double ticks[SVG_MAX_TICKS], step;
  size_t nticks;
};

static double axis_value(const struct axis *a, double v) {
  return a->spec->scale == SVG_LOG2 ? log2(v) : v;
}

static double axis_map(const struct axis *a, double v) {
  double t = (axis_value(a, v) - a->d0) / (a->d1 - a->d0);
  return a->r0 + t * (a->r1 - a->r0);
}

/* The data range of usable values (finite; > 0 on a log2 axis). */
static int usable(const struct svg_axis *spec, double v) {
  return isfinite(v) && (spec->scale != SVG_LOG2 || v > 0);
}

static void axis_resolve(struct axis *a, const struct svg_axis *spec, double lo,
                         double hi, size_t max_intervals) {
  a->spec = spec;
  if (spec->fixed)
    lo = spec->min, hi = spec->max;
  if (!(lo <= hi)) /* no data */
    lo = spec->scale == SVG_LOG2 ? 1 : 0, hi = lo * 2 + 1;
  if (spec->scale == SVG_LOG2) {
    int exps[SVG_MAX_TICKS];
    a->nticks = svg_log2_ticks(log2(lo), log2(hi), max_intervals, exps);
    for (size_t i = 0; i < a->nticks; i++)
      a->ticks[i] = exps[i];
    a->step = a->nticks > 1 ? a->ticks[1] - a->ticks[0] : 1;
  } else {
    if (spec->zero)
      lo = fmin(lo, 0), hi = fmax(hi, 0);
    a->nticks = svg_linear_ticks(lo, hi, max_intervals, a->ticks);
    a->step = a->ticks[1] - a->ticks[0];
  }
  a->d0 = a->ticks[0], a->d1 = a->ticks[a->nticks - 1];
  if (spec->fixed && spec->scale != SVG_LOG2)
    a->d0 = spec->min, a->d1 = spec->max;
}

static const char *tick_label(char *buf, size_t n, const struct axis *a,
                              double t) {
  switch (a->spec->label) {
  case SVG_LABEL_PERCENT:
    svg_format_tick(buf, n, 100 * t, 100 * a->step);
    strncat(buf, "%", n - strlen(buf) - 1);
    return buf;
  case SVG_LABEL_BYTES:
    return svg_format_pow2_bytes(buf, n, (int)t);
  case SVG_LABEL_COUNT:
    return svg_format_pow2_count(buf, n, (int)t);
  case SVG_LABEL_REUSE_BIN:
    if (t == 0)
      return snprintf(buf, n, "0"), buf;
    return svg_format_pow2_count(buf, n, (int)t - 1);
  case SVG_LABEL_NUMBER:
    break;
  }
  if (a->spec->scale == SVG_LOG2)
    return svg_format_tick(buf, n, ldexp(1, (int)t), 1);
  return svg_format_tick(buf, n, t, a->step);
}

/* A tick value in data units (ticks of a log2 axis are exponents). */
static double tick_value(const struct axis *a, double t) {
  return a->spec->scale == SVG_LOG2 ? ldexp(1, (int)t) : t;
}

static int tick_shown(const struct axis *a, double t) {
  return a->spec->label != SVG_LABEL_REUSE_BIN || t == floor(t);
}

static void draw_y_axis(struct strbuf *out, const struct axis *y, double x0,
                        double x1) {
  char buf[64];
  for (size_t i = 0; i < y->nticks; i++) {
    double py = axis_map(y, tick_value(y, y->ticks[i]));
    sb_printf(out,
              "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
              "stroke=\"#e4e4e4\"/>",
              x0, py, x1, py);
    sb_printf(out,
              "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
              x0 - 6, py + 4, tick_label(buf, sizeof buf, y, y->ticks[i]));
  }
  double mid = (y->r0 + y->r1) / 2;
  sb_printf(out,
            "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" "
            "transform=\"rotate(-90 16 %.1f)\" class=\"axis-title\">",
            mid, mid);
  sb_escaped(out, y->spec->title);
  sb_puts(out, "</text>\n");
  sb_printf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#333\"/>\n",
            x0, y->r0, x0, y->r1);
}

static void draw_x_axis(struct strbuf *out, const struct axis *x, double y0,
                        double title_y) {
  char buf[64];
  for (size_t i = 0; i < x->nticks; i++) {
    if (!tick_shown(x, x->ticks[i]))
      continue;
    double px = axis_map(x, tick_value(x, x->ticks[i]));
    sb_printf(out,
              "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
              "stroke=\"#333\"/>",
              px, y0, px, y0 + 4);
    sb_printf(out,
              "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
              px, y0 + 17, tick_label(buf, sizeof buf, x, x->ticks[i]));
  }
  sb_printf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#333\"/>\n",
            x->r0, y0, x->r1, y0);
  sb_printf(out,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
            "class=\"axis-title\">",
            (x->r0 + x->r1) / 2, title_y);
  sb_escaped(out, x->spec->title);
  sb_puts(out, "</text>\n");
}

/* ---- Legends and marks -------------------------------------------------- */

enum swatch { SWATCH_LINE, SWATCH_BOX, SWATCH_DOT };

struct legend {
  double x, y, col_width;
  size_t cols, rows;
};

#define LEGEND_NAME_MAX 28
#define LEGEND_ROW 18.0

static struct legend legend_layout(const char *const *names, size_t n, double x,
                                   double y, double width) {
  char buf[256];
  double widest = 0;
  for (size_t i = 0; i < n; i++)
    widest = fmax(widest, text_width(svg_truncate(buf, sizeof buf, names[i],
                                                  LEGEND_NAME_MAX),
                                     FONT));
  struct legend l = {.x = x, .y = y, .col_width = widest + 40};
  l.cols = (size_t)fmax(1, floor(width / l.col_width));
  if (l.cols > n)
    l.cols = n ? n : 1;
  l.rows = (n + l.cols - 1) / l.cols;
  return l;
}

static double legend_height(const struct legend *l) {
  return l->rows ? (double)l->rows * LEGEND_ROW + 8 : 0;
}

static void draw_marker(struct strbuf *out, int marker, double x, double y,
                        const char *color, double r) {
  switch (marker) {
  case 1:
    sb_printf(out,
              "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
              "fill=\"%s\"/>",
              x - r, y - r, 2 * r, 2 * r, color);
    break;
  case 2:
    sb_printf(out, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\"/>",
              x, y - r * 1.2, x + r * 1.1, y + r * 0.9, x - r * 1.1,
              y + r * 0.9, color);
    break;
  case 3:
    sb_printf(out,
              "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" "
              "fill=\"%s\"/>",
              x, y - r * 1.3, x + r * 1.3, y, x, y + r * 1.3, x - r * 1.3, y,
              color);
    break;
  default:
    sb_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>",
              x, y, r, color);
  }
}

static void draw_legend(struct strbuf *out, const struct legend *l,
                        const char *const *names, const size_t *styles,
                        size_t n, enum swatch swatch) {
  char buf[256];
  sb_puts(out, "<g class=\"legend\">\n");
  for (size_t i = 0; i < n; i++) {
    double x = l->x + (double)(i % l->cols) * l->col_width;
    double y = l->y + (double)(i / l->cols) * LEGEND_ROW + 12;
    size_t s = styles ? styles[i] : i;
    const char *color = svg_color(s);
    if (swatch == SWATCH_LINE) {
      sb_printf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"%s\"/>",
                x, y - 4, x + 24, y - 4, color, svg_dash(s));
      draw_marker(out, svg_marker(s), x + 12, y - 4, color, 3);
    } else if (swatch == SWATCH_BOX) {
      sb_printf(out,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" "
                "fill=\"%s\"/>",
                x + 5, y - 10, color);
    } else {
      draw_marker(out, 0, x + 12, y - 4, color, 4);
    }
    sb_printf(out, "<text x=\"%.1f\" y=\"%.1f\"><title>", x + 30, y);
    sb_escaped(out, names[i]);
    sb_puts(out, "</title>");
    sb_escaped(out, svg_truncate(buf, sizeof buf, names[i], LEGEND_NAME_MAX));
    sb_puts(out, "</text>\n");
  }
  sb_puts(out, "</g>\n");
}

static double plot_width(const struct svg_chart *chart) {
  return chart->plot_width > 0 ? chart->plot_width : 560;
}

static void svg_open(struct strbuf *out, const struct svg_chart *chart,
                     double width, double height) {
  sb_printf(out,
            "<svg class=\"plot\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" role=\"img\" font-family=\"sans-serif\" "
            "font-size=\"%.0f\"><title>",
            width, height, width, height, FONT);
  sb_escaped(out, chart->title);
  sb_puts(out, "</title>\n");
}

/* ---- Line charts -------------------------------------------------------- */

static void data_range(const struct svg_axis *spec, const struct svg_series *s,
                       size_t nseries, int use_x, double *lo, double *hi) {
  *lo = INFINITY, *hi = -INFINITY;
  for (size_t k = 0; k < nseries; k++)
    for (size_t i = 0; i < s[k].n; i++) {
      double v = use_x ? s[k].x[i] : s[k].y[i];
      if (usable(spec, v) && (use_x || usable(spec, s[k].y[i])))
        *lo = fmin(*lo, v), *hi = fmax(*hi, v);
    }
}

static void draw_line_series(struct strbuf *out, const struct axis *x,
                             const struct axis *y, const struct svg_series *s) {
  const char *color = svg_color(s->style);
  sb_puts(out, "<g class=\"series\"><title>");
  sb_escaped(out, s->name);
  sb_printf(out,
            "</title><path class=\"mark\" fill=\"none\" stroke=\"%s\" "
            "stroke-width=\"1.8\" stroke-dasharray=\"%s\" d=\"",
            color, svg_dash(s->style));
  int pen_down = 0;
  for (size_t i = 0; i < s->n; i++) {
    int ok = usable(x->spec, s->x[i]) && usable(y->spec, s->y[i]);
    if (ok)
      sb_printf(out, "%s%.1f %.1f", pen_down ? "L" : "M", axis_map(x, s->x[i]),
                axis_map(y, s->y[i]));
    pen_down = ok;
  }
  sb_puts(out, "\"/>");
  for (size_t i = 0; i < s->n; i++)
    if (usable(x->spec, s->x[i]) && usable(y->spec, s->y[i]))
      draw_marker(out, svg_marker(s->style), axis_map(x, s->x[i]),
                  axis_map(y, s->y[i]), color, 2.6);
  sb_puts(out, "</g>\n");
}

void svg_line_chart(struct strbuf *out, const struct svg_chart *chart,
                    const struct svg_series *series, size_t nseries) {
  double plot_w = plot_width(chart), lo, hi;
  double width = MARGIN_LEFT + plot_w + MARGIN_RIGHT;
  struct axis x, y;
  data_range(&chart->x, series, nseries, 1, &lo, &hi);
  axis_resolve(&x, &chart->x, lo, hi, 12);
  data_range(&chart->y, series, nseries, 0, &lo, &hi);
  axis_resolve(&y, &chart->y, lo, hi, 6);
  x.r0 = MARGIN_LEFT, x.r1 = MARGIN_LEFT + plot_w;
  y.r0 = MARGIN_TOP + PLOT_HEIGHT, y.r1 = MARGIN_TOP;
  const char **names = xcalloc(nseries + 1, sizeof *names);
  size_t *styles = xcalloc(nseries + 1, sizeof *styles);
  for (size_t k = 0; k < nseries; k++)
    names[k] = series[k].name, styles[k] = series[k].style;
  double axis_bottom = y.r0 + 40;
  struct legend legend = legend_layout(names, chart->legend ? nseries : 0,
                                       MARGIN_LEFT, axis_bottom + 4, plot_w);
  svg_open(out, chart, width, axis_bottom + 8 + legend_height(&legend));
  draw_y_axis(out, &y, x.r0, x.r1);
  draw_x_axis(out, &x, y.r0, y.r0 + 34);
  for (size_t k = 0; k < nseries; k++)
    draw_line_series(out, &x, &y, &series[k]);
  if (chart->legend)
    draw_legend(out, &legend, names, styles, nseries, SWATCH_LINE);
  sb_puts(out, "</svg>\n");
  free(names);
  free(styles);
}

/* ---- Bar charts --------------------------------------------------------- */

struct bar_layout {
  double band;      /* pixels per category */
  int rotate;       /* category labels at -45 degrees */
  double label_h;   /* height of the category labels */
  size_t label_max; /* characters shown of a label */
};

static struct bar_layout bar_layout(const struct svg_chart *chart,
                                    const char *const *categories, size_t n,
                                    size_t nseries, int stacked,
                                    double *plot_w) {
  struct bar_layout l = {.label_max = TICK_LABEL_MAX};
  double per = stacked ? 22 : fmax(18, 7 * (double)nseries + 8);
  *plot_w = fmax(plot_width(chart), per * (double)n);
  l.band = *plot_w / (double)(n ? n : 1);
  double widest = 0;
  char buf[256];
  for (size_t i = 0; i < n; i++)
    widest = fmax(widest, text_width(svg_truncate(buf, sizeof buf,
                                                  categories[i], l.label_max),
                                     FONT));
  l.rotate = widest > l.band - 4;
  l.label_h = l.rotate ? widest * 0.71 + 16 : 18;
  return l;
}

static void bar_range(const struct svg_axis *spec, const struct svg_series *s,
                      size_t nseries, size_t ncat, int stacked, double *lo,
                      double *hi) {
  *lo = INFINITY, *hi = -INFINITY;
  for (size_t i = 0; i < ncat; i++) {
    double sum = 0;
    for (size_t k = 0; k < nseries; k++) {
      double v = s[k].y[i];
      if (!usable(spec, v))
        continue;
      sum += v;
      *lo = fmin(*lo, stacked ? sum : v), *hi = fmax(*hi, stacked ? sum : v);
    }
  }
  if (spec->scale == SVG_LOG2 && *lo <= *hi)
    *lo = fmin(*lo, 1); /* bars grow from 1 (no parallelism) */
}

static void draw_bar(struct strbuf *out, double x, double w, double y_top,
                     double y_bottom, const char *color, const char *name,
                     const char *category, double value) {
  sb_printf(out,
            "<rect class=\"mark\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
            "height=\"%.1f\" fill=\"%s\"><title>",
            x, fmin(y_top, y_bottom) - (fabs(y_bottom - y_top) < 2 ? 2 : 0), w,
            fmax(fabs(y_bottom - y_top), 2), color);
  sb_escaped(out, category);
  sb_puts(out, ", ");
  sb_escaped(out, name);
  sb_printf(out, ": %.4g</title></rect>\n", value);
}

static void draw_category(struct strbuf *out, const struct axis *y,
                          const struct svg_series *s, size_t nseries, size_t i,
                          double x0, double band, int stacked,
                          const char *category) {
  double base_value = y->spec->scale == SVG_LOG2 ? ldexp(1, (int)y->d0) : 0;
  double group_w =
      stacked ? fmin(band * 0.7, 48) : fmin(band * 0.84, 24 * (double)nseries);
  double bar_w = stacked ? group_w : group_w / (double)nseries;
  double left = x0 + (band - group_w) / 2, sum = 0;
  int drawn = 0;
  for (size_t k = 0; k < nseries; k++) {
    double v = s[k].y[i];
    if (!usable(y->spec, v) || (stacked && v == 0))
      continue; /* an empty layer of a stack would hide its neighbours */
    double bottom = stacked ? sum : base_value;
    sum += v;
    double top = stacked ? sum : v;
    double bx = stacked ? left : left + (double)k * bar_w;
    draw_bar(out, bx, stacked ? bar_w : fmax(bar_w - 1, 1), axis_map(y, top),
             axis_map(y, bottom), svg_color(s[k].style), s[k].name, category,
             v);
    drawn = 1;
  }
  if (!drawn)
    sb_printf(out,
              "<text class=\"absent\" x=\"%.1f\" y=\"%.1f\" "
              "text-anchor=\"middle\" font-size=\"10\" fill=\"#777\">"
              "n/a</text>\n",
              x0 + band / 2, y->r0 - 4);
}

static void draw_category_labels(struct strbuf *out, const struct bar_layout *l,
                                 const char *const *categories, size_t n,
                                 double x0, double y0) {
  char buf[256];
  for (size_t i = 0; i < n; i++) {
    double cx = x0 + l->band * ((double)i + 0.5), cy = y0 + 14;
    if (l->rotate)
      sb_printf(out,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
                "transform=\"rotate(-45 %.1f %.1f)\"><title>",
                cx + 4, cy, cx + 4, cy);
    else
      sb_printf(out,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\"><title>",
                cx, cy);
    sb_escaped(out, categories[i]);
    sb_puts(out, "</title>");
    sb_escaped(out, svg_truncate(buf, sizeof buf, categories[i], l->label_max));
    sb_puts(out, "</text>\n");
  }
}

void svg_bar_chart(struct strbuf *out, const struct svg_chart *chart,
                   const char *const *categories, size_t ncategories,
                   const struct svg_series *series, size_t nseries,
                   int stacked) {
  double plot_w, lo, hi;
  struct bar_layout l =
      bar_layout(chart, categories, ncategories, nseries, stacked, &plot_w);
  struct axis y;
  bar_range(&chart->y, series, nseries, ncategories, stacked, &lo, &hi);
  axis_resolve(&y, &chart->y, lo, hi, 6);
  y.r0 = MARGIN_TOP + PLOT_HEIGHT, y.r1 = MARGIN_TOP;
  double x0 = MARGIN_LEFT, width = MARGIN_LEFT + plot_w + MARGIN_RIGHT;
  double title_y = y.r0 + l.label_h + 16;
  const char **names = xcalloc(nseries + 1, sizeof *names);
  size_t *styles = xcalloc(nseries + 1, sizeof *styles);
  for (size_t k = 0; k < nseries; k++)
    names[k] = series[k].name, styles[k] = series[k].style;
  struct legend legend = legend_layout(names, chart->legend ? nseries : 0, x0,
                                       title_y + 8, fmin(plot_w, 900));
  svg_open(out, chart, width, title_y + 12 + legend_height(&legend));
  draw_y_axis(out, &y, x0, x0 + plot_w);
  for (size_t i = 0; i < ncategories; i++)
    draw_category(out, &y, series, nseries, i, x0 + l.band * (double)i, l.band,
                  stacked, categories[i]);
  sb_printf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#333\"/>\n",
            x0, y.r0, x0 + plot_w, y.r0);
  draw_category_labels(out, &l, categories, ncategories, x0, y.r0);
  sb_printf(out,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
            "class=\"axis-title\">",
            x0 + plot_w / 2, title_y);
  sb_escaped(out, chart->x.title);
  sb_puts(out, "</text>\n");
  if (chart->legend)
    draw_legend(out, &legend, names, styles, nseries, SWATCH_BOX);
  sb_puts(out, "</svg>\n");
  free(names);
  free(styles);
}

/* ---- Scatter plots ------------------------------------------------------ */

static void point_range(const double *v, size_t n, double *lo, double *hi) {
  *lo = INFINITY, *hi = -INFINITY;
  for (size_t i = 0; i < n; i++)
    if (isfinite(v[i]))
      *lo = fmin(*lo, v[i]), *hi = fmax(*hi, v[i]);
  /* Room for the labels and the points on the border. */
  double pad = *hi > *lo ? (*hi - *lo) * 0.08 : 1;
  *lo -= pad, *hi += pad;
}

static void draw_zero_lines(struct strbuf *out, const struct axis *x,
                            const struct axis *y) {
  if (x->d0 < 0 && x->d1 > 0)
    sb_printf(out,
              "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
              "stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n",
              axis_map(x, 0), y->r0, axis_map(x, 0), y->r1);
  if (y->d0 < 0 && y->d1 > 0)
    sb_printf(out,
              "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
              "stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n",
              x->r0, axis_map(y, 0), x->r1, axis_map(y, 0));
}

/* A label's box in the plot: text of `chars` characters at 10 px. */
struct label_box {
  double x0, y0, x1, y1;
};

static int boxes_overlap(const struct label_box *a, const struct label_box *b) {
  return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* Places the label of a point at (px, py): the first of eight positions
 * around it that stays inside the plot and overlaps no label placed before
 * nor any point; 1 with its box, else 0 (the label is left out: the
 * point's tooltip still names it). */
static int place_label(double px, double py, size_t chars,
                       const struct label_box *placed, size_t nplaced,
                       const double *points, size_t npoints,
                       const struct axis *x, const struct axis *y,
                       struct label_box *out) {
  static const double Dx[] = {6, 6, -6, -6, 0, 0, 8, -8};
  static const double Dy[] = {-5, 13, -5, 13, -9, 18, 4, 4};
  static const int Right[] = {1, 1, 0, 0, 2, 2, 1, 0};
  double w = 5.6 * (double)chars, h = 10;
  for (size_t k = 0; k < sizeof Dx / sizeof *Dx; k++) {
    double left = Right[k] == 1   ? px + Dx[k]
                  : Right[k] == 0 ? px + Dx[k] - w
                                  : px - w / 2;
    struct label_box b = {left, py + Dy[k] - h + 2, left + w, py + Dy[k] + 2};
    int ok = b.x0 >= x->r0 && b.x1 <= x->r1 && b.y0 >= y->r1 && b.y1 <= y->r0;
    for (size_t j = 0; ok && j < nplaced; j++)
      ok = !boxes_overlap(&b, &placed[j]);
    for (size_t j = 0; ok && j < npoints; j++) {
      struct label_box dot = {points[2 * j] - 4.5, points[2 * j + 1] - 4.5,
                              points[2 * j] + 4.5, points[2 * j + 1] + 4.5};
      ok = !boxes_overlap(&b, &dot);
    }
    if (ok) {
      *out = b;
      return 1;
    }
  }
  return 0;
}

static size_t utf8_chars(const char *s) {
  size_t n = 0;
  for (; *s; s++)
    n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

/* The points' positions in pixels (NaN pairs for points not drawn). */
static double *point_positions(const struct svg_points *p, const struct axis *x,
                               const struct axis *y) {
  double *xy = xcalloc(2 * p->n + 1, sizeof *xy);
  for (size_t i = 0; i < p->n; i++) {
    int shown = isfinite(p->x[i]) && isfinite(p->y[i]);
    xy[2 * i] = shown ? axis_map(x, p->x[i]) : NAN;
    xy[2 * i + 1] = shown ? axis_map(y, p->y[i]) : NAN;
  }
  return xy;
}

static void draw_points(struct strbuf *out, const struct svg_points *p,
                        const struct axis *x, const struct axis *y) {
  double *xy = point_positions(p, x, y);
  struct label_box *placed = xcalloc(p->n + 1, sizeof *placed);
  size_t nplaced = 0;
  char buf[256];
  for (size_t i = 0; i < p->n; i++) {
    if (isnan(xy[2 * i]))
      continue;
    sb_printf(out,
              "<g><circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" "
              "fill=\"%s\" fill-opacity=\"0.85\"><title>",
              xy[2 * i], xy[2 * i + 1], svg_color(p->group[i]));
    sb_escaped(out, p->labels[i]);
    sb_printf(out, " (%.3f, %.3f)</title></circle>", p->x[i], p->y[i]);
    svg_truncate(buf, sizeof buf, p->labels[i], 16);
    struct label_box *b = &placed[nplaced];
    if (place_label(xy[2 * i], xy[2 * i + 1], utf8_chars(buf), placed, nplaced,
                    xy, p->n, x, y, b)) {
      nplaced++;
      sb_printf(out,
                "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" "
                "font-size=\"10\">",
                b->x0, b->y1 - 2);
      sb_escaped(out, buf);
      sb_puts(out, "</text>");
    }
    sb_puts(out, "</g>\n");
  }
  free(placed);
  free(xy);
}

void svg_scatter(struct strbuf *out, const struct svg_chart *chart,
                 const struct svg_points *p) {
  double plot_w = plot_width(chart);
  double width = MARGIN_LEFT + plot_w + MARGIN_RIGHT + 80;
  double lo, hi;
  struct axis x, y;
  point_range(p->x, p->n, &lo, &hi);
  axis_resolve(&x, &chart->x, lo, hi, 10);
  point_range(p->y, p->n, &lo, &hi);
  axis_resolve(&y, &chart->y, lo, hi, 8);
  x.r0 = MARGIN_LEFT, x.r1 = MARGIN_LEFT + plot_w;
  y.r0 = MARGIN_TOP + PLOT_HEIGHT + 100, y.r1 = MARGIN_TOP;
  double axis_bottom = y.r0 + 40;
  struct legend legend =
      legend_layout(p->group_names, chart->legend ? p->ngroups : 0, MARGIN_LEFT,
                    axis_bottom + 4, plot_w);
  svg_open(out, chart, width, axis_bottom + 8 + legend_height(&legend));
  draw_y_axis(out, &y, x.r0, x.r1);
  draw_x_axis(out, &x, y.r0, y.r0 + 34);
  draw_zero_lines(out, &x, &y);
  draw_points(out, p, &x, &y);
  if (chart->legend)
    draw_legend(out, &legend, p->group_names, NULL, p->ngroups, SWATCH_DOT);
  sb_puts(out, "</svg>\n");
}

/* ---- Heatmaps ----------------------------------------------------------- */

/* A sequential colour for t in [0, 1]: light yellow to dark blue, readable
 * in grey and by colour-blind readers (lightness falls monotonically). */
static void heat_color(char *buf, size_t n, double t) {
  static const double Stops[3][3] = {
      {255, 247, 188}, {65, 182, 196}, {8, 29, 88}};
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  int seg = t < 0.5 ? 0 : 1;
  double u = (t - 0.5 * seg) * 2;
  snprintf(buf, n, "rgb(%.0f,%.0f,%.0f)",
           Stops[seg][0] + u * (Stops[seg + 1][0] - Stops[seg][0]),
           Stops[seg][1] + u * (Stops[seg + 1][1] - Stops[seg][1]),
           Stops[seg][2] + u * (Stops[seg + 1][2] - Stops[seg][2]));
}

static void heat_range(const struct svg_heatmap *h, double *lo, double *hi) {
  *lo = INFINITY, *hi = -INFINITY;
  for (size_t i = 0; i < h->rows * h->columns; i++)
    if (isfinite(h->values[i])) {
      *lo = h->values[i] < *lo ? h->values[i] : *lo;
      *hi = h->values[i] > *hi ? h->values[i] : *hi;
    }
  if (!(*hi > *lo))
    *hi = *lo + 1;
}

static void heat_cell(struct strbuf *out, const struct svg_heatmap *h,
                      size_t row, size_t col, double x, double y, double w,
                      double cell_h, double lo, double hi) {
  double v = h->values[row * h->columns + col];
  char color[40];
  if (!isfinite(v))
    return;
  heat_color(color, sizeof color, (v - lo) / (hi - lo));
  sb_printf(out,
            "<rect class=\"mark\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
            "height=\"%.1f\" fill=\"%s\"><title>",
            x, y, w, cell_h, color);
  sb_escaped(out, h->row_names[row]);
  sb_printf(out, ", %s: %.3g</title></rect>", h->column_names[col], v);
}

/* The colour key under the map: the scale from lo to hi in 10 steps. */
static void heat_key(struct strbuf *out, const char *title, double x, double y,
                     double lo, double hi) {
  char color[40];
  for (int k = 0; k < 10; k++) {
    heat_color(color, sizeof color, (k + 0.5) / 10);
    sb_printf(out,
              "<rect x=\"%.1f\" y=\"%.1f\" width=\"20\" height=\"10\" "
              "fill=\"%s\"/>",
              x + 20 * k, y, color);
  }
  sb_printf(out,
            "<text x=\"%.1f\" y=\"%.1f\">%.3g</text><text x=\"%.1f\" "
            "y=\"%.1f\" text-anchor=\"end\">%.3g</text><text x=\"%.1f\" "
            "y=\"%.1f\">",
            x, y + 24, lo, x + 200, y + 24, hi, x + 212, y + 9);
  sb_escaped(out, title);
  sb_puts(out, "</text>\n");
}

void svg_heatmap(struct strbuf *out, const struct svg_chart *chart,
                 const struct svg_heatmap *h) {
  double cell_w = 28, cell_h = h->rows > 60 ? 600.0 / (double)h->rows : 10;
  cell_h = cell_h < 2 ? 2 : cell_h;
  int labelled = cell_h >= 9;
  double left = 130, top = 24, lo, hi;
  double width = left + cell_w * (double)h->columns + 330;
  double bottom = top + cell_h * (double)h->rows;
  heat_range(h, &lo, &hi);
  svg_open(out, chart, width, bottom + 56);
  char buf[64];
  /* Every step-th column named, so that names never overlap. */
  size_t longest_name = 1, step;
  for (size_t c = 0; c < h->columns; c++)
    if (utf8_chars(h->column_names[c]) > longest_name)
      longest_name = utf8_chars(h->column_names[c]);
  step = 1 + (size_t)(7.0 * (double)longest_name / cell_w);
  for (size_t c = 0; c < h->columns; c += step) {
    sb_printf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
              left + cell_w * ((double)c + 0.5), top - 6);
    sb_escaped(out, h->column_names[c]);
    sb_puts(out, "</text>");
  }
  for (size_t row = 0; row < h->rows; row++) {
    double y = top + cell_h * (double)row;
    if (labelled) {
      sb_printf(out,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
                "font-size=\"9\">",
                left - 4, y + cell_h - 1.5);
      sb_escaped(out, svg_truncate(buf, sizeof buf, h->row_names[row], 20));
      sb_puts(out, "</text>");
    }
    for (size_t c = 0; c < h->columns; c++)
      heat_cell(out, h, row, c, left + cell_w * (double)c, y, cell_w, cell_h,
                lo, hi);
    sb_puts(out, "\n");
  }
  sb_printf(out, "<text x=\"%.1f\" y=\"%.1f\">", left, bottom + 16);
  sb_escaped(out, chart->x.title);
  sb_puts(out, "</text>");
  heat_key(out, chart->y.title, left, bottom + 26, lo, hi);
  sb_puts(out, "</svg>\n");
}
