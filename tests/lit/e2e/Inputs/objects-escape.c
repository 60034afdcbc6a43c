/* objects-escape.c: report-objects.test compiles it under a file name with
 * &, <, > and quotes; `counter` is a global declared in it (line 3). */
int counter[64];

int main(void) {
  for (int i = 0; i < 64; i++)
    counter[i] = i;
  return counter[7] - 7;
}
