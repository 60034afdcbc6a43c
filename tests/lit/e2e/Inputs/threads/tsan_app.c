/* tsan_app.c: threads for threads-tsan.test: 40 short-lived threads one at
 * a time, then 8 at once, each filling its own row, some exiting early with
 * pthread_exit; main joins them all and reads every row. */
#include <pthread.h>
#include <stdio.h>

#define ROWS 48
#define COLS 2000

static int data[ROWS][COLS];

__attribute__((noinline)) void fill(int *x, int v) {
  for (int i = 0; i < COLS; i++)
    x[i] = v + i;
}

static void *worker(void *arg) {
  int *row = arg;
  fill(row, 1);
  if ((row - &data[0][0]) / COLS % 2)
    pthread_exit(NULL);
  fill(row, 2);
  return NULL;
}

int main(void) {
  pthread_t t[8];
  for (int i = 0; i < 40; i++) {
    pthread_create(&t[0], NULL, worker, data[i]);
    pthread_join(t[0], NULL);
  }
  for (int i = 0; i < 8; i++)
    pthread_create(&t[i], NULL, worker, data[40 + i]);
  for (int i = 0; i < 8; i++)
    pthread_join(t[i], NULL);
  long sum = 0;
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++)
      sum += data[i][j];
  printf("sum %ld\n", sum);
  return 0;
}
