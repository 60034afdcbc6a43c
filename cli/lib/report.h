/* report.h: the self-contained HTML report of `pisa-char report` (inline
 * CSS and SVG, no scripts, no external resources): the ranking, the plots
 * of PISA-NMC figure 4, ILP, the instruction mix, miss-ratio curves, the
 * principal components and the top functions of a set of documents;
 * docs/report.md explains how to read it. */
#ifndef PISA_CLI_REPORT_H
#define PISA_CLI_REPORT_H

#include "rank.h"
#include "strbuf.h"

struct pisa_docset;

struct report_options {
  const char *title;
  long functions; /* per application table */
  long clusters;  /* k-means clusters of the components */
  struct rank_model model;
};

/* The whole page about the documents of `set`, into `html` (empty). */
void report_build(const struct report_options *o, const struct pisa_docset *set,
                  struct strbuf *html);

#endif
