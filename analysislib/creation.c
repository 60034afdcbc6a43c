/* creation.c: pthread_create, wrapped in the shared runtime only, so that
 * threads are numbered in the order they were created, whichever runs
 * first.  Not in the static archive (a fully static program has no
 * RTLD_NEXT to find the real one) nor in sanitizer builds (the sanitizers
 * intercept it themselves); threads are then numbered at their first
 * record. */
#include "threads.h"

#include <dlfcn.h>
#include <stdlib.h>

#if !defined(__has_feature)
#define __has_feature(x) 0
#endif

#if !__has_feature(thread_sanitizer) && !__has_feature(address_sanitizer)
struct start {
  void *(*fn)(void *);
  void *arg;
  uint32_t creation;
};

static void *start_thread(void *p) {
  struct start s = *(struct start *)p;
  free(p);
  pisa_thread_started(s.creation);
  return s.fn(s.arg);
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *,
                                 void *(*)(void *), void *);

__attribute__((visibility("default"))) int
pthread_create(pthread_t *thread, const pthread_attr_t *attr,
               void *(*fn)(void *), void *arg) {
  static pthread_create_fn real;
  if (!real)
    real = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
  if (!real)
    return EAGAIN;
  struct start *s = malloc(sizeof *s);
  if (!s)
    return real(thread, attr, fn, arg);
  *s = (struct start){fn, arg, pisa_new_creation_number()};
  /* The heap events of the creating thread reach the object map before the
   * new thread's first access (objects.c) */
  if (pisa_config.objects && pisa_thread_self())
    pisa_thread_drain_unless_busy(pisa_thread_self());
  int rc = real(thread, attr, start_thread, s);
  if (rc != 0)
    free(s);
  return rc;
}
#endif
