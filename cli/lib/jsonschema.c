/* jsonschema.c: compiles a JSON Schema (the draft 2020-12 keywords of
 * keyword_table) into a tree of nodes once, then checks json-c documents
 * against it, reporting the first error as a JSON pointer and a reason. */
#include "jsonschema.h"

#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_LIMIT (-1LL)

/* ---- Paths: JSON pointers built while walking a schema or a document --- */

struct path {
  char *text;
  size_t len, cap;
};

static void path_append(struct path *p, const char *s, size_t n) {
  if (p->len + n + 1 > p->cap) {
    p->cap = (p->len + n + 1) * 2;
    p->text = xrealloc(p->text, p->cap);
  }
  memcpy(p->text + p->len, s, n);
  p->len += n;
  p->text[p->len] = '\0';
}

/* Appends "/" and the escaped key; returns the length to restore. */
static size_t path_push(struct path *p, const char *key) {
  size_t old = p->len;
  path_append(p, "/", 1);
  for (const char *c = key; *c;) {
    size_t plain = strcspn(c, "~/");
    path_append(p, c, plain);
    c += plain;
    if (*c)
      path_append(p, *c++ == '~' ? "~0" : "~1", 2);
  }
  return old;
}

static size_t path_push_index(struct path *p, size_t index) {
  char digits[32];
  snprintf(digits, sizeof digits, "%zu", index);
  return path_push(p, digits);
}

static void path_pop(struct path *p, size_t old) {
  p->len = old;
  if (p->text)
    p->text[old] = '\0';
}

static const char *path_text(const struct path *p) {
  return p->text ? p->text : "";
}

/* ---- Compiled schema ---------------------------------------------------- */

enum type_bit {
  T_NULL = 1 << 0,
  T_BOOLEAN = 1 << 1,
  T_OBJECT = 1 << 2,
  T_ARRAY = 1 << 3,
  T_NUMBER = 1 << 4,
  T_STRING = 1 << 5,
  T_INTEGER = 1 << 6,
};
static const char *const type_names[] = {"null",   "boolean", "object", "array",
                                         "number", "string",  "integer"};
#define N_TYPES (sizeof type_names / sizeof type_names[0])

struct named_schema {
  const char *name;
  struct node *schema;
};

struct pattern_schema {
  regex_t regex;
  struct node *schema;
};

struct node_list {
  struct node **items;
  size_t n;
};

/* One schema document: the root of a loaded file or an embedded schema
 * pulled in by a $ref. */
struct document {
  struct json_object *root;
  char *id; /* the root's "$id", or NULL */
  struct document *next;
};

struct node {
  struct node *next;          /* every node of a pisa_schema, for lookup */
  struct json_object *source; /* the schema value compiled into this node */
  struct document *doc;       /* base of this node's $ref */
  int boolean;                /* 1 or 0 for the schemas true and false,
                                 -1 for an object schema */
  unsigned types;             /* enum type_bit; 0 when "type" is absent */
  struct named_schema *properties;
  size_t n_properties;
  const char **required;
  size_t n_required;
  struct node *additional_properties;
  struct pattern_schema *pattern_properties;
  size_t n_pattern_properties;
  struct node *property_names;
  long long min_properties, max_properties;
  struct node *items;
  struct node_list prefix_items;
  long long min_items, max_items;
  bool unique_items;
  struct json_object *enum_values; /* an array, or NULL */
  bool has_const;
  struct json_object *const_value;
  struct json_object *minimum, *maximum; /* numbers, or NULL */
  struct json_object *exclusive_minimum, *exclusive_maximum;
  long long min_length, max_length;
  const char *pattern_source; /* NULL when "pattern" is absent */
  regex_t pattern;
  const char *ref;
  char *ref_where; /* schema location of the $ref, for load errors */
  struct node *ref_target;
  struct node_list all_of, any_of, one_of;
  struct node *not_schema, *if_schema, *then_schema, *else_schema;
};

struct pisa_schema {
  struct node *root;
  struct node *nodes;
  struct document *docs;
};

/* ---- Loading ------------------------------------------------------------ */

struct loader {
  struct pisa_schema *schema;
  struct document *doc; /* the document being compiled */
  struct path where;    /* location in it, for messages */
  char *err;
  size_t errlen;
};

static int load_error(struct loader *l, const char *fmt, ...) PISA_PRINTF(2, 3);
static int load_error(struct loader *l, const char *fmt, ...) {
  int n = snprintf(l->err, l->errlen,
                   "schema %s#%s: ", l->doc->id ? l->doc->id : "",
                   path_text(&l->where));
  va_list ap;
  va_start(ap, fmt);
  if (n >= 0 && (size_t)n < l->errlen)
    vsnprintf(l->err + n, l->errlen - (size_t)n, fmt, ap);
  va_end(ap);
  return -1;
}

static struct node *compile(struct loader *l, struct json_object *value);

typedef int (*keyword_fn)(struct loader *l, struct node *n,
                          struct json_object *value, size_t field);

#define FIELD(n, offset, type) ((type *)((char *)(n) + (offset)))

static int kw_id(struct loader *l, struct node *n, struct json_object *value,
                 size_t field) {
  (void)field;
  if (n->source != l->doc->root)
    return load_error(l, "\"$id\" is only supported at the root of a schema");
  if (!json_object_is_type(value, json_type_string))
    return load_error(l, "\"$id\" must be a string");
  return 0;
}

