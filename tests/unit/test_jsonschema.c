/* test_jsonschema.c: the JSON Schema validator (cli/lib/jsonschema.c) keyword
 * by keyword, its load-time checks and parser errors, the built-in schemas, and
 * `pisa-char validate` (cmd_validate) with its output and exit status. */
#include "commands.h"
#include "jsonschema.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;

static void report(int ok, int line, const char *what, const char *got) {
  if (ok) {
    passed++;
    return;
  }
  failed++;
  printf("FAIL line %d: %s\n  got: %s\n", line, what, got ? got : "(null)");
}

/* Test texts use ' for " so that schemas stay readable. */
static char *dq(const char *text) {
  char *s = strdup(text);
  for (char *c = s; *c; c++)
    if (*c == '\'')
      *c = '"';
  return s;
}

static struct json_object *parse(const char *text) {
  char *t = dq(text), err[256];
  struct json_object *v = NULL;
  if (pisa_json_parse(t, strlen(t), &v, err, sizeof err))
    printf("test bug: cannot parse %s: %s\n", t, err), exit(1);
  free(t);
  return v;
}

static struct pisa_schema *load(const char *schema_text, char *err,
                                size_t errlen) {
  char *t = dq(schema_text);
  struct pisa_schema *s = pisa_schema_load_text(t, err, errlen);
  free(t);
  return s;
}

/* expected: NULL when instance is valid, else the exact error text. */
static void check_at(int line, const char *schema_text, const char *instance,
                     const char *expected) {
  char err[1024] = "";
  struct pisa_schema *s = load(schema_text, err, sizeof err);
  if (!s) {
    report(0, line, "schema loads", err);
    return;
  }
  struct json_object *doc = parse(instance);
  int status = pisa_schema_validate(s, doc, err, sizeof err);
  char *want = expected ? dq(expected) : NULL;
  if (!want)
    report(status == 0, line, instance, err);
  else
    report(status == 1 && strcmp(err, want) == 0, line, want,
           status ? err : "valid");
  free(want);
  json_object_put(doc);
  pisa_schema_free(s);
}
#define VALID(schema, instance) check_at(__LINE__, schema, instance, NULL)
#define INVALID(schema, instance, error)                                       \
  check_at(__LINE__, schema, instance, error)

static void load_error_at(int line, const char *schema_text,
                          const char *expected) {
  char err[1024] = "";
  struct pisa_schema *s = load(schema_text, err, sizeof err);
  char *want = dq(expected);
  report(!s && strcmp(err, want) == 0, line, want, s ? "loaded" : err);
  free(want);
  pisa_schema_free(s);
}
#define LOAD_ERROR(schema, error) load_error_at(__LINE__, schema, error)

static void test_type(void) {
  VALID("{'type': 'integer'}", "3");
  VALID("{'type': 'integer'}", "3.0");
  VALID("{'type': 'integer'}", "-9223372036854775808");
  VALID("{'type': 'integer'}", "18446744073709551615");
  INVALID("{'type': 'integer'}", "3.5", "<root>: expected integer, got number");
  INVALID("{'type': 'integer'}", "'3'", "<root>: expected integer, got string");
  INVALID("{'type': 'integer'}", "true",
          "<root>: expected integer, got boolean");
  VALID("{'type': 'number'}", "1");
  VALID("{'type': 'number'}", "1.5");
  INVALID("{'type': 'number'}", "[]", "<root>: expected number, got array");
  VALID("{'type': ['string', 'null']}", "null");
  VALID("{'type': ['string', 'null']}", "'x'");
  INVALID("{'type': ['string', 'null']}", "1",
          "<root>: expected null or string, got integer");
  VALID("{'type': 'object'}", "{}");
  INVALID("{'type': 'object'}", "null", "<root>: expected object, got null");
  VALID("{'type': 'boolean'}", "false");
  VALID("{}", "[1, 'a', null]");
}

