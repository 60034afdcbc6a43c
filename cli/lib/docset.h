/* docset.h: a set of pisa-char/1 result documents loaded from FILEs or
 * DIRs and validated, for the commands that read documents (show, rank,
 * compare, report). */
#ifndef PISA_CLI_DOCSET_H
#define PISA_CLI_DOCSET_H

#include <json-c/json.h>
#include <stddef.h>

struct pisa_doc {
  char *path;        /* the file it came from */
  char *label;       /* file name without directory and .pisa.json/.json */
  json_object *root; /* the validated document */
};

struct pisa_docset {
  struct pisa_doc *docs; /* in argument order; a DIR's files sorted by name */
  size_t count;
};

/* Loads every FILE, and every *.json file (*.pisa.json included) directly
 * in every DIR, and validates each against the built-in pisa-char/1
 * schema. On the first problem prints one line "pisa-char: FILE: problem"
 * and returns -1 (the caller exits 2); else 0 with at least one document. */
int docset_load(struct pisa_docset *set, char *const *args, int nargs);
void docset_free(struct pisa_docset *set);

#endif
