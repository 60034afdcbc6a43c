/* numbers.c: parsing whole numbers of options and formatting counts and
 * byte sizes for terminal output and reports. */
#include "numbers.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int parse_long(const char *s, long min, long max, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < min || v > max)
    return -1;
  *out = v;
  return 0;
}

int parse_decimal(const char *s, char **end, unsigned long *out) {
  if (!isdigit((unsigned char)*s))
    return 0;
  errno = 0;
  *out = strtoul(s, end, 10);
  return errno == 0;
}

int parse_unsigned(const char *s, unsigned long min, unsigned long max,
                   unsigned long *out) {
  unsigned long v;
  char *end;
  if (!parse_decimal(s, &end, &v) || *end || v < min || v > max)
    return -1;
  *out = v;
  return 0;
}

int parse_size(const char *s, double min, double max, uint64_t *out) {
  static const char Units[] = "KMGT";
  if (!isdigit((unsigned char)*s))
    return -1;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  const char *unit = *end ? strchr(Units, toupper((unsigned char)*end)) : NULL;
  if (errno || (*end && (!unit || !*unit || end[1])))
    return -1;
  for (const char *u = Units; unit && u <= unit; u++)
    v *= 1024;
  if (!(v >= min && v <= max))
    return -1;
  *out = (uint64_t)v;
  return 0;
}

const char *format_count(char *buf, size_t n, double count) {
  char digits[32];
  snprintf(digits, sizeof digits, "%.0f", count);
  size_t len = strlen(digits), out = 0;
  for (size_t i = 0; i < len && out + 2 < n; i++) {
    if (i > 0 && digits[i - 1] != '-' && (len - i) % 3 == 0)
      buf[out++] = ',';
    buf[out++] = digits[i];
  }
  buf[out] = '\0';
  return buf;
}

const char *format_bytes(char *buf, size_t n, double bytes) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  size_t u = 0;
  while (bytes >= 1024 && u + 1 < sizeof units / sizeof *units)
    bytes /= 1024, u++;
  snprintf(buf, n, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}