static void test_object_keywords(void) {
  const char *props = "{'properties': {'a': {'type': 'string'}}}";
  VALID(props, "{'a': 'x', 'b': 1}");
  VALID(props, "7");
  INVALID(props, "{'a': 1}", "/a: expected string, got integer");
  INVALID("{'required': ['a', 'b']}", "{'a': 1}",
          "<root>: missing required property 'b'");
  VALID("{'required': ['a']}", "5");

  const char *closed =
      "{'properties': {'a': true}, 'additionalProperties': false}";
  VALID(closed, "{'a': 1}");
  INVALID(closed, "{'a': 1, 'b': 2}", "/b: property not allowed");
  INVALID("{'additionalProperties': {'type': 'integer'}}", "{'x': 's'}",
          "/x: expected integer, got string");

  const char *patterns = "{'patternProperties': {'^n_': {'type': 'integer'}},"
                         " 'additionalProperties': false}";
  VALID(patterns, "{'n_a': 1}");
  INVALID(patterns, "{'n_a': 's'}", "/n_a: expected integer, got string");
  INVALID(patterns, "{'m': 1}", "/m: property not allowed");

  const char *names = "{'propertyNames': {'pattern': '^[a-z]+$'}}";
  VALID(names, "{'ab': 1}");
  INVALID(names, "{'aB': 1}",
          "/aB: property name not allowed: 'aB' does not match the pattern "
          "^[a-z]+$");

  const char *sizes = "{'minProperties': 2, 'maxProperties': 3}";
  VALID(sizes, "{'a': 1, 'b': 2}");
  INVALID(sizes, "{'a': 1}", "<root>: expected at least 2 properties, got 1");
  INVALID(sizes, "{'a': 1, 'b': 2, 'c': 3, 'd': 4}",
          "<root>: expected at most 3 properties, got 4");
}

static void test_array_keywords(void) {
  VALID("{'items': {'type': 'integer'}}", "[1, 2]");
  INVALID("{'items': {'type': 'integer'}}", "[1, 'x']",
          "/1: expected integer, got string");
  const char *tuple =
      "{'prefixItems': [{'type': 'string'}, {'type': 'integer'}],"
      " 'items': false}";
  VALID(tuple, "['a', 1]");
  VALID(tuple, "['a']");
  INVALID(tuple, "['a', 'b']", "/1: expected integer, got string");
  INVALID(tuple, "['a', 1, 2]", "/2: no value is allowed here");

  const char *sizes = "{'minItems': 1, 'maxItems': 2}";
  VALID(sizes, "[0]");
  INVALID(sizes, "[]", "<root>: expected at least 1 items, got 0");
  INVALID(sizes, "[1, 2, 3]", "<root>: expected at most 2 items, got 3");

  const char *unique = "{'uniqueItems': true}";
  VALID(unique, "[1, true, '1', null, [1], {'a': 1}]");
  VALID(unique, "[{'a': 1}, {'a': 2}]");
  INVALID(unique, "[1, 2, 1.0]", "<root>: items 0 and 2 are equal");
  INVALID(unique, "[{'a': [1], 'b': null}, {'b': null, 'a': [1]}]",
          "<root>: items 0 and 1 are equal");
  VALID("{'uniqueItems': false}", "[1, 1]");
}

static void test_value_keywords(void) {
  const char *choices = "{'enum': ['a', 1, null]}";
  VALID(choices, "'a'");
  VALID(choices, "1.0");
  VALID(choices, "null");
  INVALID(choices, "'b'", "<root>: 'b' is not one of ['a',1,null]");
  INVALID(choices, "true", "<root>: true is not one of ['a',1,null]");

  VALID("{'const': {'k': [1, 2]}}", "{'k': [1, 2]}");
  INVALID("{'const': {'k': [1, 2]}}", "{'k': [2, 1]}",
          "<root>: expected {'k':[1,2]}, got {'k':[2,1]}");
  VALID("{'const': null}", "null");
  INVALID("{'const': null}", "0", "<root>: expected null, got 0");
  INVALID("{'const': false}", "0", "<root>: expected false, got 0");

  const char *range = "{'minimum': 0, 'maximum': 1}";
  VALID(range, "0");
  VALID(range, "1");
  VALID(range, "'not a number'");
  INVALID(range, "-0.5", "<root>: -0.5 is less than the minimum 0");
  INVALID(range, "2", "<root>: 2 is greater than the maximum 1");
  const char *open = "{'exclusiveMinimum': 0, 'exclusiveMaximum': 1.5}";
  VALID(open, "0.5");
  INVALID(open, "0", "<root>: 0 is not greater than 0");
  INVALID(open, "1.5", "<root>: 1.5 is not less than 1.5");
  /* 2^53 + 1 and its neighbours differ, which doubles could not tell. */
  VALID("{'maximum': 9007199254740993}", "9007199254740993");
  INVALID("{'maximum': 9007199254740993}", "9007199254740994",
          "<root>: 9007199254740994 is greater than the maximum "
          "9007199254740993");
  INVALID("{'maximum': 9223372036854775807}", "18446744073709551615",
          "<root>: 18446744073709551615 is greater than the maximum "
          "9223372036854775807");

  const char *length = "{'minLength': 2, 'maxLength': 3}";
  VALID(length, "'ab'");
  VALID(length, "'\xc3\xa9\xc3\xa9'"); /* two characters in four bytes */
  INVALID(length, "'\xc3\xa9'", "<root>: string shorter than 2 characters");
  INVALID(length, "'abcd'", "<root>: string longer than 3 characters");
  VALID("{'pattern': 'b+'}", "'abbc'"); /* unanchored, as in ECMA-262 */
  INVALID("{'pattern': 'b+'}", "'ac'",
          "<root>: 'ac' does not match the pattern b+");
  VALID("{'pattern': '^[a-z_0-9]+$'}", "'getelementptr'");
}

