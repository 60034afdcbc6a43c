/* dlclose-threads.c: counter mode's dlclose (issue 15, item 3): the main
 * thread and a thread still alive at the unload call the instrumented
 * library vec.c, the library is unloaded, then that thread and a thread
 * started after the unload fill the program's own arrays. */
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static int own[300], later[200];
static int x[500], y[100];
static void (*fill)(int *, int, int);
static sem_t filled, unloaded;

__attribute__((noinline)) static void own_fill(int *v, int n) {
  for (int i = 0; i < n; i++)
    v[i] = i;
}

/* Alive across the dlclose: 100 stores in the library before, 300 of its
 * own after. */
static void *alive(void *arg) {
  (void)arg;
  fill(y, 100, 3);
  sem_post(&filled);
  sem_wait(&unloaded);
  own_fill(own, 300);
  return NULL;
}

/* Started after the dlclose: 200 stores of its own. */
static void *started_later(void *arg) {
  (void)arg;
  own_fill(later, 200);
  return NULL;
}

int main(int argc, char **argv) {
  void *lib = dlopen(argc > 1 ? argv[1] : "./libvec.so", RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  fill = (void (*)(int *, int, int))dlsym(lib, "vec_fill");
  sem_init(&filled, 0, 0);
  sem_init(&unloaded, 0, 0);
  pthread_t a, b;
  pthread_create(&a, NULL, alive, NULL);
  fill(x, 500, 7);
  fill(x, 250, 8);
  sem_wait(&filled);
  printf("x[0]=%d x[499]=%d y[99]=%d\n", x[0], x[499], y[99]);
  if (dlclose(lib) != 0)
    return 2;
  sem_post(&unloaded);
  pthread_create(&b, NULL, started_later, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("unloaded, own[299]=%d later[199]=%d\n", own[299], later[199]);
  return 0;
}