static int kw_subschema(struct loader *l, struct node *n,
                        struct json_object *value, size_t field) {
  struct node *sub = compile(l, value);
  *FIELD(n, field, struct node *) = sub;
  return sub ? 0 : -1;
}

static int kw_schema_list(struct loader *l, struct node *n,
                          struct json_object *value, size_t field) {
  struct node_list *list = FIELD(n, field, struct node_list);
  if (!json_object_is_type(value, json_type_array) ||
      json_object_array_length(value) == 0)
    return load_error(l, "expected a non-empty array of schemas");
  list->n = json_object_array_length(value);
  list->items = xcalloc(list->n, sizeof *list->items);
  for (size_t i = 0; i < list->n; i++) {
    size_t mark = path_push_index(&l->where, i);
    list->items[i] = compile(l, json_object_array_get_idx(value, i));
    path_pop(&l->where, mark);
    if (!list->items[i])
      return -1;
  }
  return 0;
}

/* properties and $defs: an object of schemas (the names matter only to
 * properties). */
static int compile_schema_map(struct loader *l, struct json_object *value,
                              struct named_schema **out, size_t *count) {
  if (!json_object_is_type(value, json_type_object))
    return load_error(l, "expected an object of schemas");
  struct named_schema *map =
      xcalloc((size_t)json_object_object_length(value), sizeof *map);
  size_t i = 0;
  *out = map;
  json_object_object_foreach(value, name, sub) {
    size_t mark = path_push(&l->where, name);
    map[i].name = name;
    map[i].schema = compile(l, sub);
    path_pop(&l->where, mark);
    if (!map[i++].schema)
      return -1;
    *count = i;
  }
  return 0;
}

static int kw_properties(struct loader *l, struct node *n,
                         struct json_object *value, size_t field) {
  (void)field;
  return compile_schema_map(l, value, &n->properties, &n->n_properties);
}

static int kw_defs(struct loader *l, struct node *n, struct json_object *value,
                   size_t field) {
  (void)n, (void)field;
  struct named_schema *defs = NULL;
  size_t count = 0;
  int status = compile_schema_map(l, value, &defs, &count);
  free(defs);
  return status;
}

static bool has_ecma_only_escape(const char *regex) {
  for (const char *c = regex; *c; c++) {
    if (*c != '\\')
      continue;
    if (c[1] && strchr("dDwWsSbBpPu", c[1]))
      return true;
    if (c[1])
      c++;
  }
  return false;
}

/* Patterns are compiled as POSIX extended regular expressions; the
 * ECMA-262 escapes POSIX lacks are refused rather than misread. */
static int compile_regex(struct loader *l, const char *source, regex_t *out) {
  if (has_ecma_only_escape(source))
    return load_error(l,
                      "pattern \"%s\": escapes such as \\d are not "
                      "POSIX; use bracket expressions such as [0-9]",
                      source);
  int rc = regcomp(out, source, REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    char why[128];
    regerror(rc, out, why, sizeof why);
    return load_error(l, "pattern \"%s\": %s", source, why);
  }
  return 0;
}

static int kw_pattern(struct loader *l, struct node *n,
                      struct json_object *value, size_t field) {
  (void)field;
  if (!json_object_is_type(value, json_type_string))
    return load_error(l, "\"pattern\" must be a string");
  if (compile_regex(l, json_object_get_string(value), &n->pattern))
    return -1;
  n->pattern_source = json_object_get_string(value);
  return 0;
}

static int kw_pattern_properties(struct loader *l, struct node *n,
                                 struct json_object *value, size_t field) {
  (void)field;
  if (!json_object_is_type(value, json_type_object))
    return load_error(l, "\"patternProperties\" must be an object");
  n->pattern_properties = xcalloc((size_t)json_object_object_length(value),
                                  sizeof *n->pattern_properties);
  json_object_object_foreach(value, source, sub) {
    struct pattern_schema *p = &n->pattern_properties[n->n_pattern_properties];
    size_t mark = path_push(&l->where, source);
    int status = compile_regex(l, source, &p->regex);
    if (status == 0) {
      n->n_pattern_properties++;
      p->schema = compile(l, sub);
      status = p->schema ? 0 : -1;
    }
    path_pop(&l->where, mark);
    if (status)
      return -1;
  }
  return 0;
}

static int kw_required(struct loader *l, struct node *n,
                       struct json_object *value, size_t field) {
  (void)field;
  if (!json_object_is_type(value, json_type_array))
    return load_error(l, "\"required\" must be an array of strings");
  size_t count = json_object_array_length(value);
  n->required = xcalloc(count, sizeof *n->required);
  for (size_t i = 0; i < count; i++) {
    struct json_object *name = json_object_array_get_idx(value, i);
    if (!json_object_is_type(name, json_type_string))
      return load_error(l, "\"required\" must be an array of strings");
    n->required[n->n_required++] = json_object_get_string(name);
  }
  return 0;
}

static int type_bit(const char *name) {
  for (size_t i = 0; i < N_TYPES; i++)
    if (strcmp(name, type_names[i]) == 0)
      return 1 << i;
  return 0;
}