static void test_refs(void) {
  const char *chain = "{'$defs': {'a': {'$ref': '#/$defs/b'},"
                      "            'b': {'$ref': '#/$defs/c'},"
                      "            'c': {'type': 'integer'}},"
                      " 'properties': {'x': {'$ref': '#/$defs/a'}}}";
  VALID(chain, "{'x': 1}");
  INVALID(chain, "{'x': 's'}", "/x: expected integer, got string");

  const char *sibling = "{'$defs': {'i': {'type': 'integer'}},"
                        " '$ref': '#/$defs/i', 'minimum': 3}";
  INVALID(sibling, "2", "<root>: 2 is less than the minimum 3");
  INVALID(sibling, "'s'", "<root>: expected integer, got string");

  const char *tree = "{'type': 'object', 'additionalProperties': false,"
                     " 'properties': {'kids': {'type': 'array',"
                     "                         'items': {'$ref': '#'}}}}";
  VALID(tree, "{'kids': [{'kids': []}, {}]}");
  INVALID(tree, "{'kids': [{}, {'kids': [{'bad': 1}]}]}",
          "/kids/1/kids/0/bad: property not allowed");

  const char *escaped = "{'$defs': {'a/b': {'type': 'string'},"
                        "            'c~d': {'type': 'integer'},"
                        "            'e%f': {'type': 'null'}},"
                        " 'properties': {'p': {'$ref': '#/$defs/a~1b'},"
                        "                'q': {'$ref': '#/$defs/c~0d'},"
                        "                'r': {'$ref': '#/$defs/e%25f'}}}";
  INVALID(escaped, "{'p': 1}", "/p: expected string, got integer");
  INVALID(escaped, "{'q': 's'}", "/q: expected integer, got string");
  INVALID(escaped, "{'r': 0}", "/r: expected null, got integer");
  INVALID("{'properties': {'a': {'type': 'string'},"
          "                'b': {'$ref': '#/properties/a'}}}",
          "{'b': 1}", "/b: expected string, got integer");
  INVALID("{'additionalProperties': false}", "{'a/b~c': 1}",
          "/a~1b~0c: property not allowed");

  /* Another built-in schema by its $id, absolute and relative. */
  const char *absolute =
      "{'$ref': 'https://pisa-char.org/schemas/pisa-char-1.schema.json"
      "#/$defs/count'}";
  VALID(absolute, "5");
  INVALID(absolute, "-1", "<root>: -1 is less than the minimum 0");
  const char *relative =
      "{'$id': 'https://pisa-char.org/schemas/t.json',"
      " 'items': {'$ref': 'pisa-char-1.schema.json#/$defs/ratio'}}";
  INVALID(relative, "[0.5, 2]", "/1: 2 is greater than the maximum 1");
}

static void test_combinators(void) {
  const char *all = "{'allOf': [{'type': 'integer'}, {'minimum': 5}]}";
  VALID(all, "6");
  INVALID(all, "4", "<root>: 4 is less than the minimum 5");

  const char *any = "{'anyOf': [{'type': 'string'}, {'minimum': 5}]}";
  VALID(any, "'s'");
  VALID(any, "6");
  INVALID(any, "4",
          "<root>: matches none of the anyOf alternatives (expected string, "
          "got integer; 4 is less than the minimum 5)");
  /* The alternative that got deeper into the value explains best. */
  INVALID("{'anyOf': [{'type': 'string'},"
          "           {'properties': {'a': {'type': 'integer'}}}]}",
          "{'a': 'x'}", "/a: expected integer, got string");

  const char *one = "{'oneOf': [{'type': 'integer'}, {'minimum': 0}]}";
  VALID(one, "-1");
  VALID(one, "0.5");
  VALID(one, "'s'"); /* only the second: minimum ignores strings */
  INVALID(one, "1",
          "<root>: matches oneOf alternatives 0 and 1, expected exactly one");
  INVALID(one, "-1.5",
          "<root>: matches none of the oneOf alternatives (expected integer, "
          "got number; -1.5 is less than the minimum 0)");

  VALID("{'not': {'type': 'null'}}", "1");
  INVALID("{'not': {'type': 'null'}}", "null",
          "<root>: must not match the 'not' schema");

  const char *cond = "{'if': {'required': ['a']}, 'then': {'required': ['b']},"
                     " 'else': {'not': {'required': ['b']}}}";
  VALID(cond, "{}");
  VALID(cond, "{'a': 1, 'b': 2}");
  INVALID(cond, "{'a': 1}", "<root>: missing required property 'b'");
  INVALID(cond, "{'b': 1}", "<root>: must not match the 'not' schema");
  VALID("{'if': {'type': 'string'}}", "1");
  VALID("{'then': false}", "1"); /* then without if does nothing */

  VALID("true", "{'anything': [1]}");
  INVALID("false", "1", "<root>: no value is allowed here");
  VALID("{'$schema': 'https://json-schema.org/draft/2020-12/schema',"
        " 'title': 't', 'description': 'd', '$comment': 'c', 'default': 1,"
        " 'examples': [1], 'type': 'integer'}",
        "1");
}

