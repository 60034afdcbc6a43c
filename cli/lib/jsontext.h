/* jsontext.h: reading JSON text strictly and within bounds. json-c parses;
 * a check pass over the text rejects what json-c lets through (duplicate
 * object keys, \u0000 in strings, integers beyond 64 bits, NaN and
 * infinities), and no text larger than PISA_JSON_MAX_BYTES is read. */
#ifndef PISA_CLI_JSONTEXT_H
#define PISA_CLI_JSONTEXT_H

#include <stddef.h>

struct json_object;

/* The largest JSON text read (1 GiB): far above any document (a deep
 * result of 10 000 functions is tens of MB), far below what would exhaust
 * memory once parsed. */
#define PISA_JSON_MAX_BYTES ((size_t)1 << 30)

/* Strict JSON parsing (UTF-8; no comments, NaN or trailing text; no
 * duplicate keys, \u0000 or integers outside [-2^63, 2^64-1]) of text, which
 * must have a NUL at text[len] (a C string or a file read as one). Returns
 * 0 with the value in *out (NULL for a JSON null), else -1 with a one-line
 * reason in err: "malformed JSON at line L, column C: <what>" or "JSON text
 * too large (<N> bytes, the limit is <M>)". */
int pisa_json_parse(const char *text, size_t len, struct json_object **out,
                    char *err, size_t errlen);

/* The same for a file, read up to the limit: a regular file larger than
 * the limit is refused before it is read, a stream (a pipe, /dev/zero) once
 * it passes the limit or holds a NUL byte. Besides the reasons above,
 * "cannot read: <strerror>", "a NUL byte at offset <N>: not JSON text". */
int pisa_json_parse_file(const char *path, struct json_object **out, char *err,
                         size_t errlen);

#endif
