/* atomicfile.h: the one way pisa-char writes its files (documents, sweep
 * summaries, reports): a temporary file in the same directory, fsync and a
 * rename, so that readers never see a partial file; without `force` an
 * existing file is never replaced, not even one created meanwhile, and a
 * target that is not a regular file (/dev/null, a FIFO) is never replaced:
 * a character device or FIFO is written in place, anything else refused. */
#ifndef PISA_CLI_ATOMICFILE_H
#define PISA_CLI_ATOMICFILE_H

#include <stddef.h>

enum pisa_write_status {
  PISA_WRITE_OK = 0,
  PISA_WRITE_ERROR = -1,  /* nothing written; `err` says why */
  PISA_WRITE_EXISTS = -2, /* the target exists (no force) */
};

/* What to do with the data when the target exists and `force` is not set,
 * and how the messages put it (today's two wordings; issue 16 unifies). */
enum pisa_write_kind {
  /* costly to make again (documents): left in the temporary file, which
   * the message names ("PATH already exists; the document was left in
   * TMP"); "cannot create files in DIR" */
  PISA_WRITE_KEEP,
  /* cheap to make again (a report): removed ("cannot write PATH: File
   * exists (use --force to replace it)"); "cannot create a file in DIR" */
  PISA_WRITE_DROP,
};

/* Writes `len` bytes of `data` to `path`, with the permissions a plain
 * creat(0666) would give; with `force`, an existing character device or
 * FIFO is opened and written in place instead. On failure a one-line
 * reason in `err`. */
enum pisa_write_status pisa_write_atomic(const char *path, const char *data,
                                         size_t len, int force,
                                         enum pisa_write_kind kind, char *err,
                                         size_t n);

/* Whether `path` can be written: an existing character device or FIFO is
 * written in place, anything else needs a file created in the directory
 * that would hold `path` (tested by creating and removing a temporary
 * file); 0 if so, else -1 and `err`. */
int pisa_check_writable_dir(const char *path, char *err, size_t n);

/* Checks, before any work starts, that `path` can take an output: not
 * empty, not a directory, socket or block device, and not the same file as
 * one of the `ninputs` `inputs` (an input that does not exist is skipped;
 * the message says "PATH is <inputs_are>; choose another -o"). Whether an
 * existing `path` may be replaced (--force) and whether its directory is
 * writable are the caller's questions. 0, or -1 and `err`. */
int pisa_check_output(const char *path, char *const *inputs, size_t ninputs,
                      const char *inputs_are, char *err, size_t n);

#endif
