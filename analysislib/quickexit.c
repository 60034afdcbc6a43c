/* quickexit.c: _exit, _Exit and daemon, wrapped in the shared runtime only, so
 * that a process that ends without its exit handlers (a forked child, the
 * parent in daemon()) still leaves its result, marked incomplete (lifecycle.c).
 * The process then ends as the real _exit ends it: exit_group. */
#include "lifecycle.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((visibility("default"), noreturn)) void _exit(int status) {
  pisa_before_quick_exit(status);
  for (;;)
    syscall(SYS_exit_group, status);
}

__attribute__((visibility("default"), noreturn)) void _Exit(int status) {
  _exit(status);
}

/* daemon(3), as glibc does it, but with the parent leaving through the
 * wrapped _exit (glibc's own daemon calls its internal one). */
__attribute__((visibility("default"))) int daemon(int nochdir, int noclose) {
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid > 0)
    _exit(0);
  if (setsid() < 0)
    return -1;
  if (!nochdir && chdir("/") != 0)
    return -1;
  if (noclose)
    return 0;
  int fd = open("/dev/null", O_RDWR);
  if (fd < 0)
    return -1;
  dup2(fd, STDIN_FILENO);
  dup2(fd, STDOUT_FILENO);
  dup2(fd, STDERR_FILENO);
  if (fd > STDERR_FILENO)
    close(fd);
  return 0;
}
