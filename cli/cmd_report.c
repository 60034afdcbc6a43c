/* cmd_report.c: `pisa-char report`, one self-contained HTML file (inline CSS
 * and SVG, no scripts, no external resources) with the ranking, the plots of
 * PISA-NMC figure 4, reuse and miss-ratio curves, the instruction mix, the
 * principal components and per-function tables of a set of documents (the
 * page is report.h's). */
#include "cmdline.h"
#include "commands.h"
#include "docset.h"
#include "numbers.h"
#include "rank.h"
#include "report.h"
#include "strbuf.h"
#include "textout.h"
#include "util.h"

#include <stdio.h>

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
    "DIR means every *.json document in the tree under it (other JSON files\n"
    "are skipped with a note); deep and counter documents are not mixed.\n"
    "\n"
    "  -o, --output FILE   the HTML file to write (required)\n"
    "      --force         replace FILE if it exists\n"
    "      --title TEXT    the report's title (default \"pisa-char report\")\n"
    "      --functions N   functions per application table (default 10)\n"
    "      --machine FILE  machines of the ranking model (see rank --help)\n"
    "      --llc-bytes N   the host's last-level cache for the ranking\n"
    "      --clusters K    k-means clusters of the components (default 3)\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 on success, 1 if writing fails, 2 on bad usage, an\n"
    "existing FILE without --force, or an unreadable, malformed or invalid\n"
    "document.\n";

struct options {
  const char *output;
  int force;
  struct report_options report;
};

/* ---- Command line ------------------------------------------------------- */

static const struct option ReportOptions[] = {
    {"output", required_argument, NULL, 'o'},
    {"force", no_argument, NULL, 'F'},
    {"title", required_argument, NULL, 'T'},
    {"functions", required_argument, NULL, 'n'},
    {"clusters", required_argument, NULL, 'k'},
    {"machine", required_argument, NULL, 'M'},
    {"llc-bytes", required_argument, NULL, 'l'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

const struct command_line report_line = {
    .name = "report",
    .usage = usage_text,
    .short_options = ":ho:",
    .options = ReportOptions,
};

static int take_option(int opt, char *arg, void *ctx) {
  struct options *o = ctx;
  struct report_options *r = &o->report;
  int model;
  if (opt == 'o')
    o->output = arg;
  else if (opt == 'F')
    o->force = 1;
  else if (opt == 'T')
    r->title = arg;
  else if (opt == 'n' && parse_long(arg, 0, 1000000, &r->functions))
    return usage_error(&report_line, "--functions wants a count >= 0, not '%s'",
                       arg);
  else if (opt == 'k' && parse_long(arg, 1, 1000000, &r->clusters))
    return usage_error(&report_line, "--clusters wants a count >= 1, not '%s'",
                       arg);
  else if ((model = rank_model_option(&report_line, &r->model, opt, arg)))
    return model;
  return 0;
}

/* ---- Checks and writing ------------------------------------------------- */

/* The report of the set, written to -o; 0, or 1 if writing fails. */
static int write_report(const struct options *o,
                        const struct pisa_docset *set) {
  struct strbuf html = {0};
  report_build(&o->report, set, &html);
  int status = textout_write("report", o->output, &html, o->force);
  sb_free(&html);
  return status;
}

int cmd_report(int argc, char **argv) {
  struct options o = {
      .report = {.title = "pisa-char report", .functions = 10, .clusters = 3}};
  rank_model_init(&o.report.model);
  int status = cmdline_parse(&report_line, argc, argv, take_option, &o);
  if (status != CMDLINE_PARSED)
    return status;
  if (!o.output)
    return usage_error(&report_line, "no output: use -o FILE");
  if (optind >= argc)
    return usage_error(&report_line, "no FILE or DIR to report on");
  if (textout_check("report", o.output, o.force))
    return 2;
  struct pisa_docset set;
  if (docset_load(&set, argv + optind, argc - optind))
    return 2;
  status = textout_check_inputs("report", o.output, &set);
  if (!status)
    status = write_report(&o, &set);
  docset_free(&set);
  return status;
}
