/* jsonpath.h: reading values out of json-c objects by '/'-separated key
 * paths ("totals/footprint/bytes"), the one way the command line looks
 * into documents, raw results and summaries. */
#ifndef PISA_CLI_JSONPATH_H
#define PISA_CLI_JSONPATH_H

#include <json-c/json.h>

/* The value at the path, or NULL when a key is missing or a step is no
 * object. An empty path is `obj` itself. */
json_object *json_at(json_object *obj, const char *path);

/* 1 and the number in *out when the path leads to a number, else 0. */
int json_number_at(json_object *obj, const char *path, double *out);

/* The number at the path, or 0 when absent (for counts that every
 * METRICS object has, per the schema). */
double json_count_at(json_object *obj, const char *path);

#endif
