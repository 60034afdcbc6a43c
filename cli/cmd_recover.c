/* cmd_recover.c: `pisa-char recover DIR`: writes the documents of a run
 * whose documents could not be written (a full disk): `run` then keeps the
 * raw results and a description of the run in DIR, and says so. */
#include "cmdline.h"
#include "commands.h"
#include "runresults.h"
#include "util.h"

static const char usage_text[] =
    "usage: pisa-char recover [options] DIR\n"
    "\n"
    "Writes the documents of a run whose documents could not be written:\n"
    "no room on the disk ('pisa-char run' then kept the raw results in DIR\n"
    "and named it), or pisa-char itself was killed while the program ran\n"
    "(DIR holds its last snapshots, unless PISA_SNAPSHOT_INTERVAL=off). The\n"
    "documents go where the run would have written them, replacing any\n"
    "written before; DIR is removed when every one was written.\n"
    "\n"
    "Options:\n"
    "  -q, --quiet   print no summary\n"
    "  -h, --help    show this help\n"
    "\n"
    "Exit status: 0 when every document was written, 1 when one could not\n"
    "be (DIR is kept), 2 for bad usage or a DIR that is not a kept run.\n";

static const struct option RecoverOptions[] = {
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

const struct command_line recover_line = {
    .name = "recover",
    .usage = usage_text,
    .short_options = ":qh",
    .options = RecoverOptions,
};

static int take_option(int opt, char *arg, void *ctx) {
  (void)opt;
  (void)arg;
  *(int *)ctx = 1; /* -q, the only option */
  return 0;
}

int cmd_recover(int argc, char **argv) {
  int quiet = 0;
  int status = cmdline_parse(&recover_line, argc, argv, take_option, &quiet);
  if (status != CMDLINE_PARSED)
    return status;
  if (optind + 1 != argc)
    return usage_error(&recover_line, "expected one directory");
  struct run_results r;
  if (run_results_load(argv[optind], &r) != 0)
    return 2;
  r.quiet = quiet;
  status = run_results_write(&r);
  if (r.unwritten) {
    run_results_keep(&r);
    return 1;
  }
  run_results_dir_remove(argv[optind]);
  return status == RUN_FAILED ? 1 : 0;
}
