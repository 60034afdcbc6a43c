/* textout.h: the one output file of the commands that read documents and
 * write one (report, export, diff --json): checked before anything is
 * read (an existing file is kept unless --force; a directory is no
 * output), never one of the documents read, written whole (atomicfile.h);
 * no file means standard output. */
#ifndef PISA_CLI_TEXTOUT_H
#define PISA_CLI_TEXTOUT_H

#include "docset.h"
#include "strbuf.h"

/* 0, or 2 after "pisa-char: CMD: OUTPUT exists; use --force ...". */
int textout_check(const char *command, const char *output, int force);

/* 0, or 2 after "pisa-char: CMD: OUTPUT is one of the documents read;
 * choose another -o" (or why OUTPUT cannot take an output at all). */
int textout_check_inputs(const char *command, const char *output,
                         const struct pisa_docset *set);

/* Writes the text to `output`, or to standard output when it is NULL; 0,
 * or 1 after an error message. */
int textout_write(const char *command, const char *output,
                  const struct strbuf *text, int force);

#endif
