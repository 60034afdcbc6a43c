/* cmd_compare.c: `pisa-char compare`, workload similarity in the MICA
 * tradition: a vector of metrics per application, z-scores, principal
 * components (GSL), k-means clusters and the most similar pairs. */
#include "cmdline.h"
#include "commands.h"
#include "compare.h"
#include "docset.h"
#include "numbers.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: pisa-char compare [--clusters K] [--pairs N] FILE|DIR...\n"
    "\n"
    "Compares applications (the totals of two or more documents) by a vector\n"
    "of metrics (listed in docs/ranking.md): turns each metric into z-scores\n"
    "over the set, prints the principal components with the variance they\n"
    "explain, each application's first two components, a k-means clustering\n"
    "and the most similar pairs (Euclidean distance of the z-scores). A\n"
    "metric that some document lacks is left out, and the output says so.\n"
    "DIR means every *.json file in it.\n"
    "\n"
    "  --clusters K  number of clusters (default 3, at most the documents)\n"
    "  --pairs N     most similar pairs to print (default 5)\n"
    "  -h, --help    show this help\n"
    "\n"
    "Exit status: 0 on success, 1 if the computation fails, 2 on bad usage\n"
    "or an unreadable, malformed or invalid document.\n";

/* ---- The command -------------------------------------------------------- */

/* Prints one item of a comma-separated list wrapped at 96 columns;
 * returns the new column. */
static size_t print_listed(size_t col, size_t index, const char *name,
                           const char *note) {
  size_t len = strlen(name) + strlen(note) + 2;
  if (col + len > 96) {
    printf("%s\n   ", index ? "," : "");
    col = 3;
  } else if (index) {
    putchar(',');
    col++;
  }
  return col + (size_t)printf(" %s%s", name, note);
}

/* Prints which features were left out and why, and which were used. */
static void print_features(const struct comparison *c) {
  size_t col = printf("features left out:"), out = 0;
  for (size_t f = 0; f < c->all; f++)
    if (c->use[f] != COMPARE_USED)
      col = print_listed(col, out++, c->all_names[f],
                         c->use[f] == COMPARE_CONSTANT
                             ? " (the same everywhere)"
                             : " (absent from some documents)");
  col = printf("%s\nfeatures used:", out ? "" : " none") - 1;
  for (size_t f = 0; f < c->d; f++)
    col = print_listed(col, f, c->names[f], "");
  printf("%s\n", c->d ? "" : " none");
}

static void print_components(const struct comparison *c) {
  double total = 0, cumulative = 0;
  for (size_t k = 0; k < c->d; k++)
    total += c->values[k];
  printf("\nprincipal components of the z-scores (variance explained)\n");
  for (size_t k = 0; k < c->d && k < 5 && k + 1 < c->n && total > 0; k++) {
    cumulative += c->values[k];
    printf("  PC%zu %5.1f%% (cum. %5.1f%%), top loadings:", k + 1,
           100 * c->values[k] / total, 100 * cumulative / total);
    int used[COMPARE_MAX_FEATURES] = {0};
    for (int t = 0; t < 3 && t < (int)c->d; t++) {
      size_t best = 0;
      while (used[best])
        best++;
      for (size_t j = best + 1; j < c->d; j++)
        if (!used[j] &&
            fabs(c->vectors[j * c->d + k]) > fabs(c->vectors[best * c->d + k]))
          best = j;
      used[best] = 1;
      printf(" %s %+.2f", c->names[best], c->vectors[best * c->d + k]);
    }
    putchar('\n');
  }
}

static void print_applications(const struct comparison *c,
                               const struct pisa_docset *set) {
  size_t regions = docset_regions_of_record(set);
  if (regions)
    printf("\n%zu of %zu applications are measured over their region of "
           "interest, not the\nwhole run (show names it).\n",
           regions, c->n);
  printf("\n%-32s %7s %8s %8s\n", "application", "cluster", "PC1", "PC2");
  for (size_t i = 0; i < c->n; i++)
    printf("%-32.32s %7zu %8.3f %8.3f\n", set->docs[i].label, c->cluster[i] + 1,
           compare_component_score(c, i, 0), compare_component_score(c, i, 1));
  printf("\nclusters (k-means on the z-scores, %zu)\n", c->clusters);
  for (size_t k = 0; k < c->clusters; k++) {
    printf("  %zu:", k + 1);
    for (size_t i = 0; i < c->n; i++)
      if (c->cluster[i] == k)
        printf(" %s", set->docs[i].label);
    putchar('\n');
  }
}

struct pair {
  size_t a, b;
  double distance;
};

static int by_distance(const void *x, const void *y) {
  const struct pair *p = x, *q = y;
  if (p->distance != q->distance)
    return p->distance < q->distance ? -1 : 1;
  return p->a != q->a ? (p->a < q->a ? -1 : 1) : (p->b < q->b ? -1 : 1);
}

static void print_pairs(const struct comparison *c,
                        const struct pisa_docset *set, long max_pairs) {
  size_t n = c->n * (c->n - 1) / 2, p = 0;
  struct pair *pairs = xcalloc(n, sizeof *pairs);
  for (size_t a = 0; a < c->n; a++)
    for (size_t b = a + 1; b < c->n; b++)
      pairs[p++] = (struct pair){a, b, compare_distance(c, a, b)};
  qsort(pairs, n, sizeof *pairs, by_distance);
  printf("\nmost similar pairs (Euclidean distance of the z-scores)\n");
  for (size_t i = 0; i < n && i < (size_t)max_pairs; i++)
    printf("  %8.3f  %s  %s\n", pairs[i].distance, set->docs[pairs[i].a].label,
           set->docs[pairs[i].b].label);
  free(pairs);
}

static int compare_documents(const struct pisa_docset *set, long clusters,
                             long max_pairs) {
  struct comparison c;
  int status = compare_build(set, (size_t)clusters, &c);
  print_features(&c);
  if (status) {
    error("compare: the eigen decomposition failed");
  } else {
    print_components(&c);
    print_applications(&c, set);
    print_pairs(&c, set, max_pairs);
  }
  compare_free(&c);
  return status ? 1 : 0;
}

static const struct option CompareOptions[] = {
    {"clusters", required_argument, NULL, 'k'},
    {"pairs", required_argument, NULL, 'p'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

const struct command_line compare_line = {
    .name = "compare",
    .usage = usage_text,
    .short_options = ":h",
    .options = CompareOptions,
};

struct options {
  long clusters, pairs;
};

static int take_option(int opt, char *arg, void *ctx) {
  struct options *o = ctx;
  if (opt == 'k' && parse_long(arg, 1, 1000000, &o->clusters))
    return usage_error(&compare_line, "--clusters wants a count >= 1, not '%s'",
                       arg);
  if (opt == 'p' && parse_long(arg, 0, 1000000000, &o->pairs))
    return usage_error(&compare_line, "--pairs wants a count >= 0, not '%s'",
                       arg);
  return 0;
}

int cmd_compare(int argc, char **argv) {
  struct options o = {.clusters = 3, .pairs = 5};
  int status = cmdline_parse(&compare_line, argc, argv, take_option, &o);
  if (status != CMDLINE_PARSED)
    return status;
  if (optind >= argc)
    return usage_error(&compare_line, "no FILE or DIR to compare");
  struct pisa_docset set;
  if (docset_load(&set, argv + optind, argc - optind))
    return 2;
  status = 2;
  if (set.count < 2)
    usage_error(&compare_line, "needs at least two documents, got %zu",
                set.count);
  else
    status = compare_documents(&set, o.clusters, o.pairs);
  docset_free(&set);
  return status;
}
