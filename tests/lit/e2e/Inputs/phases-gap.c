/* phases-gap.c: a stream, a long stretch without memory accesses (whole
 * record buffers of block words only), and the stream again, for
 * phases.test: every consumer group must count the stretch's instructions
 * for the intervals to stay aligned. */
#define N (1L << 16)

static double a[N];
volatile long sink;

__attribute__((noinline)) static double sum(void) {
  double s = 0;
  for (long i = 0; i < N; i++)
    s += a[i];
  return s;
}

__attribute__((noinline)) static long spin(long n) {
  long x = 1;
  for (long i = 0; i < n; i++)
    x = x * 3 + i;
  return x;
}

int main(void) {
  a[1] = 1;
  double s = sum();
  sink = spin(4000000);
  s += sum();
  return s == 2 ? 0 : 1;
}
