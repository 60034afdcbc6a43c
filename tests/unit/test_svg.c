/* test_svg.c: the scales, ticks, labels, escaping and palette of the
 * report's SVG charts (cli/lib/svg.h), against hand-worked cases and a brute
 * force over candidate tick steps, and bar and line geometry. */
#include "check.h"
#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static void test_linear_ticks_by_hand(void) {
  double t[SVG_MAX_TICKS];
  /* 0.87 over at most 6 intervals: steps 0.1 (9) too fine, 0.2 gives 5. */
  EXPECT_EQ(svg_linear_ticks(0, 0.87, 6, t), 6);
  for (int i = 0; i < 6; i++)
    EXPECT(NEAR(t[i], 0.2 * i));
  /* 13 over 6: step 2 needs 7 intervals, 5 needs 3: 0, 5, 10, 15. */
  EXPECT_EQ(svg_linear_ticks(0, 13, 6, t), 4);
  EXPECT(t[0] == 0 && NEAR(t[3], 15));
  /* -3..7 over 5: step 2 needs -4..8 (6), step 5 needs -5..10 (3). */
  EXPECT_EQ(svg_linear_ticks(-3, 7, 5, t), 4);
  EXPECT(NEAR(t[0], -5) && NEAR(t[3], 10));
  /* Exact multiples stay the ends: 0..1 over 5 is 0, 0.2, ..., 1. */
  EXPECT_EQ(svg_linear_ticks(0, 1, 5, t), 6);
  EXPECT(t[0] == 0 && NEAR(t[5], 1));
  /* No width: 0 widens to [-1, 1]; 4 intervals of 0.5. */
  EXPECT_EQ(svg_linear_ticks(0, 0, 4, t), 5);
  EXPECT(NEAR(t[0], -1) && NEAR(t[4], 1));
}

/* Whether step is 1, 2 or 5 x 10^k. */
static int nice_step(double step) {
  double e = floor(log10(step)), m = step / pow(10, e);
  return fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6 ||
         fabs(m - 10) < 1e-6;
}

/* Intervals a step needs to cover [lo, hi] with multiples of it. */
static double intervals(double lo, double hi, double step) {
  return ceil(hi / step - 1e-9) - floor(lo / step + 1e-9);
}

static void test_linear_ticks_brute_force(void) {
  test_seed(7);
  double t[SVG_MAX_TICKS];
  for (int round = 0; round < 2000; round++) {
    double scale = pow(10, (double)(test_rng() % 12) - 6);
    double lo = ((double)(test_rng() % 2001) - 1000) / 100 * scale;
    double hi = lo + (double)(1 + test_rng() % 5000) / 100 * scale;
    size_t max = 2 + test_rng() % 10;
    size_t n = svg_linear_ticks(lo, hi, max, t);
    double step = t[1] - t[0];
    EXPECT(n >= 2 && n - 1 <= max);
    EXPECT(t[0] <= lo + 1e-9 * scale && t[n - 1] >= hi - 1e-9 * scale);
    EXPECT(nice_step(step));
    for (size_t i = 1; i < n; i++)
      EXPECT(fabs(t[i] - t[i - 1] - step) < 1e-6 * step);
    /* No smaller 1-2-5 step fits in max intervals. */
    for (double e = floor(log10(step)) - 2; e <= log10(step) + 1e-9; e++)
      for (int m = 0; m < 3; m++) {
        double s = (double[]){1, 2, 5}[m] * pow(10, e);
        if (s < step * (1 - 1e-9))
          EXPECT(intervals(lo, hi, s) > (double)max);
      }
  }
}

static void test_log2_ticks(void) {
  int e[SVG_MAX_TICKS];
  /* 8 B .. 32 KiB (2^3..2^15) in at most 8: step 2 from 2 to 16. */
  EXPECT_EQ(svg_log2_ticks(3, 15, 8, e), 8);
  EXPECT(e[0] == 2 && e[7] == 16);
  /* Fractional exponents round outwards: 2^0.5 .. 2^3.2 -> 0..4. */
  EXPECT_EQ(svg_log2_ticks(0.5, 3.2, 8, e), 5);
  EXPECT(e[0] == 0 && e[4] == 4);
  /* 0..30 in at most 6: step 5. */
  EXPECT_EQ(svg_log2_ticks(0, 30, 6, e), 7);
  EXPECT(e[1] == 5 && e[6] == 30);
  /* A single power of two still gets an interval. */
  EXPECT_EQ(svg_log2_ticks(2, 2, 8, e), 2);
  EXPECT(e[0] == 2 && e[1] == 3);
}

static void test_labels(void) {
  char b[32];
  EXPECT(strcmp(svg_format_tick(b, sizeof b, 0.2 * 3, 0.2), "0.6") == 0);
  EXPECT(strcmp(svg_format_tick(b, sizeof b, 15, 5), "15") == 0);
  EXPECT(strcmp(svg_format_tick(b, sizeof b, 0.25, 0.05), "0.25") == 0);
  EXPECT(strcmp(svg_format_tick(b, sizeof b, -1e-17, 0.2), "0.0") == 0);
  EXPECT(strcmp(svg_format_pow2_bytes(b, sizeof b, 3), "8 B") == 0);
  EXPECT(strcmp(svg_format_pow2_bytes(b, sizeof b, 9), "512 B") == 0);
  EXPECT(strcmp(svg_format_pow2_bytes(b, sizeof b, 10), "1 KiB") == 0);
  EXPECT(strcmp(svg_format_pow2_bytes(b, sizeof b, 25), "32 MiB") == 0);
  EXPECT(strcmp(svg_format_pow2_count(b, sizeof b, 0), "1") == 0);
  EXPECT(strcmp(svg_format_pow2_count(b, sizeof b, 21), "2 Mi") == 0);
}

