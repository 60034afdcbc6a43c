/* docset.h: a set of pisa-char/1 result documents loaded from FILEs or
 * DIRs and validated, for the commands that read documents (show, rank,
 * compare, report). */
#ifndef PISA_CLI_DOCSET_H
#define PISA_CLI_DOCSET_H

#include <json-c/json.h>
#include <stddef.h>

struct pisa_doc {
  char *path;        /* the file it came from */
  char *label;       /* file name without directory and .pisa.json/.json */
  json_object *root; /* the validated document */
};

struct pisa_docset {
  struct pisa_doc *docs; /* in argument order; a DIR's files sorted by name */
  size_t count;
};

/* Loads every FILE, and every *.json file (*.pisa.json included) in the
 * tree under every DIR (a sweep's output directory, say), and validates
 * each against the built-in pisa-char/1 schema. In a tree, JSON that is
 * not a pisa-char/1 document (a sweep's summary.json, a raw result) is
 * skipped with a note on stderr; a named FILE must be a document. On the
 * first problem (malformed JSON, a document breaking the schema, a DIR
 * without documents, deep and counter documents mixed) prints one line
 * "pisa-char: FILE: problem" and returns -1 (the caller exits 2); else 0
 * with at least one document, all of one mode. */
int docset_load(struct pisa_docset *set, char *const *args, int nargs);
void docset_free(struct pisa_docset *set);

/* The METRICS object the commands read for a document: its metrics of
 * record, the one region of interest when the document has exactly one
 * (PISA_ROI markers, run --roi-function, sweep's suites), else the
 * totals (docmetrics.h's metrics_of_record). */
json_object *doc_metrics_of_record(const struct pisa_doc *doc);
/* The name of the region doc_metrics_of_record reads, or NULL (totals). */
const char *doc_region_of_record(const struct pisa_doc *doc);
/* How many documents of the set are read over their region of interest. */
size_t docset_regions_of_record(const struct pisa_docset *set);

/* 1 for a counter-mode document, 0 for a deep one. */
int doc_is_counter(const struct pisa_doc *doc);

/* How exact a document's counts are, for people: "exact", "sampled 1/N"
 * (counter mode's regions), "estimated" (deep families sampled: --sample
 * or the memory budget) or "approximate" (a deep family computed with a
 * bounded-memory approximation). */
const char *doc_precision(const struct pisa_doc *doc, char *buf, size_t n);

#endif
