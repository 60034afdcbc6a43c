/* test_schema_suite.c: the schema validator (cli/lib/jsonschema.c) against
 * the official JSON Schema Test Suite (Debian's json-schema-test-suite,
 * drafts 3-7): every group of tests/draft*\/\*.json loads and agrees with
 * the suite on every case, except the groups listed with their reason in
 * schema_suite_refused.txt (keywords not implemented, or whose meaning
 * 2020-12 changed), each of which must be refused when it loads. */
#include "jsonschema.h"

#include <dirent.h>
#include <json-c/json.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUITE "/usr/share/json-schema-test-suite/tests"

static const char *const Drafts[] = {"draft3", "draft4", "draft6", "draft7"};

static int groups, cases, refused, failed;

/* The listed refusals: "FILE | GROUP" lines, GROUP "*" for every group. */
static char *listed;

static int is_listed(const char *file, const char *group) {
  char *all = NULL, *one = NULL;
  if (asprintf(&all, "\n%s | * |", file) < 0 ||
      asprintf(&one, "\n%s | %s |", file, group) < 0)
    abort();
  int found = strstr(listed, all) || strstr(listed, one);
  free(all);
  free(one);
  return found;
}

static void run_group(const char *file, json_object *group) {
  const char *name =
      json_object_get_string(json_object_object_get(group, "description"));
  const char *schema_text =
      json_object_to_json_string(json_object_object_get(group, "schema"));
  char err[1024] = "";
  struct pisa_schema *schema =
      pisa_schema_load_text(schema_text, err, sizeof err);
  int expect_refusal = is_listed(file, name);
  groups++;
  if (expect_refusal || !schema) {
    refused += expect_refusal && !schema;
    if (expect_refusal != !schema) {
      failed++;
      printf("FAIL %s | %s: %s\n", file, name,
             schema ? "loads, but is listed as refused" : err);
    }
    pisa_schema_free(schema);
    return;
  }
  json_object *tests = json_object_object_get(group, "tests");
  for (size_t i = 0; i < json_object_array_length(tests); i++) {
    json_object *t = json_object_array_get_idx(tests, i);
    int valid = json_object_get_boolean(json_object_object_get(t, "valid"));
    int got = pisa_schema_validate(schema, json_object_object_get(t, "data"),
                                   err, sizeof err) == 0;
    cases++;
    if (got != valid) {
      failed++;
      printf("FAIL %s | %s | %s: expected %s\n", file, name,
             json_object_get_string(json_object_object_get(t, "description")),
             valid ? "valid" : "invalid");
    }
  }
  pisa_schema_free(schema);
}

static void run_draft(const char *draft) {
  char *dir = NULL;
  if (asprintf(&dir, "%s/%s", SUITE, draft) < 0)
    abort();
  struct dirent **entries;
  int n = scandir(dir, &entries, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    const char *base = entries[i]->d_name;
    size_t len = strlen(base);
    char *path = NULL, *file = NULL;
    if (len > 5 && !strcmp(base + len - 5, ".json") &&
        asprintf(&path, "%s/%s", dir, base) > 0 &&
        asprintf(&file, "%s/%s", draft, base) > 0) {
      json_object *groups_of_file = json_object_from_file(path);
      for (size_t g = 0; g < json_object_array_length(groups_of_file); g++)
        run_group(file, json_object_array_get_idx(groups_of_file, g));
      json_object_put(groups_of_file);
    }
    free(path);
    free(file);
    free(entries[i]);
  }
  free(entries);
  free(dir);
}

static char *read_listed(void) {
  char *here = strdup(__FILE__), *path = NULL;
  if (asprintf(&path, "%s/schema_suite_refused.txt", dirname(here)) < 0)
    abort();
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("FAIL cannot read %s\n", path);
    exit(1);
  }
  size_t cap = 1 << 16, used = 1;
  char *text = calloc(1, cap);
  text[0] = '\n'; /* every line starts after a newline */
  size_t got;
  while ((got = fread(text + used, 1, cap - used - 1, f)) > 0)
    if ((used += got) == cap - 1)
      text = realloc(text, cap *= 2);
  text[used] = '\0';
  fclose(f);
  free(path);
  free(here);
  return text;
}

int main(void) {
  DIR *suite = opendir(SUITE);
  if (!suite) {
    printf("FAIL %s is missing: install json-schema-test-suite "
           "(scripts/setup.sh)\n",
           SUITE);
    return 1;
  }
  closedir(suite);
  listed = read_listed();
  for (size_t d = 0; d < sizeof Drafts / sizeof *Drafts; d++)
    run_draft(Drafts[d]);
  printf("%d groups, %d refused as listed, %d cases; %d passed, %d failed\n",
         groups, refused, cases, refused + cases - failed, failed);
  free(listed);
  return failed != 0 || cases == 0;
}