static void test_text(void) {
  char b[64];
  EXPECT(strcmp(svg_truncate(b, sizeof b, "abcdef", 4), "abc\xe2\x80\xa6") ==
         0);
  EXPECT(strcmp(svg_truncate(b, sizeof b, "abcd", 4), "abcd") == 0);
  /* Five two-byte characters cut to three: two and the ellipsis. */
  EXPECT(strcmp(svg_truncate(b, sizeof b,
                             "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                             "\xc3\xa9",
                             3),
                "\xc3\xa9\xc3\xa9\xe2\x80\xa6") == 0);
  struct strbuf s = {0};
  sb_escaped(&s, "<a href=\"x\">&'");
  EXPECT(strcmp(s.data, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;") == 0);
  for (int i = 0; i < 2000; i++)
    sb_printf(&s, "%d,", i); /* growth keeps earlier text */
  EXPECT(strncmp(s.data, "&lt;a", 5) == 0 && strstr(s.data, ",1999,"));
  sb_free(&s);
}

static void test_palette(void) {
  /* 40 series get 40 different (colour, dash, marker) styles. */
  for (size_t i = 0; i < 40; i++)
    for (size_t j = i + 1; j < 40; j++)
      EXPECT(strcmp(svg_color(i), svg_color(j)) != 0 ||
             strcmp(svg_dash(i), svg_dash(j)) != 0 ||
             svg_marker(i) != svg_marker(j));
  /* The first ten are ten different hues. */
  for (size_t i = 0; i < 10; i++)
    for (size_t j = i + 1; j < 10; j++)
      EXPECT(strcmp(svg_color(i), svg_color(j)) != 0);
}

/* The heights of the bars (rect class="mark") in order. */
static size_t bar_heights(const char *svg, double *h, size_t max) {
  size_t n = 0;
  for (const char *p = svg; (p = strstr(p, "<rect class=\"mark\"")) && n < max;
       p++)
    EXPECT(sscanf(strstr(p, "height=\""), "height=\"%lf", &h[n++]) == 1);
  return n;
}

static void test_bar_geometry(void) {
  /* A 0..1 axis is 260 px high: 0.5 -> 130 px, 1 -> 260 px; a missing
   * value draws no bar but "n/a". */
  const char *cats[] = {"a", "b", "c"};
  double v[] = {0.5, 1, NAN}, h[8];
  struct svg_series s = {"s", NULL, v, 3, 0};
  struct svg_chart chart = {
      .title = "t",
      .x = {.title = "x"},
      .y = {.title = "y (unit)", .fixed = 1, .zero = 1, .min = 0, .max = 1}};
  struct strbuf out = {0};
  svg_bar_chart(&out, &chart, cats, 3, &s, 1, 0);
  EXPECT_EQ(bar_heights(out.data, h, 8), 2);
  EXPECT(NEAR(h[0], 130) && NEAR(h[1], 260));
  EXPECT(strstr(out.data, ">n/a</text>") != NULL);
  EXPECT(strstr(out.data, "y (unit)") != NULL);
  sb_free(&out);
  /* Log2 axis from 1: ticks 1, 2, 4; 4 fills it, 2 is half of it. */
  double p[] = {4, 2};
  s = (struct svg_series){"p", NULL, p, 2, 0};
  chart.y = (struct svg_axis){.title = "p", .scale = SVG_LOG2};
  svg_bar_chart(&out, &chart, cats, 2, &s, 1, 0);
  EXPECT_EQ(bar_heights(out.data, h, 8), 2);
  EXPECT(NEAR(h[0], 260) && NEAR(h[1], 130));
  sb_free(&out);
  /* Stacked shares 0.25 + 0.75 fill the 0..1 axis: 65 and 195 px. */
  double a[] = {0.25}, b[] = {0.75};
  struct svg_series two[] = {{"a", NULL, a, 1, 0}, {"b", NULL, b, 1, 1}};
  chart.y = (struct svg_axis){
      .title = "share", .fixed = 1, .zero = 1, .min = 0, .max = 1};
  svg_bar_chart(&out, &chart, cats, 1, two, 2, 1);
  EXPECT_EQ(bar_heights(out.data, h, 8), 2);
  EXPECT(NEAR(h[0], 65) && NEAR(h[1], 195));
  sb_free(&out);
}

static void test_line_gap(void) {
  /* A NaN splits the line: two "M" moves, three points drawn. */
  double x[] = {0, 1, 2, 3}, y[] = {1, NAN, 2, 3};
  struct svg_series s = {"s", x, y, 4, 0};
  struct svg_chart chart = {
      .title = "t", .x = {.title = "x"}, .y = {.title = "y"}};
  struct strbuf out = {0};
  svg_line_chart(&out, &chart, &s, 1);
  const char *d = strstr(out.data, " d=\"M");
  EXPECT(d != NULL);
  size_t moves = 0, lines = 0;
  for (const char *p = d + 4; p && *p != '"'; p++)
    moves += *p == 'M', lines += *p == 'L';
  EXPECT_EQ(moves, 2);
  EXPECT_EQ(lines, 1);
  sb_free(&out);
}

int main(void) {
  RUN(test_linear_ticks_by_hand);
  RUN(test_linear_ticks_brute_force);
  RUN(test_log2_ticks);
  RUN(test_labels);
  RUN(test_text);
  RUN(test_palette);
  RUN(test_bar_geometry);
  RUN(test_line_gap);
  return check_summary();
}