static void test_load_errors(void) {
  LOAD_ERROR("{'format': 'date'}", "schema #: unsupported keyword 'format'");
  LOAD_ERROR("{'properties': {'a': {'dependentRequired': {}}}}",
             "schema #/properties/a: unsupported keyword 'dependentRequired'");
  LOAD_ERROR("{'$defs': {'x': {'minimum': '0'}}}",
             "schema #/$defs/x/minimum: bound must be a number");
  LOAD_ERROR("{'properties': {'a': {'$ref': '#/$defs/missing'}}}",
             "schema #/properties/a/$ref: cannot resolve '#/$defs/missing': no "
             "such location (only a JSON pointer may follow the #)");
  LOAD_ERROR("{'$ref': '#anchor'}",
             "schema #/$ref: cannot resolve '#anchor': no such location (only "
             "a JSON pointer may follow the #)");
  LOAD_ERROR("{'$ref': 'other.json'}",
             "schema #/$ref: cannot resolve 'other.json': a relative reference "
             "needs a base '$id'");
  LOAD_ERROR(
      "{'$id': 'https://x.org/a.json', '$ref': 'b.json#/x'}",
      "schema https://x.org/a.json#/$ref: cannot resolve 'b.json#/x': no "
      "built-in schema has the '$id' https://x.org/b.json");
  LOAD_ERROR("{'pattern': '\\\\d+'}",
             "schema #/pattern: pattern '\\d+': escapes such as \\d are not "
             "POSIX; use bracket expressions such as [0-9]");
  LOAD_ERROR("{'items': [{'type': 'integer'}]}",
             "schema #/items: a schema must be an object or a boolean");
  LOAD_ERROR("{'properties': {'a': {'$id': 'x'}}}",
             "schema #/properties/a/$id: '$id' is only supported at the root "
             "of a schema");
  LOAD_ERROR("{'type': 'int'}", "schema #/type: unknown type 'int'");
  LOAD_ERROR("{'minItems': -1}",
             "schema #/minItems: limit must be a non-negative integer");
  LOAD_ERROR("{'required': 'a'}",
             "schema #/required: 'required' must be an array of strings");
  LOAD_ERROR("{'anyOf': []}",
             "schema #/anyOf: expected a non-empty array of schemas");
  LOAD_ERROR("{'type':", "malformed JSON at line 1, column 9: unexpected end "
                         "of data");

  char err[256];
  struct pisa_schema *s = load("{'pattern': 'a('}", err, sizeof err);
  const char *regcomp_error = "schema #/pattern: pattern \"a(\": ";
  report(!s && strncmp(err, regcomp_error, strlen(regcomp_error)) == 0,
         __LINE__, "regcomp error is reported", err);
  pisa_schema_free(s);
  s = pisa_schema_load_file("/nonexistent/s.json", err, sizeof err);
  report(!s && strcmp(err, "cannot read: No such file or directory") == 0,
         __LINE__, "unreadable schema file", err);
}

static void parse_error_at(int line, const char *text, const char *expected) {
  struct json_object *v = NULL;
  char err[256] = "";
  int status = pisa_json_parse(text, strlen(text), &v, err, sizeof err);
  report(status == -1 && !v && strncmp(err, expected, strlen(expected)) == 0,
         line, expected, status ? err : "parsed");
}
#define PARSE_ERROR(text, error) parse_error_at(__LINE__, text, error)

static void test_parse(void) {
  PARSE_ERROR("{\n  \"a\": 1,\n  \"b\": x\n}",
              "malformed JSON at line 3, column 8: ");
  PARSE_ERROR("[1] 2", "malformed JSON at line 1, column 5: ");
  PARSE_ERROR("[1", "malformed JSON at line 1, column 3: unexpected end of "
                    "data");
  PARSE_ERROR("", "malformed JSON at line 1, column 1: unexpected end of "
                  "data");
  PARSE_ERROR("[NaN]", "malformed JSON: NaN, Infinity or a number out of "
                       "range");
  PARSE_ERROR("{\"a\": -Infinity}", "malformed JSON: NaN, Infinity");
  PARSE_ERROR("1e999", "malformed JSON: NaN, Infinity");
  PARSE_ERROR("[1,]", "malformed JSON at line 1, column ");
  PARSE_ERROR("/* c */ 1", "malformed JSON at line 1, column ");
  PARSE_ERROR("\"\xff\"", "malformed JSON at line 1, column ");

  struct json_object *v = (struct json_object *)1;
  char err[256];
  report(pisa_json_parse("null", 4, &v, err, sizeof err) == 0 && v == NULL,
         __LINE__, "null parses to NULL", err);
  report(pisa_json_parse(" [1]\n", 5, &v, err, sizeof err) == 0 &&
             json_object_array_length(v) == 1,
         __LINE__, "whitespace around a value", err);
  json_object_put(v);
  report(pisa_json_parse_file("/nonexistent.json", &v, err, sizeof err) == -1 &&
             strcmp(err, "cannot read: No such file or directory") == 0,
         __LINE__, "unreadable file", err);
}

