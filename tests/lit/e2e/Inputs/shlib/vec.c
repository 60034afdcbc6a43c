/* vec.c: a user's shared library built with pisa-cc. */
void vec_fill(int *x, int n, int v) {
  for (int i = 0; i < n; i++)
    x[i] = v;
}
