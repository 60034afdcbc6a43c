/* svg_scale.c: what the charts of svg.c are measured and coloured with:
 * nice ticks of linear and log2 axes, their labels, the palette, label
 * truncation, and the usual axes and charts. */
#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- Labels ------------------------------------------------------------- */

const char *svg_truncate(char *buf, size_t n, const char *s, size_t max_chars) {
  static const char ellipsis[] = "\xe2\x80\xa6";
  size_t chars = 0, cut = 0, i;
  for (i = 0; s[i]; i++) {
    if (((unsigned char)s[i] & 0xc0) == 0x80)
      continue; /* a continuation byte of the current character */
    if (chars + 1 == max_chars)
      cut = i; /* where the ellipsis goes if the text is too long */
    chars++;
  }
  size_t len = chars > max_chars && max_chars > 0 ? cut : i;
  if (len + sizeof ellipsis > n)
    len = 0; /* the caller's buffer is too small: nothing sensible fits */
  memcpy(buf, s, len);
  buf[len] = '\0';
  if (chars > max_chars && max_chars > 0)
    strcat(buf, ellipsis);
  return buf;
}

/* ---- Scales and ticks --------------------------------------------------- */

size_t svg_linear_ticks(double lo, double hi, size_t max_intervals,
                        double *ticks) {
  if (!isfinite(lo) || !isfinite(hi) || !isfinite(hi - lo))
    lo = 0, hi = 1; /* nothing sensible to draw; keep the loop finite */
  if (!(hi > lo)) {
    double pad = lo != 0 ? fabs(lo) / 2 : 1;
    lo -= pad, hi += pad;
  }
  if (max_intervals < 1)
    max_intervals = 1;
  if (max_intervals > SVG_MAX_TICKS - 1)
    max_intervals = SVG_MAX_TICKS - 1;
  static const double mantissas[] = {1, 2, 5};
  double step = 0, first = 0, last = 0;
  /* The smallest nice step that needs at most max_intervals intervals. */
  for (int e = (int)floor(log10((hi - lo) / (double)max_intervals)) - 1;; e++) {
    int found = 0;
    for (size_t m = 0; m < 3 && !found; m++) {
      step = mantissas[m] * pow(10, e);
      first = floor(lo / step + 1e-9), last = ceil(hi / step - 1e-9);
      found = last - first <= (double)max_intervals;
    }
    if (found)
      break;
  }
  size_t n = 0;
  for (double k = first; k <= last; k++)
    ticks[n++] = k * step == 0 ? 0 : k * step; /* no -0 */
  return n;
}

size_t svg_log2_ticks(double lo_exp, double hi_exp, size_t max_intervals,
                      int *exps) {
  int lo = (int)floor(lo_exp), hi = (int)ceil(hi_exp);
  if (hi <= lo)
    hi = lo + 1;
  if (max_intervals < 1)
    max_intervals = 1;
  int step = 1;
  while ((hi - lo + step - 1) / step > (int)max_intervals ||
         (hi - lo + step - 1) / step > SVG_MAX_TICKS - 1)
    step++;
  /* Ticks on multiples of the step, so that they read 1, 4, 16, ... */
  int first = (int)floor((double)lo / step) * step;
  size_t n = 0;
  for (int e = first; e < hi + step; e += step)
    exps[n++] = e;
  return n;
}

const char *svg_format_tick(char *buf, size_t n, double value, double step) {
  int decimals = 0;
  step = fabs(step);
  while (decimals < 9 && step > 0 &&
         fabs(step * pow(10, decimals) - round(step * pow(10, decimals))) >
             1e-6 * step * pow(10, decimals))
    decimals++;
  if (fabs(value) < 1e-12 * (step > 0 ? step : 1))
    value = 0;
  snprintf(buf, n, "%.*f", decimals, value);
  return buf;
}

static const char *format_pow2(char *buf, size_t n, int exp,
                               const char *const *units, size_t nunits) {
  if (exp < 0) {
    snprintf(buf, n, "%g%s", ldexp(1, exp), units[0]);
    return buf;
  }
  size_t u = (size_t)exp / 10;
  if (u >= nunits)
    u = nunits - 1;
  snprintf(buf, n, "%.0f%s", ldexp(1, exp - 10 * (int)u), units[u]);
  return buf;
}

const char *svg_format_pow2_bytes(char *buf, size_t n, int exp) {
  static const char *const units[] = {" B",   " KiB", " MiB", " GiB",
                                      " TiB", " PiB", " EiB"};
  return format_pow2(buf, n, exp, units, sizeof units / sizeof *units);
}

const char *svg_format_pow2_count(char *buf, size_t n, int exp) {
  static const char *const units[] = {"",    " Ki", " Mi", " Gi",
                                      " Ti", " Pi", " Ei"};
  return format_pow2(buf, n, exp, units, sizeof units / sizeof *units);
}

/* ---- Palette ------------------------------------------------------------ */

/* Okabe-Ito's colour-blind safe hues, extended with four darker ones. */
static const char *const Colors[] = {
    "#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7",
    "#56b4e9", "#000000", "#a6761d", "#7570b3", "#8c8c00",
};
static const char *const Dashes[] = {"", "6 3", "2 2", "8 3 2 3"};
#define NUM_COLORS (sizeof Colors / sizeof *Colors)
#define NUM_DASHES (sizeof Dashes / sizeof *Dashes)

const char *svg_color(size_t i) { return Colors[i % NUM_COLORS]; }
const char *svg_dash(size_t i) { return Dashes[(i / NUM_COLORS) % NUM_DASHES]; }
int svg_marker(size_t i) { return (int)((i / NUM_COLORS) % 4); }

/* ---- Axes and charts ---------------------------------------------------- */

struct svg_axis svg_axis_of(const char *title, enum svg_scale scale,
                            enum svg_label label) {
  return (struct svg_axis){.title = title, .scale = scale, .label = label};
}

struct svg_axis svg_ratio_axis(const char *title, enum svg_label label) {
  return (struct svg_axis){
      .title = title, .label = label, .fixed = 1, .zero = 1, .max = 1};
}

struct svg_axis svg_zero_axis(const char *title, enum svg_label label) {
  return (struct svg_axis){
      .title = title, .scale = SVG_LINEAR, .label = label, .zero = 1};
}

struct svg_chart svg_chart_of(const char *title, struct svg_axis x,
                              struct svg_axis y) {
  return (struct svg_chart){.title = title, .x = x, .y = y, .legend = 1};
}
