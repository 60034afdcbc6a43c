/* jsontext.c: strict, bounded JSON reading: json-c's tokener parses, then a
 * check pass over the accepted text finds what json-c silently accepts or
 * alters (a repeated key replaces the first, \u0000 cuts a string, a too
 * large integer is clamped), and reads stop at a size limit. */
#include "jsontext.h"

#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define JSON_PARSE_DEPTH 256

/* ---- The check pass ------------------------------------------------------ */

/* The keys of one open object: where each starts in the text, and its
 * text (escapes decoded, then owned) to compare. */
struct key {
  const char *text;
  size_t len, at;
  char *owned;
};

struct keys {
  bool object; /* else an array */
  struct key *v;
  size_t n, cap;
};

/* A walk over text that json-c accepted, so the structure is known to be
 * sound: strings, numbers and brackets are all it has to tell apart. */
struct scan {
  const char *text;
  size_t len, at;
  struct keys open[JSON_PARSE_DEPTH + 1]; /* reused from object to object */
  int depth;
  bool expect_key; /* the next string is a key */
  char why[160];
};

__attribute__((format(printf, 2, 3))) static int fail(struct scan *s,
                                                      const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->why, sizeof s->why, fmt, ap);
  va_end(ap);
  return -1;
}

/* The key between the quotes at text[from - 1] and text[to], decoded by
 * json-c when it has escapes. */
static struct key key_of(const char *text, size_t from, size_t to) {
  struct key k = {text + from, to - from, from - 1, NULL};
  if (!memchr(k.text, '\\', k.len))
    return k;
  char *quoted = xasprintf("%.*s", (int)(k.len + 2), text + from - 1);
  json_object *decoded = json_tokener_parse(quoted);
  k.len = (size_t)json_object_get_string_len(decoded);
  k.text = k.owned = xasprintf("%s", json_object_get_string(decoded));
  json_object_put(decoded);
  free(quoted);
  return k;
}

static void add_key(struct scan *s, size_t from, size_t to) {
  struct keys *keys = &s->open[s->depth];
  if (keys->n == keys->cap)
    keys->v =
        xrealloc(keys->v, (keys->cap = keys->cap * 2 + 8) * sizeof *keys->v);
  keys->v[keys->n++] = key_of(s->text, from, to);
}

static int by_text(const void *a, const void *b) {
  const struct key *x = a, *y = b;
  int c = memcmp(x->text, y->text, x->len < y->len ? x->len : y->len);
  if (c || x->len == y->len)
    return c ? c : (x->at > y->at) - (x->at < y->at);
  return x->len < y->len ? -1 : 1;
}

/* Sorted, equal keys are neighbours; the later one is the duplicate. */
static int check_keys(struct scan *s, struct keys *keys) {
  if (keys->n > 1)
    qsort(keys->v, keys->n, sizeof *keys->v, by_text);
  const struct key *dup = NULL;
  for (size_t i = 1; i < keys->n; i++)
    if (keys->v[i].len == keys->v[i - 1].len &&
        !memcmp(keys->v[i].text, keys->v[i - 1].text, keys->v[i].len) &&
        (!dup || keys->v[i].at < dup->at))
      dup = &keys->v[i];
  int status = 0;
  if (dup) {
    s->at = dup->at;
    status = fail(s, "duplicate key \"%.*s\"",
                  dup->len > 64 ? 64 : (int)dup->len, dup->text);
  }
  for (size_t i = 0; i < keys->n; i++)
    free(keys->v[i].owned);
  keys->n = 0;
  return status;
}

/* The string starting at s->at (a quote); leaves s->at on its end quote. */
static int scan_string(struct scan *s) {
  size_t from = s->at + 1, i = from;
  for (; s->text[i] != '"'; i++) {
    if (s->text[i] != '\\')
      continue;
    if (!strncmp(s->text + i + 1, "u0000", 5))
      return s->at = i, fail(s, "\\u0000 (a NUL character) in a string");
    i++; /* the escaped character, which may be a quote */
  }
  if (s->expect_key)
    add_key(s, from, i);
  s->expect_key = false;
  s->at = i;
  return 0;
}

/* The number starting at s->at; integers must fit int64_t or uint64_t,
 * which json-c would otherwise clamp to their limits. */
static int scan_number(struct scan *s) {
  size_t n = strspn(s->text + s->at, "-+0123456789.eE");
  const char *num = s->text + s->at;
  bool integer =
      !memchr(num, '.', n) && !memchr(num, 'e', n) && !memchr(num, 'E', n);
  char buf[32];
  bool in_range = !integer;
  if (integer && n < sizeof buf) {
    memcpy(buf, num, n);
    buf[n] = '\0';
    errno = 0;
    if (buf[0] == '-')
      (void)strtoll(buf, NULL, 10);
    else
      (void)strtoull(buf, NULL, 10);
    in_range = errno == 0;
  }
  if (!in_range)
    return fail(s, "integer %.*s does not fit in 64 bits", n > 40 ? 40 : (int)n,
                num);
  s->at += n - 1;
  return 0;
}

static void open_container(struct scan *s, bool object) {
  s->open[++s->depth].object = object;
  s->expect_key = object;
}

static int close_container(struct scan *s) {
  s->expect_key = false;
  return s->open[s->depth--].object ? check_keys(s, &s->open[s->depth + 1]) : 0;
}

