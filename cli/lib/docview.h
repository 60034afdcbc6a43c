/* docview.h: what `pisa-char show` prints of a document, as one JSON object
 * that is both the source of the terminal summary and its --json form (keys
 * documented in docs/pisa-char.md): the run, the headline metrics of the
 * totals, the counter-mode settings, and the threads, top functions,
 * (on request) top loops, source lines and data objects, regions, counter-mode
 * intervals, ranks and MPI job, each list at most `top` entries, largest first.
 * Absent families are null (or empty lists), never zeros; names are copied
 * whole. */
#ifndef PISA_CLI_DOCVIEW_H
#define PISA_CLI_DOCVIEW_H

#include <json-c/json.h>

/* Lists the view adds on request (deep mode's "loops" and "lines"). */
enum docview_list {
  DOCVIEW_LOOPS = 1u << 0,
  DOCVIEW_LINES = 1u << 1,
  DOCVIEW_OBJECTS = 1u << 2, /* deep mode's "objects", by accesses */
  /* deep mode's time series: every interval, and the phases */
  DOCVIEW_INTERVALS = 1u << 3,
  DOCVIEW_PHASES = 1u << 4,
};

/* The view of `doc` read from `path` (the caller owns it), with the lists
 * of `lists` (enum docview_list) as "loops", "lines", "interval_series"
 * and "phases". */
json_object *docview_build(json_object *doc, const char *path, long top,
                           unsigned lists);

#endif
