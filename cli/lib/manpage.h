/* manpage.h: manual pages in roff (man(7)) made from the help texts the
 * tools print, so that `man pisa-char` and `pisa-char CMD --help` never
 * disagree. Plain text in, roff out; pisa-cc uses it too. */
#ifndef PISA_CLI_MANPAGE_H
#define PISA_CLI_MANPAGE_H

#include <stdio.h>

/* The title line and the NAME section of page `name`(1). */
void man_begin(FILE *f, const char *name, const char *version,
               const char *summary);

/* A section (.SH) or, with sub, a subsection (.SS). */
void man_section(FILE *f, const char *title, int sub);

/* A help text: its "usage:" lines become a synopsis, unindented lines
 * paragraphs, and indented "TERM  text" lines (options, commands) tagged
 * paragraphs (terms indented alike, or up to four more blanks: "  -o" and
 * "      --long") whose more indented next lines continue the text. */
void man_help_text(FILE *f, const char *text);

#endif