static void parses(int line, const char *text) {
  struct json_object *v = NULL;
  char err[256] = "";
  report(pisa_json_parse(text, strlen(text), &v, err, sizeof err) == 0, line,
         text, err);
  json_object_put(v);
}
#define PARSES(text) parses(__LINE__, text)

/* What json-c accepts but changes (issue 15 item 11): a repeated key
 * replaces the first, \u0000 cuts a string, an integer past 64 bits is
 * clamped; each is refused with its place (columns counted by hand). */
static void test_parse_checks(void) {
  PARSE_ERROR("{\"a\": 1, \"a\": 2}",
              "malformed JSON at line 1, column 10: duplicate key \"a\"");
  PARSE_ERROR("{\"a\": 1,\n \"\\u0061\": 2}",
              "malformed JSON at line 2, column 2: duplicate key \"a\"");
  PARSE_ERROR("[{\"x\": {\"b\": 1, \"c\": {}, \"b\": 3}}]",
              "malformed JSON at line 1, column 26: duplicate key \"b\"");
  PARSES("[{\"a\": 1}, {\"a\": {\"a\": 1}}, {\"b\": [\"a\", \"a\"]}]");
  PARSES("{\"a\": 1, \"A\": 2, \"a \": 3, \"\\\"a\": 4}");
  PARSE_ERROR("[\"x\\u0000y\"]", "malformed JSON at line 1, column 4: "
                                 "\\u0000 (a NUL character) in a string");
  PARSE_ERROR("{\"k\\u0000\": 1}", "malformed JSON at line 1, column 4: "
                                   "\\u0000");
  PARSES("[\"x\\\\u0000\", \"\\u0001\"]"); /* an escaped backslash, then text */
  /* 2^64 - 1 and -2^63 are the limits; one more either way is refused. */
  PARSES("[18446744073709551615, -9223372036854775808, 0, -0, 1.5e300]");
  PARSE_ERROR("{\"n\": 18446744073709551616}",
              "malformed JSON at line 1, column 7: integer "
              "18446744073709551616 does not fit in 64 bits");
  PARSE_ERROR("[-9223372036854775809]", "malformed JSON at line 1, column 2: "
                                        "integer -9223372036854775809");
  PARSE_ERROR("100000000000000000000000000000000000000000000000000",
              "malformed JSON at line 1, column 1: integer "
              "1000000000000000000000000000000000000000 does not fit");

  struct json_object *v = NULL;
  char err[256];
  report(pisa_json_parse("18446744073709551615", 20, &v, err, sizeof err) ==
                 0 &&
             json_object_get_uint64(v) == UINT64_MAX,
         __LINE__, "2^64 - 1 is kept exactly", err);
  json_object_put(v);
  /* json-c's tokener nests 256 deep (json_tokener_new_ex) and no deeper. */
  char deep[2 * 257 + 1];
  memset(deep, '[', 256), memset(deep + 256, ']', 256), deep[512] = '\0';
  report(pisa_json_parse(deep, 512, &v, err, sizeof err) == 0, __LINE__,
         "256 nested arrays", err);
  json_object_put(v);
  memset(deep, '[', 257), memset(deep + 257, ']', 257), deep[514] = '\0';
  report(pisa_json_parse(deep, 514, &v, err, sizeof err) == -1 &&
             strstr(err, "nesting too deep"),
         __LINE__, "257 nested arrays", err);
  report(pisa_json_parse_file("/dev/zero", &v, err, sizeof err) == -1 &&
             strcmp(err, "a NUL byte at offset 0: not JSON text") == 0,
         __LINE__, "/dev/zero stops at once", err);
}

/* ---- The built-in schemas ------------------------------------------------ */

