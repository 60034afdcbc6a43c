// exec (issue 5): the runtime writes the image's result before an exec
// replaces it.  Exec of an uninstrumented program: the document is the
// pre-exec image's (fill once: 100 stores) with the new program's exit
// status.  Exec of an instrumented program (itself): the process's result
// covers both images (issue 15, item 9: the counts before the exec are
// kept): once before, three times after: 400 stores.  A failed exec: the
// program goes on and its result is written again at exit (fill once before
// and twice after: 300).  Loops and lines of the images merge the same way
// (fill's loop, line 31: 100 iterations a call; line 32: 100 stores a call).
// RUN: %pisa-cc -O1 -g -fno-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force -o %t.echo.json %t echo | FileCheck --check-prefix=ECHO %s
// ECHO: replaced
// RUN: %jcheck %t.echo.json "d['complete'] is True" \
// RUN:   "fn('fill')['memory_accesses']['stores'] == 100" \
// RUN:   "d['program']['exit_status'] == 0" "loop(31)['iterations'] == 100"
// RUN: %pisa-char -q --force -o %t.self.json %t self
// RUN: %jcheck %t.self.json "fn('fill')['memory_accesses']['stores'] == 400" \
// RUN:   "d['totals']['memory_accesses']['stores'] == 400" "len(d['threads']) == 1" \
// RUN:   "loop(31)['iterations'] == 400 and line(32)['stores'] == 400" \
// RUN:   "len(d['loops']) == len(load('%t.echo.json')['loops'])"
// RUN: %pisa-char -q --force -o %t.fail.json %t fail
// RUN: %jcheck %t.fail.json "fn('fill')['memory_accesses']['stores'] == 300" \
// RUN:   "loop(31)['iterations'] == 300"
// RUN: %validate %t.echo.json %t.self.json %t.fail.json
#include <string.h>
#include <unistd.h>

static int data[100];

__attribute__((noinline)) void fill(int *x) {
  for (int i = 0; i < 100; i++)
    x[i] = 1;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  fill(data);
  if (!strcmp(mode, "echo"))
    execl("/bin/echo", "echo", "replaced", (char *)NULL);
  if (!strcmp(mode, "self"))
    execl("/proc/self/exe", argv[0], "after", (char *)NULL);
  if (!strcmp(mode, "fail"))
    execl("/nonexistent/program", "program", (char *)NULL);
  if (!strcmp(mode, "after") || !strcmp(mode, "fail")) {
    fill(data);
    fill(data);
  }
  return 0;
}

// Data objects of the images merge too (--objects; docs/result-document.md
// "Merged objects"): the global `data` gets 100 stores before the exec and
// 300 after, one object of 400 stores whose footprint is both images' (the
// address spaces are disjoint): twice the first image's alone (the echo
// run); one `unknown`, and at most one stack (thread 0 of both images).
// RUN: %pisa-char -q --force --objects -o %t.objs-echo.json %t echo > /dev/null
// RUN: %pisa-char -q --force --objects -o %t.objs.json %t self
// RUN: %validate %t.objs.json
// RUN: %jcheck %t.objs.json "[o['stores'] for o in kind('global') if o['name'] == 'data'] == [400]" \
// RUN:   "[o['footprint_bytes'] for o in kind('global') if o['name'] == 'data'] == [2 * o['footprint_bytes'] for o in load('%t.objs-echo.json')['objects'] if o['name'] == 'data']" \
// RUN:   "len(kind('unknown')) == 1 and len(kind('stack')) <= 1"
