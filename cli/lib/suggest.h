/* suggest.h: "did you mean" for mistyped names (commands, options, metric
 * families, formats) and the lists of valid names that messages and help
 * texts print, both taken from the table that defines the names. */
#ifndef PISA_CLI_SUGGEST_H
#define PISA_CLI_SUGGEST_H

#include <stddef.h>

/* Edit distance between a and b: the fewest insertions, deletions,
 * substitutions and transpositions of two neighbouring characters that
 * turn a into b (Damerau-Levenshtein). */
size_t edit_distance(const char *a, const char *b);

/* A table of names: `count` entries of `stride` bytes, each starting with
 * its name (a const char *; NULL names are skipped), as arrays of strings,
 * struct option and the command table are. */
struct name_table {
  const void *base;
  size_t count, stride;
};

/* The table of an array, as an initializer and as a value. */
#define NAME_TABLE_INIT(array)                                                 \
  {(array), sizeof(array) / sizeof *(array), sizeof *(array)}
#define NAME_TABLE(array) ((struct name_table)NAME_TABLE_INIT(array))

/* The i-th name of the table (NULL for a skipped entry). */
const char *name_at(struct name_table t, size_t i);

/* The name of the table that `word` is most likely a typo of: the closest
 * one, at distance 1 for words of up to 4 characters and at most 2 for
 * longer ones; NULL when none is that close. */
const char *suggest_name(const char *word, struct name_table t);

/* The names joined by ", ", the last two by `last` (" or ", " and ", or ", "
 * for a plain list); the caller frees it. */
char *join_names(struct name_table t, const char *last);

#endif
