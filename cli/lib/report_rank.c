/* report_rank.c: the report's sections with the ranking model of rank.h:
 * the NMC offload ranking of applications and functions, and the table of
 * each application's top functions. */
#include "docmetrics.h"
#include "docset.h"
#include "html.h"
#include "jsonpath.h"
#include "numbers.h"
#include "rank.h"
#include "report_sections.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Ranking (the model of rank.h) -------------------------------------- */

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
                        const struct rank_candidate *c) {
  const struct rank_result *res = &c->result;
  sb_printf(&r->html, "<tr><td>%zu</td><td class=\"name\">", rank);
  sb_escaped(&r->html, c->label);
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

/* The `top` best of the candidates, after sorting them. */
static void ranking_table(struct report *r, struct rank_candidates *c,
                          size_t top, const char *what) {
  rank_sort(c);
  ranking_header(r, what);
  for (size_t i = 0; i < c->n && i < top; i++)
    ranking_row(r, i + 1, &c->list[i]);
  sb_puts(&r->html, "</table>\n");
}

/* The functions that rank --by function keeps by default. */
static void function_ranking(struct report *r) {
  struct rank_candidates c = {0};
  for (size_t i = 0; i < r->set->count; i++)
    rank_add_functions(&c, &r->o->model, &r->set->docs[i], RANK_MIN_SHARE, 0);
  sb_puts(&r->html, "<h3>Functions (top 20 of those with at least 1% of "
                    "their program's memory accesses)</h3>\n");
  if (c.n)
    ranking_table(r, &c, 20, "function");
  else
    sb_puts(&r->html, "<p class=\"absent\">Not in these documents: no "
                      "function makes 1% of its program's accesses.</p>\n");
  rank_candidates_free(&c);
}

void report_ranking(struct report *r) {
  char llc[32];
  html_section(&r->html, "ranking", "NMC offload ranking");
  sb_printf(&r->html,
            "<p class=\"note\">The model of <code>pisa-char rank</code> "
            "(docs/ranking.md), last-level cache %s with 64-byte lines. "
            "Higher scores are better candidates for near-memory computing. "
            "Each metric column is its contribution to the score (weight x "
            "normalised value / sum of the weights present), with the "
            "measured value below it; n/a: not in the document, and the "
            "score then covers the metrics present.</p>\n",
            format_bytes(llc, sizeof llc, (double)r->o->model.llc_bytes));
  struct rank_candidates c = {0};
  for (size_t i = 0; i < r->set->count; i++)
    rank_add_application(&c, &r->o->model, &r->set->docs[i]);
  sb_puts(&r->html, "<h3>Applications</h3>\n");
  ranking_table(r, &c, c.n, "application");
  rank_candidates_free(&c);
  function_ranking(r);
}

/* ---- Top functions of an application ------------------------------------ */

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
  sb_escaped(&r->html, json_object_get_string(json_at(f, "name")));
  sb_puts(&r->html, "</td><td class=\"name\">");
  if (json_object_is_type(file, json_type_string)) {
    sb_escaped(&r->html, json_object_get_string(file));
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

void report_function_table(struct report *r, size_t i) {
  json_object *functions = json_at(r->set->docs[i].root, "functions");
  size_t n = json_object_array_length(functions), shown = 0;
  struct function_row *rows = xcalloc(n + 1, sizeof *rows);
  for (size_t f = 0; f < n; f++) {
    rows[f].entry = json_object_array_get_idx(functions, f);
    rows[f].instructions = json_count_at(rows[f].entry, "instructions");
  }
  qsort(rows, n, sizeof *rows, by_instructions);
  double instr = json_count_at(report_totals(r, i), "instructions");
  double accesses = metrics_accesses(report_totals(r, i));
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
