/* exec.c: the exec family, wrapped so that the image's result is written
 * before an exec replaces it (exec runs no exit handlers).  A new image
 * that is instrumented too writes the process's result again at its exit,
 * replacing this one (docs/threads-mpi.md). */
#include "lifecycle.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#define PISA_EXPORT __attribute__((visibility("default")))

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execvp_fn)(const char *, char *const[]);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);

extern char **environ;

static void *real(const char *name) { return dlsym(RTLD_NEXT, name); }

/* Runs the real exec after writing the result; back here only when it
 * failed. */
#define AROUND_EXEC(call)                                                      \
  do {                                                                         \
    pisa_before_exec();                                                        \
    int rc_ = (call);                                                          \
    int errno_ = errno;                                                        \
    pisa_after_failed_exec();                                                  \
    errno = errno_;                                                            \
    return rc_;                                                                \
  } while (0)

PISA_EXPORT int execve(const char *path, char *const argv[],
                       char *const envp[]) {
  execve_fn fn = (execve_fn)real("execve");
  AROUND_EXEC(fn ? fn(path, argv, envp) : -1);
}

PISA_EXPORT int execv(const char *path, char *const argv[]) {
  execve_fn fn = (execve_fn)real("execve");
  AROUND_EXEC(fn ? fn(path, argv, environ) : -1);
}

PISA_EXPORT int execvp(const char *file, char *const argv[]) {
  execvp_fn fn = (execvp_fn)real("execvp");
  AROUND_EXEC(fn ? fn(file, argv) : -1);
}

PISA_EXPORT int execvpe(const char *file, char *const argv[],
                        char *const envp[]) {
  execvpe_fn fn = (execvpe_fn)real("execvpe");
  AROUND_EXEC(fn ? fn(file, argv, envp) : -1);
}

/* The variadic forms: the arguments up to the NULL, then (execle) envp. */
static char **collect_args(const char *first, va_list ap) {
  size_t n = 1, cap = 16;
  char **args = malloc(cap * sizeof *args);
  if (!args)
    return NULL;
  args[0] = (char *)first;
  for (char *a; first && (a = va_arg(ap, char *));) {
    if (n + 1 >= cap) {
      char **grown = realloc(args, (cap *= 2) * sizeof *args);
      if (!grown) {
        free(args);
        return NULL;
      }
      args = grown;
    }
    args[n++] = a;
  }
  args[n] = NULL;
  return args;
}

PISA_EXPORT int execl(const char *path, const char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  char **args = collect_args(arg, ap);
  va_end(ap);
  if (!args)
    return -1;
  int rc = execv(path, args);
  free(args);
  return rc;
}

PISA_EXPORT int execlp(const char *file, const char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  char **args = collect_args(arg, ap);
  va_end(ap);
  if (!args)
    return -1;
  int rc = execvp(file, args);
  free(args);
  return rc;
}

PISA_EXPORT int execle(const char *path, const char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  char **args = collect_args(arg, ap);
  char *const *envp = args ? va_arg(ap, char *const *) : NULL;
  va_end(ap);
  if (!args)
    return -1;
  int rc = execve(path, args, envp);
  free(args);
  return rc;
}
