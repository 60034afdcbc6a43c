/* manpage.c: help texts turned into roff: a synopsis, paragraphs and a
 * tagged paragraph (.TP) per option or command. */
#include "manpage.h"

#include <string.h>

/* Writes text [s, s+n) escaped for roff: backslashes, hyphens (so that
 * options stay copyable), and a leading dot or quote. */
static void put_escaped(FILE *f, const char *s, size_t n, int line_start) {
  for (size_t i = 0; i < n; i++) {
    if (i == 0 && line_start && (s[i] == '.' || s[i] == '\''))
      fputs("\\&", f);
    if (s[i] == '\\')
      fputs("\\e", f);
    else if (s[i] == '-')
      fputs("\\-", f);
    else
      fputc(s[i], f);
  }
}

void man_begin(FILE *f, const char *name, const char *version,
               const char *summary) {
  fprintf(f, ".TH %s 1 \"\" \"%s %s\" \"User Commands\"\n", name, name,
          version);
  man_section(f, "NAME", 0);
  put_escaped(f, name, strlen(name), 1);
  fputs(" \\- ", f);
  put_escaped(f, summary, strlen(summary), 0);
  fputc('\n', f);
}

void man_section(FILE *f, const char *title, int sub) {
  fprintf(f, "%s ", sub ? ".SS" : ".SH");
  put_escaped(f, title, strlen(title), 0);
  fputc('\n', f);
}

static size_t indent_of(const char *line) { return strspn(line, " "); }

/* The end of the term of an indented "TERM  text" line: where a gap of two
 * blanks starts, or the line's end. */
static const char *term_end(const char *line, const char *end) {
  const char *gap = line;
  while (gap + 1 < end && !(gap[0] == ' ' && gap[1] == ' '))
    gap++;
  return gap + 1 < end ? gap : end;
}

/* One line of a paragraph or tagged paragraph's text. */
static void put_text(FILE *f, const char *s, const char *end) {
  s += indent_of(s);
  if (s < end) {
    put_escaped(f, s, (size_t)(end - s), 1);
    fputc('\n', f);
  }
}

struct reader {
  const char *line, *end; /* the current line, without its newline */
  size_t term_indent;     /* of the last tagged paragraph, or 0 */
};

static int next_line(struct reader *r) {
  if (!*r->end)
    return 0;
  r->line = r->end + 1;
  r->end = r->line + strcspn(r->line, "\n");
  return *r->line != '\0';
}

/* "usage: A" and the aligned lines after it, as a no-fill block; whether
 * lines follow it. */
static int put_synopsis(FILE *f, struct reader *r) {
  int more;
  fputs(".nf\n", f);
  do {
    const char *s = r->line + (strncmp(r->line, "usage: ", 7) ? 0 : 7);
    s += indent_of(s);
    put_escaped(f, s, (size_t)(r->end - s), 1);
    fputc('\n', f);
  } while ((more = next_line(r)) && indent_of(r->line) >= 7 &&
           r->line < r->end);
  fputs(".fi\n", f);
  return more;
}

static void put_line(FILE *f, struct reader *r) {
  size_t indent = indent_of(r->line);
  if (r->line == r->end) {
    fputs(".PP\n", f);
    r->term_indent = 0;
  } else if (indent == 0 || (r->term_indent && indent > r->term_indent + 4)) {
    put_text(f, r->line, r->end); /* prose, or a term's text continued */
  } else {
    const char *term = r->line + indent, *gap = term_end(term, r->end);
    fputs(".TP\n\\fB", f);
    put_escaped(f, term, (size_t)(gap - term), 0);
    fputs("\\fR\n", f);
    put_text(f, gap, r->end);
    r->term_indent = indent;
  }
}

void man_help_text(FILE *f, const char *text) {
  struct reader r = {text, text + strcspn(text, "\n"), 0};
  if (!*text)
    return;
  if (!strncmp(text, "usage: ", 7) && !put_synopsis(f, &r))
    return;
  do
    put_line(f, &r);
  while (next_line(&r));
}
