/* omp_driver.c: the OpenMP loops of threads-omp.test, compiled WITHOUT
 * pisa-cc, so the threads' instrumented instructions are exactly those of
 * the kernel's callbacks and do not depend on how the loop is split. */
void omp_for_each(long n, void (*body)(long)) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++)
    body(i);
}

/* The checksum, read here so that no instrumented thread reads y. */
double omp_sum(const double *v, long n) {
  double s = 0;
  for (long i = 0; i < n; i++)
    s += v[i];
  return s;
}
