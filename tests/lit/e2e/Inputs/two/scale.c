/* scale.c: the other half of the two-file program. */
void scale(double *x, int n, double f) {
  for (int i = 0; i < n; i++)
    x[i] *= f;
}
double total(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}