static const char minimal_doc[] =
    "{'schema': 'pisa-char/1',"
    " 'tool': {'name': 'pisa-char', 'version': '0.1.0', 'llvm': '19.1.7'},"
    " 'program': {'path': './a', 'args': ['x'], 'exit_status': 0,"
    "             'signal': null, 'wall_seconds': 0.5},"
    " 'mode': 'deep', 'complete': true, 'config': {'line_sizes': [8]},"
    " 'totals': {'instructions': 2,"
    "   'instruction_mix': {'opcodes': {'load': 1, 'ret': 1},"
    "     'categories': {'memory': 1, 'int': 0, 'fp': 0, 'bitwise': 0,"
    "                    'conversion': 0, 'address': 0, 'control': 1,"
    "                    'vector': 0, 'other': 0},"
    "     'phi': 0, 'bytes_loaded': 4, 'bytes_stored': 0,"
    "     'vector': {'instructions': 0, 'lanes': {}, 'bits': {}}},"
    "   'memory_accesses': {'loads': 1, 'stores': 0, 'atomics': 0,"
    "     'memcpy': 0, 'memset': 0, 'gathers': 0, 'scatters': 0},"
    "   'footprint': {'bytes': 4, 'blocks': {'8': 1}},"
    "   'external_calls': {'puts': 1}},"
    " 'threads': [], 'functions': []}";

/* Applies a change to a copy of the minimal document and validates it. */
static void document_at(int line, const char *pointer, const char *value,
                        const char *expected) {
  const struct pisa_schema *s = pisa_schema_builtin("pisa-char-1.schema.json");
  struct json_object *doc = parse(minimal_doc);
  if (pointer && value)
    json_pointer_set(&doc, pointer, parse(value));
  char err[1024] = "";
  int status = s ? pisa_schema_validate(s, doc, err, sizeof err) : -1;
  char *want = expected ? dq(expected) : NULL;
  report(want ? status == 1 && strcmp(err, want) == 0 : status == 0, line,
         want ? want : "valid", status ? err : "valid");
  free(want);
  json_object_put(doc);
}
#define DOCUMENT(pointer, value, expected)                                     \
  document_at(__LINE__, pointer, value, expected)

static void test_result_schema(void) {
  DOCUMENT(NULL, NULL, NULL);
  DOCUMENT("/totals/footprint/bytes", "'4'",
           "/totals/footprint/bytes: expected integer, got string");
  DOCUMENT("/totals/memory_accesses/stores", "-1",
           "/totals/memory_accesses/stores: -1 is less than the minimum 0");
  DOCUMENT("/totals/instruction_mix/opcodes/Load", "1",
           "/totals/instruction_mix/opcodes/Load: property name not allowed: "
           "'Load' does not match the pattern ^[a-z_0-9]+$");
  DOCUMENT("/totals/footprint/blocks/24", "1",
           "/totals/footprint/blocks/24: property name not allowed: '24' does "
           "not match the pattern ^(1|2|4|8|16|32|64|128|256|512|1024|2048|"
           "4096|8192|16384|32768|65536|131072|262144|524288|1048576|2097152|"
           "4194304|8388608|16777216|33554432|67108864|134217728|268435456|"
           "536870912|1073741824)$");
  DOCUMENT("/totals/dlp", "{'dlp1': 2, 'dlp2': 1.5}", NULL);
  DOCUMENT("/totals/dlp", "{'dlp1': 2, 'dlp2': 1.5, 'approximate': true}",
           "/totals/dlp: missing required property 'bound'");
  DOCUMENT("/totals/dlp", "{'dlp1': 2, 'dlp2': 1, 'bound': {'max_window': 8}}",
           "/totals/dlp: must not match the 'not' schema");
  DOCUMENT("/totals/dlp",
           "{'dlp1': 2, 'dlp2': 1, 'approximate': true,"
           " 'bound': {'max_window': 8}}",
           NULL);
  DOCUMENT("/totals/miss_ratio",
           "[{'cache_bytes': 32768, 'line_bytes': 64, 'ratio': 1.5}]",
           "/totals/miss_ratio/0/ratio: 1.5 is greater than the maximum 1");
  DOCUMENT("/totals/memory_entropy", "[]",
           "/totals/memory_entropy: expected at least 1 items, got 0");
  DOCUMENT("/program/signal", "9", NULL);
  DOCUMENT("/program/signal", "'SIGKILL'",
           "/program/signal: expected null or integer, got string");
  DOCUMENT("/mode", "'fast'", "/mode: 'fast' is not one of ['deep','counter']");
  DOCUMENT("/regions", "[{'name': 'roi'}]",
           "/regions/0: missing required property 'instructions'");
  DOCUMENT("/threads",
           "[{'rank': 0, 'thread': 0, 'instructions': 0, 'instruction_mix': "
           "{}, 'memory_accesses': {}, 'footprint': {}, 'external_calls': {}}]",
           "/threads/0/instruction_mix: missing required property 'opcodes'");
  DOCUMENT("/regions",
           "[{'name': 'roi', 'instructions': 0, 'instruction_mix': {},"
           " 'memory_accesses': {}, 'footprint': {}, 'external_calls': {},"
           " 'rank': 0}]",
           "/regions/0/rank: property name not allowed: matches none of the "
           "anyOf alternatives ('rank' is not one of ['instructions',"
           "'instruction_mix','memory_accesses','footprint','external_calls',"
           "'memory_entropy','reuse_distance','spatial_locality','miss_ratio',"
           "'ilp','dlp','bblp','branch','access_classes','openmp']; 'rank' "
           "is not one of ['name','executions','sampled_executions',"
           "'sampled_fraction','seconds','bandwidth','hw_counters',"
           "'threads'])");
}

