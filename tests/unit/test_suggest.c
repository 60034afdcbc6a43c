/* test_suggest.c: "did you mean" (cli/lib/suggest.h) against distances
 * worked out by hand and a brute-force reference (the distance is the
 * fewest single edits, found by a breadth-first search over strings), and
 * help texts turned into roff (cli/lib/manpage.h). */
#include "check.h"
#include "manpage.h"
#include "suggest.h"

#include <stdlib.h>
#include <string.h>

static void test_distance_by_hand(void) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3); /* k/s, e/i, +g */
  EXPECT_EQ(edit_distance("show", "shwo"), 1);      /* one transposition */
  EXPECT_EQ(edit_distance("", "abc"), 3);
  EXPECT_EQ(edit_distance("abc", ""), 3);
  EXPECT_EQ(edit_distance("reuse", "reuse"), 0);
  /* ca -> ac (transposition) -> abc (insertion): edits may touch a
   * transposed pair again (optimal string alignment would say 3). */
  EXPECT_EQ(edit_distance("ca", "abc"), 2);
}

/* All strings one edit away from s over the alphabet: deletions,
 * insertions, substitutions, adjacent transpositions. */
static size_t neighbours(const char *s, const char *alphabet, char out[][8]) {
  size_t n = strlen(s), k = 0, a = strlen(alphabet);
  for (size_t i = 0; i < n; i++) {
    memcpy(out[k], s, i);
    strcpy(out[k++] + i, s + i + 1);
  }
  for (size_t i = 0; i <= n && n < 6; i++)
    for (size_t c = 0; c < a; c++) {
      memcpy(out[k], s, i);
      out[k][i] = alphabet[c];
      strcpy(out[k++] + i + 1, s + i);
    }
  for (size_t i = 0; i < n; i++)
    for (size_t c = 0; c < a; c++) {
      strcpy(out[k], s);
      out[k++][i] = alphabet[c];
    }
  for (size_t i = 0; i + 1 < n; i++) {
    strcpy(out[k], s);
    out[k][i] = s[i + 1];
    out[k++][i + 1] = s[i];
  }
  return k;
}

/* The fewest edits from a to b when it is at most 2, else 3. */
static size_t brute_distance(const char *a, const char *b, const char *alpha) {
  static char one[64][8], two[64][8];
  if (!strcmp(a, b))
    return 0;
  size_t n1 = neighbours(a, alpha, one);
  for (size_t i = 0; i < n1; i++)
    if (!strcmp(one[i], b))
      return 1;
  for (size_t i = 0; i < n1; i++) {
    size_t n2 = neighbours(one[i], alpha, two);
    for (size_t j = 0; j < n2; j++)
      if (!strcmp(two[j], b))
        return 2;
  }
  return 3;
}

static void random_word(char *w, size_t max_len, const char *alpha) {
  size_t len = test_rng() % (max_len + 1);
  for (size_t i = 0; i < len; i++)
    w[i] = alpha[test_rng() % strlen(alpha)];
  w[len] = '\0';
}

/* Up to two edits the two agree exactly (beyond, the search stops): that
 * is all suggestions use. */
static void test_distance_brute_force(void) {
  const char *alpha = "abc";
  test_seed(16);
  for (int t = 0; t < 2000; t++) {
    char a[8], b[8];
    random_word(a, 4, alpha);
    random_word(b, 4, alpha);
    size_t d = edit_distance(a, b), want = brute_distance(a, b, alpha);
    EXPECT_EQ(d < 3 ? d : 3, want);
  }
}

static void test_suggest(void) {
  static const char *const names[] = {"footprint", "entropy", "reuse",
                                      "locality",  "ilp",     "bblp"};
  struct name_table t = NAME_TABLE(names);
  EXPECT(!strcmp(suggest_name("entrpy", t), "entropy"));
  EXPECT(!strcmp(suggest_name("reus", t), "reuse"));
  EXPECT(!strcmp(suggest_name("bblpp", t), "bblp"));
  EXPECT(suggest_name("foo", t) == NULL);   /* 3 edits from ilp */
  EXPECT(suggest_name("reuse", t) == NULL); /* not a typo */
  EXPECT(suggest_name("ipl", t) && !strcmp(suggest_name("ipl", t), "ilp"));
  EXPECT(suggest_name("xyzzy", t) == NULL);
  char *list = join_names(t, " or ");
  EXPECT(!strcmp(list, "footprint, entropy, reuse, locality, ilp or bblp"));
  free(list);
}

static void test_man_page(void) {
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  man_help_text(f, "usage: tool [-x] FILE\n"
                   "       tool help\n"
                   "\n"
                   "Does things.\n"
                   "\n"
                   "  -x, --extra N  an option\n"
                   "                 continued\n"
                   "      --long-option-name\n"
                   "                 its text \\ here\n");
  fclose(f);
  EXPECT(!strcmp(out, ".nf\n"
                      "tool [\\-x] FILE\n"
                      "tool help\n"
                      ".fi\n"
                      ".PP\n"
                      "Does things.\n"
                      ".PP\n"
                      ".TP\n"
                      "\\fB\\-x, \\-\\-extra N\\fR\n"
                      "an option\n"
                      "continued\n"
                      ".TP\n"
                      "\\fB\\-\\-long\\-option\\-name\\fR\n"
                      "its text \\e here\n"));
  free(out);
}

int main(void) {
  RUN(test_distance_by_hand);
  RUN(test_distance_brute_force);
  RUN(test_suggest);
  RUN(test_man_page);
  return check_summary();
}