static int kw_type(struct loader *l, struct node *n, struct json_object *value,
                   size_t field) {
  (void)field;
  bool single = json_object_is_type(value, json_type_string);
  if (!single && !json_object_is_type(value, json_type_array))
    return load_error(l, "\"type\" must be a string or an array of strings");
  size_t count = single ? 1 : json_object_array_length(value);
  for (size_t i = 0; i < count; i++) {
    struct json_object *name =
        single ? value : json_object_array_get_idx(value, i);
    int bit = json_object_is_type(name, json_type_string)
                  ? type_bit(json_object_get_string(name))
                  : 0;
    if (!bit)
      return load_error(l, "unknown type %s", json_object_to_json_string(name));
    n->types |= (unsigned)bit;
  }
  return 0;
}

static int kw_enum(struct loader *l, struct node *n, struct json_object *value,
                   size_t field) {
  (void)field;
  if (!json_object_is_type(value, json_type_array))
    return load_error(l, "\"enum\" must be an array");
  n->enum_values = value;
  return 0;
}

static int kw_const(struct loader *l, struct node *n, struct json_object *value,
                    size_t field) {
  (void)l, (void)field;
  n->has_const = true;
  n->const_value = value;
  return 0;
}

static bool is_number(struct json_object *v) {
  return json_object_is_type(v, json_type_int) ||
         json_object_is_type(v, json_type_double);
}

/* Compares two JSON numbers (<0, 0, >0): exactly when both are integers,
 * which json-c holds as int64, or uint64 above INT64_MAX; else as doubles. */
static int number_compare(struct json_object *a, struct json_object *b) {
  if (!json_object_is_type(a, json_type_int) ||
      !json_object_is_type(b, json_type_int)) {
    double x = json_object_get_double(a), y = json_object_get_double(b);
    return (x > y) - (x < y);
  }
  int64_t x = json_object_get_int64(a), y = json_object_get_int64(b);
  if (x < 0 || y < 0) /* then neither is above INT64_MAX */
    return (x > y) - (x < y);
  uint64_t ux = json_object_get_uint64(a), uy = json_object_get_uint64(b);
  return (ux > uy) - (ux < uy);
}

static int kw_bound(struct loader *l, struct node *n, struct json_object *value,
                    size_t field) {
  if (!is_number(value))
    return load_error(l, "bound must be a number");
  *FIELD(n, field, struct json_object *) = value;
  return 0;
}

static int kw_limit(struct loader *l, struct node *n, struct json_object *value,
                    size_t field) {
  double limit = json_object_get_double(value);
  if (!is_number(value) || limit < 0 || limit != floor(limit) || limit > 1e15)
    return load_error(l, "limit must be a non-negative integer");
  *FIELD(n, field, long long) = (long long)limit;
  return 0;
}

static int kw_unique_items(struct loader *l, struct node *n,
                           struct json_object *value, size_t field) {
  (void)field;
  if (!json_object_is_type(value, json_type_boolean))
    return load_error(l, "\"uniqueItems\" must be a boolean");
  n->unique_items = json_object_get_boolean(value);
  return 0;
}

static int kw_ref(struct loader *l, struct node *n, struct json_object *value,
                  size_t field) {
  (void)field;
  if (!json_object_is_type(value, json_type_string))
    return load_error(l, "\"$ref\" must be a string");
  n->ref = json_object_get_string(value);
  n->ref_where = xstrdup(path_text(&l->where));
  return 0; /* resolved once the whole document is compiled */
}

/* Annotations (no compile function) are accepted and ignored; any keyword
 * missing from this table makes the schema fail to load. */
static const struct keyword {
  const char *name;
  keyword_fn compile;
  size_t field;
} keyword_table[] = {
    {"$schema", NULL, 0},
    {"title", NULL, 0},
    {"description", NULL, 0},
    {"$comment", NULL, 0},
    {"default", NULL, 0},
    {"examples", NULL, 0},
    {"deprecated", NULL, 0},
    {"readOnly", NULL, 0},
    {"writeOnly", NULL, 0},
    {"$id", kw_id, 0},
    {"$defs", kw_defs, 0},
    {"$ref", kw_ref, 0},
    {"type", kw_type, 0},
    {"enum", kw_enum, 0},
    {"const", kw_const, 0},
    {"properties", kw_properties, 0},
    {"required", kw_required, 0},
    {"additionalProperties", kw_subschema,
     offsetof(struct node, additional_properties)},
    {"patternProperties", kw_pattern_properties, 0},
    {"propertyNames", kw_subschema, offsetof(struct node, property_names)},
    {"minProperties", kw_limit, offsetof(struct node, min_properties)},
    {"maxProperties", kw_limit, offsetof(struct node, max_properties)},
    {"items", kw_subschema, offsetof(struct node, items)},
    {"prefixItems", kw_schema_list, offsetof(struct node, prefix_items)},
    {"minItems", kw_limit, offsetof(struct node, min_items)},
    {"maxItems", kw_limit, offsetof(struct node, max_items)},
    {"uniqueItems", kw_unique_items, 0},
    {"minimum", kw_bound, offsetof(struct node, minimum)},
    {"maximum", kw_bound, offsetof(struct node, maximum)},
    {"exclusiveMinimum", kw_bound, offsetof(struct node, exclusive_minimum)},
    {"exclusiveMaximum", kw_bound, offsetof(struct node, exclusive_maximum)},
    {"minLength", kw_limit, offsetof(struct node, min_length)},
    {"maxLength", kw_limit, offsetof(struct node, max_length)},
    {"pattern", kw_pattern, 0},
    {"allOf", kw_schema_list, offsetof(struct node, all_of)},
    {"anyOf", kw_schema_list, offsetof(struct node, any_of)},
    {"oneOf", kw_schema_list, offsetof(struct node, one_of)},
    {"not", kw_subschema, offsetof(struct node, not_schema)},
    {"if", kw_subschema, offsetof(struct node, if_schema)},
    {"then", kw_subschema, offsetof(struct node, then_schema)},
    {"else", kw_subschema, offsetof(struct node, else_schema)},
};

