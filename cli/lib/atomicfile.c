/* atomicfile.c: atomic, no-clobber file writing (temporary file, fsync,
 * renameat2(RENAME_NOREPLACE) or link), in-place writing of devices and
 * FIFOs, and the checks of an output before work starts. */
#include "atomicfile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dir_of(const char *path) {
  char *copy = xstrdup(path);
  char *dir = xstrdup(dirname(copy));
  free(copy);
  return dir;
}

static char *base_of(const char *path) {
  char *copy = xstrdup(path);
  char *base = xstrdup(basename(copy));
  free(copy);
  return base;
}

/* What an output path names: nothing or a regular file (replaced by a
 * rename), a character device or FIFO (written in place), or something
 * else that is never written (a directory, socket or block device). */
enum target { TARGET_FILE, TARGET_IN_PLACE, TARGET_OTHER };

static enum target target_of(const char *path, struct stat *st) {
  if (stat(path, st) != 0 || S_ISREG(st->st_mode))
    return TARGET_FILE;
  return S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode) ? TARGET_IN_PLACE
                                                       : TARGET_OTHER;
}

int pisa_check_writable_dir(const char *path, char *err, size_t n) {
  struct stat st;
  if (target_of(path, &st) == TARGET_IN_PLACE)
    return 0;
  char *dir = dir_of(path);
  char *probe = xasprintf("%s/.pisa-char-probe.XXXXXX", dir);
  int fd = mkstemp(probe);
  int status = 0;
  if (fd < 0) {
    snprintf(err, n, "cannot create files in %s: %s", dir, strerror(errno));
    status = -1;
  } else {
    close(fd);
    unlink(probe);
  }
  free(probe);
  free(dir);
  return status;
}

static int write_all(int fd, const char *s, size_t len) {
  while (len > 0) {
    ssize_t w = write(fd, s, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0)
      return -1;
    s += w;
    len -= (size_t)w;
  }
  return 0;
}

/* Writes the data to `fd`, makes it durable and gives it the permissions a
 * plain creat() would have; closes `fd`. */
static int fill(int fd, const char *data, size_t len) {
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0 || write_all(fd, data, len) != 0 ||
      fsync(fd) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return close(fd);
}

/* Makes a finished rename durable; failure only weakens crash safety. */
static void sync_dir(const char *path) {
  char *dir = dir_of(path);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
  free(dir);
}

/* Moves the finished temporary file onto `path`, never replacing an
 * existing file unless `force`. */
static enum pisa_write_status install(const char *tmp, const char *path,
                                      int force) {
  if (force)
    return rename(tmp, path) == 0 ? PISA_WRITE_OK : PISA_WRITE_ERROR;
  if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
    return PISA_WRITE_OK;
  if (errno == EINVAL || errno == ENOSYS) { /* file system without NOREPLACE */
    if (link(tmp, path) == 0) {
      unlink(tmp);
      return PISA_WRITE_OK;
    }
  }
  return errno == EEXIST ? PISA_WRITE_EXISTS : PISA_WRITE_ERROR;
}

/* The message of an existing target, and whether the data stays. */
static int report_exists(enum pisa_write_kind kind, const char *path,
                         const char *tmp, char *err, size_t n) {
  if (kind == PISA_WRITE_KEEP) {
    snprintf(err, n, "%s already exists; the document was left in %s", path,
             tmp);
    return 1;
  }
  snprintf(err, n, "cannot write %s: %s (use --force to replace it)", path,
           strerror(EEXIST));
  return 0;
}

/* Writes into an existing device or FIFO; a reader of the FIFO that goes
 * away is an error (EPIPE), not the death of pisa-char by SIGPIPE. */
static enum pisa_write_status write_in_place(const char *path, const char *data,
                                             size_t len, char *err, size_t n) {
  struct sigaction ignore = {.sa_handler = SIG_IGN}, old;
  sigaction(SIGPIPE, &ignore, &old);
  int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
  int failed = fd < 0 || write_all(fd, data, len) != 0;
  int saved = errno;
  if (fd >= 0 && close(fd) != 0 && !failed)
    failed = 1, saved = errno;
  sigaction(SIGPIPE, &old, NULL);
  if (!failed)
    return PISA_WRITE_OK;
  snprintf(err, n, "cannot write %s: %s", path, strerror(saved));
  return PISA_WRITE_ERROR;
}

enum pisa_write_status pisa_write_atomic(const char *path, const char *data,
                                         size_t len, int force,
                                         enum pisa_write_kind kind, char *err,
                                         size_t n) {
  struct stat st;
  enum target target = target_of(path, &st);
  if (force && target == TARGET_IN_PLACE)
    return write_in_place(path, data, len, err, n);
  if (target == TARGET_OTHER) /* never replaced: treated as without force */
    force = 0;
  char *dir = dir_of(path), *base = base_of(path);
  char *tmp = xasprintf("%s/.%s.XXXXXX", dir, base);
  enum pisa_write_status status = PISA_WRITE_ERROR;
  int fd = mkstemp(tmp), keep = 0;
  if (fd < 0)
    snprintf(err, n, "cannot create %s in %s: %s",
             kind == PISA_WRITE_KEEP ? "files" : "a file", dir,
             strerror(errno));
  else if (fill(fd, data, len) != 0)
    snprintf(err, n, "cannot write %s: %s", tmp, strerror(errno));
  else if ((status = install(tmp, path, force)) == PISA_WRITE_EXISTS)
    keep = report_exists(kind, path, tmp, err, n);
  else if (status == PISA_WRITE_ERROR)
    snprintf(err, n, "cannot write %s: %s", path, strerror(errno));
  if (status == PISA_WRITE_OK)
    sync_dir(path);
  else if (fd >= 0 && !keep)
    unlink(tmp);
  free(tmp);
  free(base);
  free(dir);
  return status;
}

static int same_file(const struct stat *a, const char *path) {
  struct stat b;
  return stat(path, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

int pisa_check_output(const char *path, char *const *inputs, size_t ninputs,
                      const char *inputs_are, char *err, size_t n) {
  struct stat st;
  if (!*path) {
    snprintf(err, n, "empty output file name");
    return -1;
  }
  enum target target = target_of(path, &st);
  if (target == TARGET_OTHER) {
    snprintf(err, n, "%s is a %s; use -o to choose an output file", path,
             S_ISDIR(st.st_mode) ? "directory" : "socket or block device");
    return -1;
  }
  for (size_t i = 0; target == TARGET_FILE && i < ninputs; i++)
    if (stat(path, &st) == 0 && same_file(&st, inputs[i])) {
      snprintf(err, n, "%s is %s; choose another -o", path, inputs_are);
      return -1;
    }
  return 0;
}
