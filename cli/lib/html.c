/* html.c: the head, headings and figures of the report's HTML page. */
#include "html.h"

void html_page_open(struct strbuf *b, const char *title, const char *style) {
  sb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
             "<meta charset=\"utf-8\">\n<title>");
  sb_escaped(b, title);
  sb_printf(b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", style);
  sb_escaped(b, title);
  sb_puts(b, "</h1>\n");
}

void html_section(struct strbuf *b, const char *id, const char *title) {
  sb_printf(b, "<h2 id=\"%s\">", id);
  sb_escaped(b, title);
  sb_puts(b, "</h2>\n");
}

void html_fold_open(struct strbuf *b, const char *id, const char *summary) {
  if (id)
    sb_printf(b, "<details id=\"%s\">", id);
  else
    sb_puts(b, "<details>");
  sb_puts(b, "<summary>");
  sb_escaped(b, summary);
  sb_puts(b, "</summary>\n");
}

void html_fold_close(struct strbuf *b) { sb_puts(b, "</details>\n"); }

void html_figure_open(struct strbuf *b, const char *caption) {
  sb_puts(b, "<figure><figcaption>");
  sb_escaped(b, caption);
  sb_puts(b, "</figcaption>\n<div class=\"scroll\">\n");
}

void html_figure_close(struct strbuf *b, const char *note) {
  sb_puts(b, "</div>\n");
  if (note && *note) {
    sb_puts(b, "<p class=\"note\">");
    sb_escaped(b, note);
    sb_puts(b, "</p>\n");
  }
  sb_puts(b, "</figure>\n");
}

void html_figure_absent(struct strbuf *b, const char *caption,
                        const char *what) {
  sb_puts(b, "<figure><figcaption>");
  sb_escaped(b, caption);
  sb_puts(b, "</figcaption>\n<p class=\"absent\">Not in these documents: ");
  sb_escaped(b, what);
  sb_puts(b, "</p>\n</figure>\n");
}
