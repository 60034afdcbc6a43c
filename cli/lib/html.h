/* html.h: the pieces of the report's HTML page, written into a strbuf:
 * the head and title, section headings, and figures with a caption and a
 * note, or the note that no document holds what a figure would show. */
#ifndef PISA_CLI_HTML_H
#define PISA_CLI_HTML_H

#include "strbuf.h"

/* <!DOCTYPE html> to the <h1> title: the head with `title` and the inline
 * style sheet `style`, the opening of the body. */
void html_page_open(struct strbuf *b, const char *title, const char *style);

/* <h2 id="ID">TITLE</h2> */
void html_section(struct strbuf *b, const char *id, const char *title);

/* A figure: its caption, then (html_figure_close) a note below it, if
 * any. What goes in between scrolls sideways when too wide. */
void html_figure_open(struct strbuf *b, const char *caption);
void html_figure_close(struct strbuf *b, const char *note);

/* A fold: <details> (closed) with the summary `summary` (escaped) and,
 * when id is not NULL, id="ID"; what goes before html_fold_close is laid
 * out only when the reader opens it. */
void html_fold_open(struct strbuf *b, const char *id, const char *summary);
void html_fold_close(struct strbuf *b);

/* A figure whose metric no document holds: "Not in these documents: ". */
void html_figure_absent(struct strbuf *b, const char *caption,
                        const char *what);

#endif
