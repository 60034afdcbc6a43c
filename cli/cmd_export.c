/* cmd_export.c: `pisa-char export --format csv|tsv DOCS...`: every number
 * of the documents as one long ("tidy") table, a row per document, scope,
 * key and metric (docrows.h), that pandas, R and spreadsheets read as it
 * is. */
#include "cmdline.h"
#include "commands.h"
#include "docrows.h"
#include "docset.h"
#include "strbuf.h"
#include "textout.h"
#include "util.h"

#include <string.h>

static const char usage_text[] =
    "usage: pisa-char export [options] FILE|DIR...\n"
    "\n"
    "Writes every number of the documents as one long table with the\n"
    "columns document, scope, scope_key, metric and value: one row per\n"
    "number, for every family the documents hold (scope: totals, program,\n"
    "thread, function, region, rank, interval, mpi, ...; scope_key: the\n"
    "thread number, function name, region name or rank; metric: the path of\n"
    "the number, such as reuse_distance.64.bins.3 or memory_entropy.6).\n"
    "Fields with the separator, a quote or a line break are quoted as RFC\n"
    "4180 says. DIR means every *.json file in it.\n"
    "\n"
    "Options:\n"
    "      --format FORMAT  one of {format}: comma-separated (RFC 4180,\n"
    "                       CRLF line ends, the default) or tab-separated\n"
    "  -o, --output FILE    write the table to FILE instead of standard\n"
    "                       output\n"
    "      --force          replace an existing FILE\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status: 0 on success, 1 when the table cannot be written, 2 on\n"
    "bad usage or an unreadable, malformed or invalid document.\n";

enum { OPT_FORMAT = 256, OPT_FORCE };

static const struct option ExportOptions[] = {
    {"format", required_argument, NULL, OPT_FORMAT},
    {"output", required_argument, NULL, 'o'},
    {"force", no_argument, NULL, OPT_FORCE},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* The formats: their names, separators and line ends. */
static const struct table_format {
  const char *name;
  char separator;
  const char *line_end;
} Formats[] = {{"csv", ',', "\r\n"}, {"tsv", '\t', "\n"}};
static const struct name_table FormatNames = NAME_TABLE_INIT(Formats);

static const struct cmdline_values ExportValues[] = {
    {"format", &FormatNames},
    {NULL, NULL},
};

const struct command_line export_line = {
    .name = "export",
    .usage = usage_text,
    .short_options = ":o:h",
    .options = ExportOptions,
    .values = ExportValues,
};

struct options {
  const struct table_format *format;
  const char *output;
  int force;
};

static int take_option(int opt, char *arg, void *ctx) {
  struct options *o = ctx;
  size_t i;
  int status = 0;
  if (opt == OPT_FORMAT &&
      !(status = cmdline_choose(&export_line, "format", arg, &i)))
    o->format = &Formats[i];
  else if (opt == 'o')
    o->output = arg;
  else if (opt == OPT_FORCE)
    o->force = 1;
  return status;
}

/* ---- The table ------------------------------------------------------------
 */

struct table {
  struct strbuf text;
  const struct table_format *format;
  const char *document;
};

/* A field, quoted when it holds the separator, a quote or a line break. */
static void put_field(struct table *t, const char *s, int last) {
  char specials[] = {t->format->separator, '"', '\r', '\n', '\0'};
  if (!s[strcspn(s, specials)]) {
    sb_puts(&t->text, s);
  } else {
    sb_puts(&t->text, "\"");
    for (const char *p = s; *p; p++)
      sb_puts(&t->text, *p == '"' ? "\"\"" : (char[]){*p, '\0'});
    sb_puts(&t->text, "\"");
  }
  if (last)
    sb_puts(&t->text, t->format->line_end);
  else
    sb_printf(&t->text, "%c", t->format->separator);
}

static void put_row(const struct doc_row *row, void *ctx) {
  struct table *t = ctx;
  put_field(t, t->document, 0);
  put_field(t, row->scope, 0);
  put_field(t, row->key, 0);
  put_field(t, row->metric, 0);
  /* json-c writes a number as it was read: every digit kept */
  put_field(t, json_object_to_json_string(row->value), 1);
}

int cmd_export(int argc, char **argv) {
  struct options o = {.format = &Formats[0]};
  int status = cmdline_parse(&export_line, argc, argv, take_option, &o);
  if (status != CMDLINE_PARSED)
    return status;
  if (optind >= argc)
    return usage_error(&export_line, "no FILE or DIR to export");
  if (textout_check("export", o.output, o.force))
    return 2;
  struct pisa_docset set;
  if (docset_load(&set, argv + optind, argc - optind))
    return 2;
  status = textout_check_inputs("export", o.output, &set);
  struct table t = {.format = o.format};
  const char *const header[] = {"document", "scope", "scope_key", "metric",
                                "value"};
  for (size_t i = 0; i < 5; i++)
    put_field(&t, header[i], i == 4);
  for (size_t i = 0; !status && i < set.count; i++) {
    t.document = set.docs[i].path;
    docrows_walk(set.docs[i].root, put_row, &t);
  }
  if (!status)
    status = textout_write("export", o.output, &t.text, o.force);
  sb_free(&t.text);
  docset_free(&set);
  return status;
}
