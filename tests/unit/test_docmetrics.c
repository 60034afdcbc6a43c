/* test_docmetrics.c: the one count of memory references every command uses
 * (metrics_accesses, docs/result-document.md "One accounting") and a
 * document's metrics of record (its region of interest, else its totals),
 * on hand-written documents whose expected values are worked out below. */
#include "check.h"
#include "docmetrics.h"

#include <json-c/json.h>
#include <math.h>
#include <string.h>

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static json_object *parse(const char *text) { return json_tokener_parse(text); }

/* Deep documents say how many references there were: that is the count,
 * even where the kind counts would say otherwise (a 4-lane gather with 3
 * active lanes is 1 gather and 3 references). */
static void test_references_key(void) {
  json_object *m = parse("{\"instructions\": 100, \"memory_accesses\":"
                         " {\"loads\": 10, \"stores\": 5, \"memcpy\": 1,"
                         "  \"gathers\": 1, \"references\": 20}}");
  EXPECT(NEAR(metrics_accesses(m), 20));
  EXPECT(NEAR(metrics_accesses_per_instruction(m), 0.2));
  json_object_put(m);
}

/* Without the key: the reuse histogram holds every reference (cold 7 +
 * bins 3 + 5 = 15), else the access classes (2 + 3 + 4 = 9), else the
 * kinds with a memcpy twice: 10 + 5 + 1 + 2 * 2 + 3 (memset) + 1 + 1 =
 * 25. */
static void test_references_otherwise(void) {
  json_object *reuse =
      parse("{\"reuse_distance\": [{\"line_bytes\": 8, \"cold\": 7,"
            " \"bins\": [3, 5]}], \"memory_accesses\": {\"loads\": 1}}");
  json_object *classes = parse(
      "{\"access_classes\": {\"constant\": {\"accesses\": 2},"
      " \"strided\": {\"accesses\": 3}, \"irregular\": {\"accesses\": 4}},"
      " \"memory_accesses\": {\"loads\": 1}}");
  json_object *kinds =
      parse("{\"instructions\": 50, \"memory_accesses\": {\"loads\": 10,"
            " \"stores\": 5, \"atomics\": 1, \"memcpy\": 2, \"memset\": 3,"
            " \"gathers\": 1, \"scatters\": 1}}");
  EXPECT(NEAR(metrics_accesses(reuse), 15));
  EXPECT(NEAR(metrics_accesses(classes), 9));
  EXPECT(NEAR(metrics_accesses(kinds), 25));
  EXPECT(NEAR(metrics_accesses_per_instruction(kinds), 0.5));
  json_object_put(reuse);
  json_object_put(classes);
  json_object_put(kinds);
}

/* The only region is the region of interest; with none or several, the
 * totals are of record. */
static void test_metrics_of_record(void) {
  json_object *one = parse(
      "{\"totals\": {\"instructions\": 9}, \"regions\":"
      " [{\"name\": \"kernel\", \"executions\": 1, \"instructions\": 4}]}");
  json_object *two = parse("{\"totals\": {\"instructions\": 9}, \"regions\":"
                           " [{\"name\": \"a\", \"instructions\": 4},"
                           "  {\"name\": \"b\", \"instructions\": 5}]}");
  json_object *none = parse("{\"totals\": {\"instructions\": 9}}");
  const char *region = "unset";
  json_object *m = metrics_of_record(one, &region);
  EXPECT(region && !strcmp(region, "kernel"));
  EXPECT(m &&
         json_object_get_int(json_object_object_get(m, "instructions")) == 4);
  m = metrics_of_record(two, &region);
  EXPECT(region == NULL);
  EXPECT(m &&
         json_object_get_int(json_object_object_get(m, "instructions")) == 9);
  m = metrics_of_record(none, NULL);
  EXPECT(m &&
         json_object_get_int(json_object_object_get(m, "instructions")) == 9);
  json_object_put(one);
  json_object_put(two);
  json_object_put(none);
}

int main(void) {
  RUN(test_references_key);
  RUN(test_references_otherwise);
  RUN(test_metrics_of_record);
  return check_summary();
}
