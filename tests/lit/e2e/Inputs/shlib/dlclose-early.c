/* dlclose-early.c: counter mode's dlclose with a thread that entered
 * instrumented code before the library was loaded (issue 15): it fills
 * 50 ints of its own, waits for the main thread's dlopen, calls the
 * library's vec_fill for 100 ints, and the main thread unloads the
 * library while that thread is still alive, then lets it fill 30 more. */
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static int own[50], more[30], y[100];
static void (*fill)(int *, int, int);
static sem_t started, loaded, filled, unloaded;

__attribute__((noinline)) static void own_fill(int *v, int n) {
  for (int i = 0; i < n; i++)
    v[i] = i;
}

static void *early(void *arg) {
  (void)arg;
  own_fill(own, 50);
  sem_post(&started);
  sem_wait(&loaded);
  fill(y, 100, 3);
  sem_post(&filled);
  sem_wait(&unloaded);
  own_fill(more, 30);
  return NULL;
}

int main(int argc, char **argv) {
  sem_init(&started, 0, 0);
  sem_init(&loaded, 0, 0);
  sem_init(&filled, 0, 0);
  sem_init(&unloaded, 0, 0);
  pthread_t t;
  pthread_create(&t, NULL, early, NULL);
  sem_wait(&started);
  void *lib = dlopen(argc > 1 ? argv[1] : "./libvec.so", RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  fill = (void (*)(int *, int, int))dlsym(lib, "vec_fill");
  sem_post(&loaded);
  sem_wait(&filled);
  if (dlclose(lib) != 0)
    return 2;
  sem_post(&unloaded);
  pthread_join(t, NULL);
  printf("y[99]=%d own[49]=%d more[29]=%d\n", y[99], own[49], more[29]);
  return 0;
}