static const struct keyword *find_keyword(const char *name) {
  for (size_t i = 0; i < sizeof keyword_table / sizeof keyword_table[0]; i++)
    if (strcmp(keyword_table[i].name, name) == 0)
      return &keyword_table[i];
  return NULL;
}

static struct node *find_node(const struct pisa_schema *s,
                              struct json_object *source) {
  for (struct node *n = s->nodes; n; n = n->next)
    if (n->source == source)
      return n;
  return NULL;
}

static struct node *new_node(struct loader *l, struct json_object *source) {
  struct node *n = xcalloc(1, sizeof *n);
  n->source = source;
  n->doc = l->doc;
  n->boolean = -1;
  n->min_properties = n->max_properties = NO_LIMIT;
  n->min_items = n->max_items = NO_LIMIT;
  n->min_length = n->max_length = NO_LIMIT;
  n->next = l->schema->nodes;
  l->schema->nodes = n;
  return n;
}

static int compile_keyword(struct loader *l, struct node *n, const char *name,
                           struct json_object *value) {
  const struct keyword *k = find_keyword(name);
  if (!k)
    return load_error(l, "unsupported keyword \"%s\"", name);
  if (!k->compile)
    return 0;
  size_t mark = path_push(&l->where, name);
  int status = k->compile(l, n, value, k->field);
  path_pop(&l->where, mark);
  return status;
}

static struct node *compile(struct loader *l, struct json_object *value) {
  struct node *n = find_node(l->schema, value);
  if (n && value)
    return n;
  if (json_object_is_type(value, json_type_boolean)) {
    n = new_node(l, value);
    n->boolean = json_object_get_boolean(value);
    return n;
  }
  if (!json_object_is_type(value, json_type_object)) {
    load_error(l, "a schema must be an object or a boolean");
    return NULL;
  }
  n = new_node(l, value);
  json_object_object_foreach(value, name, keyword_value) {
    if (compile_keyword(l, n, name, keyword_value))
      return NULL;
  }
  return n;
}

/* ---- $ref resolution ----------------------------------------------------- */

static struct document *add_document(struct pisa_schema *s,
                                     struct json_object *root) {
  struct document *d = xcalloc(1, sizeof *d);
  struct json_object *id;
  d->root = root;
  if (json_object_object_get_ex(root, "$id", &id) &&
      json_object_is_type(id, json_type_string))
    d->id = xstrdup(json_object_get_string(id));
  d->next = s->docs;
  s->docs = d;
  return d;
}

/* The URI a $ref names, without fragment: absolute, or relative to the
 * directory of the base $id. NULL when it cannot be resolved. */
static char *resolve_uri(const char *base, const char *ref, size_t len) {
  const char *colon = memchr(ref, ':', len);
  const char *slash = memchr(ref, '/', len);
  if (colon && (!slash || colon < slash))
    return xasprintf("%.*s", (int)len, ref);
  if (!base || (len > 0 && ref[0] == '/') || strncmp(ref, "..", 2) == 0)
    return NULL;
  if (len > 2 && strncmp(ref, "./", 2) == 0)
    ref += 2, len -= 2;
  const char *dir_end = strrchr(base, '/');
  int dir_len = dir_end ? (int)(dir_end - base + 1) : 0;
  return xasprintf("%.*s%.*s", dir_len, base, (int)len, ref);
}

/* The embedded schema whose $id is uri, parsed; NULL if none. */
static struct json_object *embedded_by_id(const char *uri) {
  for (const struct pisa_embedded_schema *e = pisa_embedded_schemas; e->name;
       e++) {
    struct json_object *root = NULL, *id;
    char err[256];
    if (pisa_json_parse(e->text, strlen(e->text), &root, err, sizeof err))
      continue;
    if (json_object_object_get_ex(root, "$id", &id) &&
        json_object_is_type(id, json_type_string) &&
        strcmp(json_object_get_string(id), uri) == 0)
      return root;
    json_object_put(root);
  }
  return NULL;
}

/* Compiles a whole document pulled in by a $ref, so that every keyword in
 * it is checked. Leaves l->where empty. */
static int compile_document(struct loader *l, struct document *doc) {
  struct document *saved = l->doc;
  l->doc = doc;
  path_pop(&l->where, 0);
  struct node *root = compile(l, doc->root);
  l->doc = saved;
  return root ? 0 : -1;
}

/* The document whose $id is uri, loading a built-in one if needed; NULL
 * with *failed = 0 when there is none, *failed = 1 when it fails to load. */
