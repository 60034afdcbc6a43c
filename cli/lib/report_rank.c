/* report_rank.c: the report's sections with the ranking model of rank.h:
 * the NMC offload ranking of applications and functions with each
 * candidate's explanation, and the table of each application's top
 * functions. */
#include "docmetrics.h"
#include "docset.h"
#include "html.h"
#include "jsonpath.h"
#include "numbers.h"
#include "rank.h"
#include "report_sections.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Ranking (the model of rank.h) -------------------------------------- */

static void ranking_header(struct report *r, const char *what) {
  sb_printf(&r->html,
            "<table><tr><th>#</th><th class=\"name\">%s</th>"
            "<th class=\"name\">score (log2 speed-up)</th><th>speed-up</th>"
            "<th>operations</th><th>traffic (B/op)</th><th>ILP</th>"
            "<th>MLP</th><th class=\"name\">host</th>"
            "<th class=\"name\">near-memory</th>"
            "<th class=\"name\">explanation</th></tr>\n",
            what);
}

/* The score as a bar, 12 px per doubling up to 8: blue for a gain,
 * orange for a loss. */
static void score_cell(struct report *r, const struct rank_result *res) {
  double px = 12 * fmin(fabs(res->score), 8);
  sb_printf(&r->html,
            "<td class=\"name\"><span class=\"score\"><span class=\"%s\" "
            "style=\"width:%.0fpx\"></span></span>%+.2f</td>",
            res->score < 0 ? "bar neg" : "bar", px, res->score);
}

static void ranking_row(struct report *r, size_t rank,
                        const struct rank_candidate *c) {
  const struct rank_result *res = &c->result;
  struct strbuf why = {0};
  sb_printf(&r->html, "<tr><td>%zu</td><td class=\"name\">", rank);
  sb_escaped(&r->html, c->label);
  sb_puts(&r->html, "</td>");
  if (!res->valid) {
    sb_puts(&r->html, "<td class=\"name\">n/a</td><td colspan=\"8\">no "
                      "instructions</td></tr>\n");
    return;
  }
  score_cell(r, res);
  sb_printf(&r->html, "<td>%.3gx%s</td><td>%.3g</td><td>%.3g</td>",
            res->speedup, res->fits ? "<span class=\"warn\">*</span>" : "",
            res->t.ops, res->host.traffic / res->t.ops);
  if (res->t.has_ilp)
    sb_printf(&r->html, "<td>%.3g</td><td>%.3g</td>", res->t.ilp, res->t.mlp);
  else
    sb_puts(&r->html, "<td>n/a</td><td>n/a</td>");
  sb_printf(&r->html,
            "<td class=\"name\">%s</td><td class=\"name\">%s</td>"
            "<td class=\"name\"><details><summary>why</summary><pre>",
            rank_bound(&res->host), rank_bound(&res->nmc));
  rank_explain(&why, &r->o->model, res, "");
  sb_escaped(&r->html, why.data);
  sb_puts(&r->html, "</pre></details></td></tr>\n");
  sb_free(&why);
}

/* Rows [from, to) of the sorted candidates, as a table. */
static void ranking_rows(struct report *r, const struct rank_candidates *c,
                         size_t from, size_t to, const char *what) {
  ranking_header(r, what);
  for (size_t i = from; i < to; i++)
    ranking_row(r, i + 1, &c->list[i]);
  sb_puts(&r->html, "</table>\n");
}

/* The `top` best of the candidates, after sorting them; in a folded
 * report, those after the first REPORT_OPEN in a fold. */
static void ranking_table(struct report *r, struct rank_candidates *c,
                          size_t top, const char *what) {
  rank_sort(c);
  size_t n = c->n < top ? c->n : top;
  size_t open = report_folded(r) && n > REPORT_OPEN ? REPORT_OPEN : n;
  ranking_rows(r, c, 0, open, what);
  if (open == n)
    return;
  char summary[96];
  snprintf(summary, sizeof summary, "ranks %zu to %zu", open + 1, n);
  html_fold_open(&r->html, NULL, summary);
  ranking_rows(r, c, open, n, what);
  html_fold_close(&r->html);
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
  const struct machine *m = &r->o->model.machine;
  char summary[200];
  html_section(&r->html, "ranking", "NMC offload ranking");
  sb_printf(&r->html,
            "<p class=\"note\">The model of <code>pisa-char rank</code> "
            "(docs/ranking.md), machine %s: %s. The score is log2 of the "
            "estimated speed-up of running the candidate near memory (host "
            "time / near-memory time); traffic is bytes moved past the "
            "host's cache per operation; host and near-memory say which "
            "bound sets each time. <span class=\"warn\">*</span>: the "
            "footprint fits the host's cache. \"why\" opens every term.</p>\n",
            m->name, machine_summary(m, summary, sizeof summary));
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

/* A number of the METRICS object `f`, or n/a. */
static void cell_number(struct report *r, int present, double v,
                        const char *fmt) {
  sb_puts(&r->html, "<td>");
  if (present)
    sb_printf(&r->html, fmt, v);
  else
    sb_puts(&r->html, "n/a");
  sb_puts(&r->html, "</td>");
}

static void function_row(struct report *r, const struct pisa_doc *doc,
                         json_object *f, double instr_total,
                         double access_total) {
  struct rank_result res;
  rank_evaluate(&r->o->model, f, doc_is_counter(doc), &res);
  json_object *file = json_at(f, "file");
  double line = 0, instructions = json_count_at(f, "instructions"), v;
  int miss_bin = 0;
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
  cell_number(r, instructions > 0, metrics_accesses(f) / instructions, "%.3f");
  cell_number(r, metrics_entropy(f, 6, &v), v, "%.2f");
  cell_number(r, json_number_at(f, "spatial_locality/score_strict", &v), v,
              "%.3f");
  cell_number(
      r,
      metrics_miss_estimate(f, (uint64_t)r->o->model.machine.host.llc_bytes,
                            RANK_LINE_BYTES, &v, &miss_bin),
      v, "%.3f");
  cell_number(r, json_number_at(f, "dlp/dlp2", &v), v, "%.2f");
  cell_number(r, json_number_at(f, "bblp/pbblp", &v), v, "%.2f");
  cell_number(r, res.valid, res.score, "%+.2f");
  sb_puts(&r->html, "</tr>\n");
}

void report_function_table(struct report *r, size_t i) {
  const struct pisa_doc *doc = &r->set->docs[i];
  json_object *functions = json_at(doc->root, "functions");
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
            format_bytes(llc, sizeof llc, r->o->model.machine.host.llc_bytes));
  for (size_t f = 0; f < n && shown < (size_t)r->o->functions; f++)
    if (rows[f].instructions > 0 || metrics_accesses(rows[f].entry) > 0) {
      function_row(r, doc, rows[f].entry, instr, accesses);
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