/* metric_name (which closes METRICS) must list exactly the families that
 * metric_families defines. */
static void test_metric_names_match_families(void) {
  const char *text = NULL;
  for (const struct pisa_embedded_schema *e = pisa_embedded_schemas; e->name;
       e++)
    if (strcmp(e->name, "pisa-char-1.schema.json") == 0)
      text = e->text;
  struct json_object *schema = NULL, *names, *families;
  char err[256];
  int ok = text &&
           pisa_json_parse(text, strlen(text), &schema, err, sizeof err) == 0;
  ok = ok && json_pointer_get(schema, "/$defs/metric_name/enum", &names) == 0 &&
       json_pointer_get(schema, "/$defs/metric_families/properties",
                        &families) == 0;
  ok = ok && json_object_array_length(names) ==
                 (size_t)json_object_object_length(families);
  for (size_t i = 0; ok && i < json_object_array_length(names); i++)
    ok = json_object_object_get_ex(
        families, json_object_get_string(json_object_array_get_idx(names, i)),
        NULL);
  report(ok, __LINE__, "metric_name lists the metric_families", NULL);
  json_object_put(schema);
}

static void test_builtins(void) {
  size_t count = 0;
  for (const struct pisa_embedded_schema *e = pisa_embedded_schemas; e->name;
       e++, count++)
    report(pisa_schema_builtin(e->name) != NULL, __LINE__, e->name,
           "does not load");
  report(count >= 2, __LINE__, "two or more embedded schemas", NULL);
  report(pisa_schema_builtin("pisa-char-1.schema.json") ==
             pisa_schema_builtin("pisa-char-1.schema.json"),
         __LINE__, "built-in schemas are loaded once", NULL);
  report(pisa_schema_builtin("nonexistent.json") == NULL, __LINE__,
         "unknown built-in schema", NULL);
  test_metric_names_match_families();
}

/* ---- pisa-char validate ------------------------------------------------- */

static char tmpdir[] = "/tmp/test_jsonschema.XXXXXX";

