/* numbers.h: reading numbers from the command line and writing them for
 * people: whole numbers in a range, counts with thousands separators and
 * byte sizes with binary units. */
#ifndef PISA_CLI_NUMBERS_H
#define PISA_CLI_NUMBERS_H

#include <stddef.h>
#include <stdint.h>

/* Parses a whole decimal integer in [min, max] (strtol: leading blanks and
 * a sign allowed); 0 if so, else -1. */
int parse_long(const char *s, long min, long max, long *out);

/* A decimal number starting at `s` with a digit (no sign or blank); 0 on a
 * malformed or too large one, else 1 with the number in *out and *end
 * after its last digit. */
int parse_decimal(const char *s, char **end, unsigned long *out);

/* `s` is all digits and its number is in [min, max]; 0 if so, else -1. */
int parse_unsigned(const char *s, unsigned long min, unsigned long max,
                   unsigned long *out);

/* A size in bytes: a decimal number (a fraction allowed, starting with a
 * digit) with an optional binary unit K, M, G or T (either case), in
 * [min, max] bytes, rounded down; 0 if so, else -1. */
int parse_size(const char *s, double min, double max, uint64_t *out);

/* Writes a count with thousands separators ("2,488,363"). */
const char *format_count(char *buf, size_t n, double count);

/* Writes a byte size with a binary unit ("512 B", "1.5 MiB", up to PiB). */
const char *format_bytes(char *buf, size_t n, double bytes);

#endif