static int scan_text(struct scan *s) {
  for (s->at = 0; s->at < s->len; s->at++) {
    char c = s->text[s->at];
    int status = 0;
    if (c == '"')
      status = scan_string(s);
    else if (c == '-' || isdigit((unsigned char)c))
      status = scan_number(s);
    else if (c == '{' || c == '[')
      open_container(s, c == '{');
    else if (c == '}' || c == ']')
      status = close_container(s);
    else if (c == ',')
      s->expect_key = s->open[s->depth].object;
    if (status)
      return -1;
  }
  return 0;
}

/* ---- Parsing ------------------------------------------------------------- */
/* json-c accepts NaN and Infinity, which JSON does not have. */
static bool all_finite(struct json_object *v) {
  switch (json_object_get_type(v)) {
  case json_type_double:
    return isfinite(json_object_get_double(v));
  case json_type_array:
    for (size_t i = 0; i < json_object_array_length(v); i++)
      if (!all_finite(json_object_array_get_idx(v, i)))
        return false;
    return true;
  case json_type_object: {
    json_object_object_foreach(v, key, member) {
      (void)key;
      if (!all_finite(member))
        return false;
    }
    return true;
  }
  default:
    return true;
  }
}

static void parse_error_at(const char *text, size_t offset, const char *what,
                           char *err, size_t errlen) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset; i++) {
    column++;
    if (text[i] == '\n')
      line++, column = 1;
  }
  snprintf(err, errlen, "malformed JSON at line %zu, column %zu: %s", line,
           column, what);
}

/* The check pass over text[0, len) that json-c accepted; 0 or -1 and err. */
static int check_text(const char *text, size_t len, char *err, size_t errlen) {
  struct scan *s = xcalloc(1, sizeof *s);
  s->text = text;
  s->len = len;
  int status = scan_text(s);
  if (status)
    parse_error_at(text, s->at, s->why, err, errlen);
  for (int d = 0; d <= JSON_PARSE_DEPTH; d++) {
    for (size_t i = 0; i < s->open[d].n; i++)
      free(s->open[d].v[i].owned);
    free(s->open[d].v);
  }
  free(s);
  return status;
}

int pisa_json_parse(const char *text, size_t len, struct json_object **out,
                    char *err, size_t errlen) {
  *out = NULL;
  if (len > PISA_JSON_MAX_BYTES) {
    snprintf(err, errlen, "JSON text too large (%zu bytes, the limit is %zu)",
             len, PISA_JSON_MAX_BYTES);
    return -1;
  }
  struct json_tokener *tok = json_tokener_new_ex(JSON_PARSE_DEPTH);
  if (!tok)
    die_status(1, "out of memory");
  json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
  /* The terminating NUL is passed too: it ends a bare number at the end. */
  struct json_object *value = json_tokener_parse_ex(tok, text, (int)len + 1);
  enum json_tokener_error status = json_tokener_get_error(tok);
  size_t end = json_tokener_get_parse_end(tok);
  json_tokener_free(tok);
  if (status != json_tokener_success) {
    parse_error_at(text, end, json_tokener_error_desc(status), err, errlen);
    return -1;
  }
  size_t parsed = end;
  while (end < len && text[end] && strchr(" \t\r\n", text[end]))
    end++;
  if (end < len)
    parse_error_at(text, end, "unexpected text after the JSON value", err,
                   errlen);
  else if (!all_finite(value))
    snprintf(err, errlen,
             "malformed JSON: NaN, Infinity or a number out of range");
  else if (check_text(text, parsed, err, errlen) == 0) {
    *out = value;
    return 0;
  }
  json_object_put(value);
  return -1;
}

/* Reads the file into a NUL-terminated buffer, no more than the limit and
 * no NUL byte; NULL and the reason in err. */
static char *read_file(const char *path, size_t *len, char *err,
                       size_t errlen) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    snprintf(err, errlen, "cannot read: %s", strerror(errno));
    if (fd >= 0)
      close(fd);
    return NULL;
  }
  if (S_ISREG(st.st_mode) && (size_t)st.st_size > PISA_JSON_MAX_BYTES) {
    snprintf(err, errlen, "too large (%lld bytes, the limit is %zu)",
             (long long)st.st_size, PISA_JSON_MAX_BYTES);
    close(fd);
    return NULL;
  }
  size_t cap = 1 << 16, used = 0;
  char *text = xmalloc(cap);
  ssize_t got;
  err[0] = '\0';
  while (!err[0] && (got = read(fd, text + used, cap - used - 1)) != 0) {
    if (got < 0) {
      if (errno != EINTR)
        snprintf(err, errlen, "cannot read: %s", strerror(errno));
      continue;
    }
    const char *nul = memchr(text + used, '\0', (size_t)got);
    if (nul)
      snprintf(err, errlen, "a NUL byte at offset %zu: not JSON text",
               (size_t)(nul - text));
    else if ((used += (size_t)got) > PISA_JSON_MAX_BYTES)
      snprintf(err, errlen, "too large (more than the limit of %zu bytes)",
               PISA_JSON_MAX_BYTES);
    else if (used == cap - 1)
      text = xrealloc(text, cap *= 2);
  }
  close(fd);
  if (err[0]) {
    free(text);
    return NULL;
  }
  text[used] = '\0';
  *len = used;
  return text;
}

int pisa_json_parse_file(const char *path, struct json_object **out, char *err,
                         size_t errlen) {
  size_t len;
  *out = NULL;
  char *text = read_file(path, &len, err, errlen);
  if (!text)
    return -1;
  int status = pisa_json_parse(text, len, out, err, errlen);
  free(text);
  return status;
}