static char *write_temp(const char *name, const char *text) {
  char *path = malloc(strlen(tmpdir) + strlen(name) + 2);
  sprintf(path, "%s/%s", tmpdir, name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

static char *slurp(FILE *f) {
  static char buf[3][8192];
  static int next;
  char *b = buf[next++ % 3];
  rewind(f);
  size_t n = fread(b, 1, sizeof buf[0] - 1, f);
  b[n] = '\0';
  return b;
}

struct run {
  int status;
  const char *out, *err;
};

/* Runs cmd_validate with stdout and stderr captured. */
static struct run run_validate(char **argv) {
  int argc = 0;
  while (argv[argc])
    argc++;
  FILE *out = tmpfile(), *err = tmpfile();
  fflush(stdout);
  fflush(stderr);
  int saved_out = dup(1), saved_err = dup(2);
  dup2(fileno(out), 1);
  dup2(fileno(err), 2);
  struct run r = {.status = cmd_validate(argc, argv)};
  fflush(stdout);
  fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  r.out = slurp(out);
  r.err = slurp(err);
  fclose(out);
  fclose(err);
  return r;
}

static char *concat(const char *a, const char *b, const char *c) {
  char *s = malloc(strlen(a) + strlen(b) + strlen(c) + 1);
  sprintf(s, "%s%s%s", a, b, c);
  return s;
}

static void test_cmd_validate(void) {
  if (!mkdtemp(tmpdir)) {
    report(0, __LINE__, "mkdtemp", NULL);
    return;
  }
  char *min = dq(minimal_doc);
  char *good = write_temp("good.json", min);
  struct json_object *d = parse(minimal_doc);
  json_pointer_set(&d, "/totals/footprint/bytes", json_object_new_string("4"));
  char *bad = write_temp("bad.json", json_object_to_json_string(d));
  json_object_put(d);
  char *broken = write_temp("broken.json", "{\"schema\": \n  [1,,]}");
  char *raw =
      write_temp("raw.json", "{\"schema\": \"pisa-char-raw/1\", \"pid\": 1}");
  char *anonymous = write_temp("anonymous.json", "{}");
  char *unknown = write_temp("unknown.json", "{\"schema\": \"pisa-char/9\"}");
  char *custom = write_temp("custom.json", "{\"required\": [\"zzz\"]}");
  char *strange = write_temp("strange.json", "{\"format\": \"x\"}");
  char *missing = concat(tmpdir, "/missing.json", "");
  struct run r;

  r = run_validate((char *[]){"validate", good, NULL});
  char *want = concat(good, ": valid\n", "");
  report(r.status == 0 && strcmp(r.out, want) == 0 && !*r.err, __LINE__,
         "valid document", r.out);
  free(want);

  r = run_validate((char *[]){"validate", bad, good, NULL});
  want = concat("pisa-char: ", bad,
                ": /totals/footprint/bytes: expected integer, got string\n");
  report(r.status == 1 && strcmp(r.err, want) == 0 && strstr(r.out, good),
         __LINE__, want, r.err);
  free(want);

  r = run_validate((char *[]){"validate", good, broken, bad, NULL});
  want =
      concat("pisa-char: ", broken, ": malformed JSON at line 2, column 6: ");
  report(r.status == 2 && strncmp(r.err, want, strlen(want)) == 0 &&
             strstr(r.err, bad) && strstr(r.out, good),
         __LINE__, want, r.err);
  free(want);

  r = run_validate((char *[]){"validate", missing, NULL});
  want = concat("pisa-char: ", missing,
                ": cannot read: No such file or directory\n");
  report(r.status == 2 && strcmp(r.err, want) == 0, __LINE__, want, r.err);
  free(want);

  r = run_validate((char *[]){"validate", raw, NULL});
  want = concat("pisa-char: ", raw,
                ": <root>: missing required property "
                "\"ppid\"\n");
  report(r.status == 1 && strcmp(r.err, want) == 0, __LINE__, want, r.err);
  free(want);

  r = run_validate((char *[]){"validate", "--raw", good, NULL});
  want = concat("pisa-char: ", good,
                ": <root>: missing required property "
                "\"pid\"\n");
  report(r.status == 1 && strcmp(r.err, want) == 0, __LINE__, want, r.err);
  free(want);

  r = run_validate((char *[]){"validate", anonymous, NULL});
  report(r.status == 1 && strstr(r.err, ": <root>: no \"schema\" key"),
         __LINE__, "document without schema key", r.err);
  r = run_validate((char *[]){"validate", unknown, NULL});
  report(r.status == 1 && strstr(r.err, ": /schema: unknown document schema "
                                        "\"pisa-char/9\"\n"),
         __LINE__, "unknown schema key", r.err);

  r = run_validate((char *[]){"validate", "--schema", custom, good, NULL});
  want = concat("pisa-char: ", good,
                ": <root>: missing required property "
                "\"zzz\"\n");
  report(r.status == 1 && strcmp(r.err, want) == 0, __LINE__, want, r.err);
  free(want);
  r = run_validate((char *[]){"validate", "--schema", strange, good, NULL});
  want = concat("pisa-char: ", strange,
                ": schema #: unsupported keyword \"format\"\n");
  report(r.status == 2 && strcmp(r.err, want) == 0, __LINE__, want, r.err);
  free(want);

  r = run_validate((char *[]){"validate", "--help", NULL});
  report(r.status == 0 && strncmp(r.out, "usage: pisa-char validate", 25) == 0,
         __LINE__, "--help", r.out);
  r = run_validate((char *[]){"validate", "--bogus", good, NULL});
  report(r.status == 2 &&
             strcmp(r.err, "pisa-char validate: unknown option '--bogus'\n"
                           "Try 'pisa-char validate --help'.\n") == 0 &&
             !*r.out,
         __LINE__, "unknown option", r.err);
  r = run_validate((char *[]){"validate", good, "--schema", NULL});
  report(r.status == 2 && strstr(r.err, "option '--schema' needs an argument"),
         __LINE__, "missing option argument", r.err);
  r = run_validate((char *[]){"validate", NULL});
  report(r.status == 2 && strstr(r.err, "no file to validate"), __LINE__,
         "no file", r.err);
  r = run_validate(
      (char *[]){"validate", "--raw", "--schema", custom, good, NULL});
  report(r.status == 2 && strstr(r.err, "exclude each other"), __LINE__,
         "--raw with --schema", r.err);

  char *files[] = {good,    bad,    broken,  raw,    anonymous,
                   unknown, custom, strange, missing};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    unlink(files[i]);
    free(files[i]);
  }
  rmdir(tmpdir);
  free(min);
}

int main(void) {
  test_type();
  test_object_keywords();
  test_array_keywords();
  test_value_keywords();
  test_refs();
  test_combinators();
  test_load_errors();
  test_parse();
  test_parse_checks();
  test_builtins();
  test_result_schema();
  test_cmd_validate();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
