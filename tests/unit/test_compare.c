/* test_compare.c: the numerics of `pisa-char compare` (cli/lib/compare.h):
 * z-scores, principal components of a 3x2 matrix worked out by hand, and
 * the deterministic k-means. */
#include "check.h"
#include "compare.h"

#include <math.h>

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static void test_standardise(void) {
  /* Column 0: 1, 2, 3: mean 2, sample sd 1. Column 1 constant. */
  double x[] = {1, 5, 2, 5, 3, 5};
  int constant[2];
  compare_standardise(x, 3, 2, constant);
  EXPECT(NEAR(x[0], -1) && NEAR(x[2], 0) && NEAR(x[4], 1));
  EXPECT(x[1] == 0 && x[3] == 0 && x[5] == 0);
  EXPECT(!constant[0] && constant[1]);
}

static void test_pca_by_hand(void) {
  /* Rows (2, 0), (0, 1), (-2, -1): mean 0; sample covariance
   * [[8/2, 2/2], [2/2, 2/2]] = [[4, 1], [1, 1]]. Eigenvalues
   * (5 +- sqrt(13)) / 2; eigenvector of l: (l - 1, 1), normalised. */
  double x[] = {2, 0, 0, 1, -2, -1}, values[2], vectors[4];
  EXPECT(compare_pca(x, 3, 2, values, vectors) == 0);
  double l1 = (5 + sqrt(13)) / 2, l2 = (5 - sqrt(13)) / 2;
  EXPECT(NEAR(values[0], l1) && NEAR(values[1], l2));
  double n1 = hypot(l1 - 1, 1), n2 = hypot(l2 - 1, 1);
  /* Component 1: (l1 - 1, 1) / n1, larger entry first, positive. */
  EXPECT(NEAR(vectors[0 * 2 + 0], (l1 - 1) / n1));
  EXPECT(NEAR(vectors[1 * 2 + 0], 1 / n1));
  /* Component 2: (l2 - 1, 1) / n2; its larger entry (1) is positive. */
  EXPECT(NEAR(vectors[0 * 2 + 1], (l2 - 1) / n2));
  EXPECT(NEAR(vectors[1 * 2 + 1], 1 / n2));
  /* The share of variance of PC1: l1 / (l1 + l2) = l1 / 5. */
  EXPECT(NEAR(values[0] / (values[0] + values[1]), l1 / 5));
}

static void test_kmeans(void) {
  /* Two groups on a line; start row 0, then the farthest (row 3). */
  double x[] = {0, 10, 0.1, 10.1, 0.2};
  size_t assign[5];
  EXPECT_EQ(compare_kmeans(x, 5, 1, 2, assign), 2);
  EXPECT(assign[0] == 0 && assign[2] == 0 && assign[4] == 0);
  EXPECT(assign[1] == 1 && assign[3] == 1);
  /* Identical rows make one cluster whatever K asks. */
  double same[] = {1, 2, 1, 2, 1, 2};
  EXPECT_EQ(compare_kmeans(same, 3, 2, 3, assign), 1);
  EXPECT(assign[0] == 0 && assign[1] == 0 && assign[2] == 0);
  /* K = 1 puts everything together. */
  EXPECT_EQ(compare_kmeans(x, 5, 1, 1, assign), 1);
}

int main(void) {
  RUN(test_standardise);
  RUN(test_pca_by_hand);
  RUN(test_kmeans);
  return check_summary();
}