static struct document *find_document(struct loader *l, const char *uri,
                                      int *failed) {
  *failed = 0;
  for (struct document *d = l->schema->docs; d; d = d->next)
    if (d->id && strcmp(d->id, uri) == 0)
      return d;
  struct json_object *root = embedded_by_id(uri);
  if (!root)
    return NULL;
  struct document *d = add_document(l->schema, root);
  *failed = compile_document(l, d) != 0;
  return *failed ? NULL : d;
}

static void percent_decode(char *s) {
  char *out = s;
  for (; *s; s++) {
    if (s[0] == '%' && isxdigit((unsigned char)s[1]) &&
        isxdigit((unsigned char)s[2])) {
      char hex[3] = {s[1], s[2], '\0'};
      *out++ = (char)strtol(hex, NULL, 16);
      s += 2;
    } else {
      *out++ = *s;
    }
  }
  *out = '\0';
}

static int ref_error(struct loader *l, const struct node *n, const char *fmt,
                     ...) PISA_PRINTF(3, 4);
static int ref_error(struct loader *l, const struct node *n, const char *fmt,
                     ...) {
  char why[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  l->doc = n->doc;
  path_pop(&l->where, 0);
  path_append(&l->where, n->ref_where, strlen(n->ref_where));
  return load_error(l, "cannot resolve \"%s\": %s", n->ref, why);
}

/* The document a $ref names (NULL with the error reported if none). */
static struct document *ref_document(struct loader *l, const struct node *n,
                                     size_t uri_len) {
  if (uri_len == 0)
    return n->doc;
  char *uri = resolve_uri(n->doc->id, n->ref, uri_len);
  if (!uri) {
    ref_error(l, n, "a relative reference needs a base \"$id\"");
    return NULL;
  }
  int failed;
  struct document *doc = find_document(l, uri, &failed);
  if (!doc && !failed)
    ref_error(l, n, "no built-in schema has the \"$id\" %s", uri);
  free(uri);
  return doc;
}

static int resolve_ref(struct loader *l, struct node *n) {
  const char *hash = strchr(n->ref, '#');
  struct document *doc =
      ref_document(l, n, hash ? (size_t)(hash - n->ref) : strlen(n->ref));
  if (!doc)
    return -1;
  char *pointer = xstrdup(hash ? hash + 1 : "");
  percent_decode(pointer);
  struct json_object *target = NULL;
  int found = (pointer[0] == '\0' || pointer[0] == '/') &&
              json_pointer_get(doc->root, pointer, &target) == 0;
  free(pointer);
  if (!found)
    return ref_error(l, n,
                     "no such location (only a JSON pointer may "
                     "follow the #)");
  n->ref_target = find_node(l->schema, target);
  if (n->ref_target)
    return 0;
  struct document *saved = l->doc;
  l->doc = doc;
  path_pop(&l->where, 0);
  path_append(&l->where, hash ? hash + 1 : "", hash ? strlen(hash + 1) : 0);
  n->ref_target = compile(l, target);
  l->doc = saved;
  return n->ref_target ? 0 : -1;
}

/* Resolving may compile new nodes, which may hold new references. */
static int resolve_refs(struct loader *l) {
  bool again = true;
  while (again) {
    again = false;
    for (struct node *n = l->schema->nodes; n; n = n->next) {
      if (!n->ref || n->ref_target)
        continue;
      if (resolve_ref(l, n))
        return -1;
      again = true;
    }
  }
  return 0;
}

static void free_node(struct node *n) {
  for (size_t i = 0; i < n->n_pattern_properties; i++)
    regfree(&n->pattern_properties[i].regex);
  if (n->pattern_source)
    regfree(&n->pattern);
  free(n->pattern_properties);
  free(n->properties);
  free(n->required);
  free(n->prefix_items.items);
  free(n->all_of.items);
  free(n->any_of.items);
  free(n->one_of.items);
  free(n->ref_where);
  free(n);
}

void pisa_schema_free(struct pisa_schema *s) {
  if (!s)
    return;
  while (s->nodes) {
    struct node *next = s->nodes->next;
    free_node(s->nodes);
    s->nodes = next;
  }
  while (s->docs) {
    struct document *next = s->docs->next;
    json_object_put(s->docs->root);
    free(s->docs->id);
    free(s->docs);
    s->docs = next;
  }
  free(s);
}

static struct pisa_schema *load_root(struct json_object *root, char *err,
                                     size_t errlen) {
  struct pisa_schema *s = xcalloc(1, sizeof *s);
  struct loader l = {.schema = s, .err = err, .errlen = errlen};
  l.doc = add_document(s, root);
  s->root = compile(&l, root);
  int status = s->root ? resolve_refs(&l) : -1;
  free(l.where.text);
  if (status) {
    pisa_schema_free(s);
    return NULL;
  }
  return s;
}

struct pisa_schema *pisa_schema_load_text(const char *text, char *err,
                                          size_t errlen) {
  struct json_object *root;
  if (pisa_json_parse(text, strlen(text), &root, err, errlen))
    return NULL;
  return load_root(root, err, errlen);
}

struct pisa_schema *pisa_schema_load_file(const char *path, char *err,
                                          size_t errlen) {
  struct json_object *root;
  if (pisa_json_parse_file(path, &root, err, errlen))
    return NULL;
  return load_root(root, err, errlen);
}

const struct pisa_schema *pisa_schema_builtin(const char *file_name) {
  static struct pisa_schema **loaded;
  size_t count = 0, index = SIZE_MAX;
  for (; pisa_embedded_schemas[count].name; count++)
    if (strcmp(pisa_embedded_schemas[count].name, file_name) == 0)
      index = count;
  if (index == SIZE_MAX)
    return NULL;
  if (!loaded)
    loaded = xcalloc(count, sizeof *loaded);
  if (!loaded[index]) {
    char err[512];
    loaded[index] = pisa_schema_load_text(pisa_embedded_schemas[index].text,
                                          err, sizeof err);
    if (!loaded[index])
      error("built-in schema %s: %s", file_name, err);
  }
  return loaded[index];
}

/* ---- Validation ---------------------------------------------------------- */

struct failure {
  char pointer[1024]; /* "" for the document itself */
  char reason[512];
};

struct checker {
  struct path where;
  struct failure failure; /* the first error found */
  int quiet; /* > 0 while only whether a value matches matters (inside
                anyOf, oneOf, not, if): failures are not described */
};

static int describe_failure(struct checker *c, const char *fmt, ...)
    PISA_PRINTF(2, 3);
static int describe_failure(struct checker *c, const char *fmt, ...) {
  snprintf(c->failure.pointer, sizeof c->failure.pointer, "%s",
           path_text(&c->where));
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->failure.reason, sizeof c->failure.reason, fmt, ap);
  va_end(ap);
  return 1;
}

/* Fails, describing why unless quiet (the arguments are then not even
 * evaluated: formatting values costs more than checking them). */
#define FAIL(c, ...) ((c)->quiet ? 1 : describe_failure((c), __VA_ARGS__))

static int check(const struct node *n, struct json_object *v,
                 struct checker *c);

static unsigned type_of(struct json_object *v) {
  switch (json_object_get_type(v)) {
  case json_type_null:
    return T_NULL;
  case json_type_boolean:
    return T_BOOLEAN;
  case json_type_object:
    return T_OBJECT;
  case json_type_array:
    return T_ARRAY;
  case json_type_string:
    return T_STRING;
  case json_type_int:
    return T_NUMBER | T_INTEGER;
  case json_type_double: {
    double d = json_object_get_double(v);
    return T_NUMBER | (isfinite(d) && d == floor(d) ? T_INTEGER : 0);
  }
  }
  return 0;
}

static const char *type_name_of(struct json_object *v) {
  if (json_object_is_type(v, json_type_int))
    return "integer";
  if (json_object_is_type(v, json_type_double))
    return "number";
  return json_type_to_name(json_object_get_type(v));
}

/* A value as JSON text for messages, cut short when long. */
static const char *show(struct json_object *v, char *buf, size_t len) {
  const char *text = json_object_to_json_string_ext(
      v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
  if (strlen(text) < len)
    snprintf(buf, len, "%s", text);
  else
    snprintf(buf, len, "%.*s...", (int)len - 4, text);
  return buf;
}

static bool json_equal(struct json_object *a, struct json_object *b);

static bool object_equal(struct json_object *a, struct json_object *b) {
  if (json_object_object_length(a) != json_object_object_length(b))
    return false;
  json_object_object_foreach(a, key, value) {
    struct json_object *other;
    if (!json_object_object_get_ex(b, key, &other) || !json_equal(value, other))
      return false;
  }
  return true;
}

static bool array_equal(struct json_object *a, struct json_object *b) {
  size_t n = json_object_array_length(a);
  if (n != json_object_array_length(b))
    return false;
  for (size_t i = 0; i < n; i++)
    if (!json_equal(json_object_array_get_idx(a, i),
                    json_object_array_get_idx(b, i)))
      return false;
  return true;
}

/* JSON equality: 1 equals 1.0, true does not equal 1. */
static bool json_equal(struct json_object *a, struct json_object *b) {
  if (is_number(a) && is_number(b))
    return number_compare(a, b) == 0;
  if (json_object_get_type(a) != json_object_get_type(b))
    return false;
  switch (json_object_get_type(a)) {
  case json_type_null:
    return true;
  case json_type_boolean:
    return json_object_get_boolean(a) == json_object_get_boolean(b);
  case json_type_string:
    return json_object_get_string_len(a) == json_object_get_string_len(b) &&
           memcmp(json_object_get_string(a), json_object_get_string(b),
                  (size_t)json_object_get_string_len(a)) == 0;
  case json_type_array:
    return array_equal(a, b);
  case json_type_object:
    return object_equal(a, b);
  default:
    return false;
  }
}

static int check_type(const struct node *n, struct json_object *v,
                      struct checker *c) {
  if (!n->types || (n->types & type_of(v)))
    return 0;
  if (c->quiet)
    return 1;
  char expected[128] = "";
  for (size_t i = 0; i < N_TYPES; i++) {
    if (!(n->types & (1u << i)))
      continue;
    size_t used = strlen(expected);
    snprintf(expected + used, sizeof expected - used, "%s%s",
             used ? " or " : "", type_names[i]);
  }
  return FAIL(c, "expected %s, got %s", expected, type_name_of(v));
}

static int check_enum_const(const struct node *n, struct json_object *v,
                            struct checker *c) {
  char got[128], allowed[256];
  if (n->has_const && !json_equal(v, n->const_value))
    return FAIL(c, "expected %s, got %s",
                show(n->const_value, allowed, sizeof allowed),
                show(v, got, sizeof got));
  if (!n->enum_values)
    return 0;
  for (size_t i = 0; i < json_object_array_length(n->enum_values); i++)
    if (json_equal(v, json_object_array_get_idx(n->enum_values, i)))
      return 0;
  return FAIL(c, "%s is not one of %s", show(v, got, sizeof got),
              show(n->enum_values, allowed, sizeof allowed));
}

static int fail_bound(struct checker *c, struct json_object *v,
                      const char *relation, struct json_object *bound) {
  char got[64], limit[64];
  return FAIL(c, "%s is %s %s", show(v, got, sizeof got), relation,
              show(bound, limit, sizeof limit));
}

static int check_number(const struct node *n, struct json_object *v,
                        struct checker *c) {
  if (!is_number(v))
    return 0;
  if (n->minimum && number_compare(v, n->minimum) < 0)
    return fail_bound(c, v, "less than the minimum", n->minimum);
  if (n->maximum && number_compare(v, n->maximum) > 0)
    return fail_bound(c, v, "greater than the maximum", n->maximum);
  if (n->exclusive_minimum && number_compare(v, n->exclusive_minimum) <= 0)
    return fail_bound(c, v, "not greater than", n->exclusive_minimum);
  if (n->exclusive_maximum && number_compare(v, n->exclusive_maximum) >= 0)
    return fail_bound(c, v, "not less than", n->exclusive_maximum);
  return 0;
}

/* Length in characters (code points), as JSON Schema counts it. */
static long long utf8_length(const char *s) {
  long long n = 0;
  for (; *s; s++)
    n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

static int check_string(const struct node *n, struct json_object *v,
                        struct checker *c) {
  if (!json_object_is_type(v, json_type_string))
    return 0;
  const char *s = json_object_get_string(v);
  long long len = utf8_length(s);
  char got[128];
  if (n->min_length != NO_LIMIT && len < n->min_length)
    return FAIL(c, "string shorter than %lld characters", n->min_length);
  if (n->max_length != NO_LIMIT && len > n->max_length)
    return FAIL(c, "string longer than %lld characters", n->max_length);
  if (n->pattern_source && regexec(&n->pattern, s, 0, NULL, 0) != 0)
    return FAIL(c, "%s does not match the pattern %s", show(v, got, sizeof got),
                n->pattern_source);
  return 0;
}

static int check_items(const struct node *n, struct json_object *v,
                       struct checker *c) {
  size_t len = json_object_array_length(v);
  for (size_t i = 0; i < len; i++) {
    const struct node *schema =
        i < n->prefix_items.n ? n->prefix_items.items[i] : n->items;
    if (!schema)
      continue;
    size_t mark = path_push_index(&c->where, i);
    int status = check(schema, json_object_array_get_idx(v, i), c);
    path_pop(&c->where, mark);
    if (status)
      return 1;
  }
  return 0;
}

static int check_array(const struct node *n, struct json_object *v,
                       struct checker *c) {
  if (!json_object_is_type(v, json_type_array))
    return 0;
  long long len = (long long)json_object_array_length(v);
  if (n->min_items != NO_LIMIT && len < n->min_items)
    return FAIL(c, "expected at least %lld items, got %lld", n->min_items, len);
  if (n->max_items != NO_LIMIT && len > n->max_items)
    return FAIL(c, "expected at most %lld items, got %lld", n->max_items, len);
  for (long long i = 0; n->unique_items && i < len; i++)
    for (long long j = i + 1; j < len; j++)
      if (json_equal(json_object_array_get_idx(v, (size_t)i),
                     json_object_array_get_idx(v, (size_t)j)))
        return FAIL(c, "items %lld and %lld are equal", i, j);
  return check_items(n, v, c);
}

/* A string object of its own per name: json-c 0.16's json_object_set_string
 * on one reused object leaked a heap buffer (found by fuzz_rankmerge). */
static int check_property_name(const struct node *n, const char *name,
                               struct checker *c) {
  struct json_object *instance = json_object_new_string(name);
  int status = check(n->property_names, instance, c);
  json_object_put(instance);
  if (status && !c->quiet) {
    char reason[sizeof c->failure.reason];
    snprintf(reason, sizeof reason, "%s", c->failure.reason);
    FAIL(c, "property name not allowed: %s", reason);
  }
  return status;
}

/* properties, patternProperties, additionalProperties and propertyNames,
 * for one property of the instance. */
static int check_property(const struct node *n, const char *name,
                          struct json_object *value, struct checker *c) {
  bool matched = false;
  if (n->property_names && check_property_name(n, name, c))
    return 1;
  for (size_t i = 0; i < n->n_properties; i++) {
    if (strcmp(n->properties[i].name, name) != 0)
      continue;
    if (check(n->properties[i].schema, value, c))
      return 1;
    matched = true;
  }
  for (size_t i = 0; i < n->n_pattern_properties; i++) {
    const struct pattern_schema *p = &n->pattern_properties[i];
    if (regexec(&p->regex, name, 0, NULL, 0) != 0)
      continue;
    if (check(p->schema, value, c))
      return 1;
    matched = true;
  }
  if (matched || !n->additional_properties)
    return 0;
  if (n->additional_properties->boolean == 0)
    return FAIL(c, "property not allowed");
  return check(n->additional_properties, value, c);
}

static int check_object(const struct node *n, struct json_object *v,
                        struct checker *c) {
  if (!json_object_is_type(v, json_type_object))
    return 0;
  for (size_t i = 0; i < n->n_required; i++)
    if (!json_object_object_get_ex(v, n->required[i], NULL))
      return FAIL(c, "missing required property \"%s\"", n->required[i]);
  long long count = json_object_object_length(v);
  if (n->min_properties != NO_LIMIT && count < n->min_properties)
    return FAIL(c, "expected at least %lld properties, got %lld",
                n->min_properties, count);
  if (n->max_properties != NO_LIMIT && count > n->max_properties)
    return FAIL(c, "expected at most %lld properties, got %lld",
                n->max_properties, count);
  json_object_object_foreach(v, name, value) {
    size_t mark = path_push(&c->where, name);
    int status = check_property(n, name, value, c);
    path_pop(&c->where, mark);
    if (status)
      return 1;
  }
  return 0;
}

/* How many alternatives v matches, and the first two that it does. */
static size_t count_matches(const struct node_list *alternatives,
                            struct json_object *v, struct checker *c,
                            size_t matched[2]) {
  size_t matches = 0;
  c->quiet++;
  for (size_t i = 0; i < alternatives->n; i++) {
    if (check(alternatives->items[i], v, c) == 0) {
      if (matches < 2)
        matched[matches] = i;
      matches++;
    }
  }
  c->quiet--;
  return matches;
}

/* When no alternative matched: the failure that got deepest into the value
 * (that alternative was most likely meant), else all the reasons. The
 * alternatives are checked again, now describing their failures. */
static int fail_alternatives(struct checker *c, const char *keyword,
                             const struct node_list *alternatives,
                             struct json_object *v) {
  if (c->quiet)
    return 1;
  struct failure *failures = xcalloc(alternatives->n, sizeof *failures);
  size_t deepest = 0;
  for (size_t i = 0; i < alternatives->n; i++) {
    check(alternatives->items[i], v, c);
    failures[i] = c->failure;
    if (strlen(failures[i].pointer) > strlen(failures[deepest].pointer))
      deepest = i;
  }
  char reasons[sizeof c->failure.reason] = "";
  for (size_t i = 0; i < alternatives->n; i++) {
    size_t used = strlen(reasons);
    snprintf(reasons + used, sizeof reasons - used, "%s%s", i ? "; " : "",
             failures[i].reason);
  }
  if (strlen(failures[deepest].pointer) > c->where.len)
    c->failure = failures[deepest];
  else
    FAIL(c, "matches none of the %s alternatives (%s)", keyword, reasons);
  free(failures);
  return 1;
}

static int check_combinators(const struct node *n, struct json_object *v,
                             struct checker *c) {
  for (size_t i = 0; i < n->all_of.n; i++)
    if (check(n->all_of.items[i], v, c))
      return 1;
  size_t matched[2];
  if (n->any_of.n && count_matches(&n->any_of, v, c, matched) == 0)
    return fail_alternatives(c, "anyOf", &n->any_of, v);
  if (!n->one_of.n)
    return 0;
  size_t matches = count_matches(&n->one_of, v, c, matched);
  if (matches == 0)
    return fail_alternatives(c, "oneOf", &n->one_of, v);
  if (matches > 1)
    return FAIL(c,
                "matches oneOf alternatives %zu and %zu, expected exactly "
                "one",
                matched[0], matched[1]);
  return 0;
}

/* Whether v matches n, without describing why not. */
static bool matches(const struct node *n, struct json_object *v,
                    struct checker *c) {
  c->quiet++;
  int status = check(n, v, c);
  c->quiet--;
  return status == 0;
}

static int check_conditionals(const struct node *n, struct json_object *v,
                              struct checker *c) {
  if (n->not_schema && matches(n->not_schema, v, c))
    return FAIL(c, "must not match the \"not\" schema");
  if (!n->if_schema)
    return 0;
  const struct node *branch =
      matches(n->if_schema, v, c) ? n->then_schema : n->else_schema;
  return branch ? check(branch, v, c) : 0;
}

static int check(const struct node *n, struct json_object *v,
                 struct checker *c) {
  if (n->boolean == 1)
    return 0;
  if (n->boolean == 0)
    return FAIL(c, "no value is allowed here");
  if (check_type(n, v, c) || check_enum_const(n, v, c) ||
      check_number(n, v, c) || check_string(n, v, c) || check_array(n, v, c) ||
      check_object(n, v, c))
    return 1;
  if (n->ref_target && check(n->ref_target, v, c))
    return 1;
  return check_combinators(n, v, c) || check_conditionals(n, v, c);
}

int pisa_schema_validate(const struct pisa_schema *s, struct json_object *doc,
                         char *err, size_t errlen) {
  struct checker c = {0};
  int status = check(s->root, doc, &c);
  if (status)
    snprintf(err, errlen, "%s: %s",
             c.failure.pointer[0] ? c.failure.pointer : "<root>",
             c.failure.reason);
  free(c.where.text);
  return status;
}
