/* fuzz_cmdline.c: command-line parsing. The input is a command line, one
 * argument per line: the commands that only read and write documents
 * (validate, show, rank, compare, report, merge, merge-sweep) run on it in
 * a private directory holding a valid document a.json; "settings" feeds
 * the rest as option/value pairs to the parsers of pisa-char run's
 * settings and the ranking model. An input with a '/' or ".." is left
 * unread: no file outside the directory is ever read or written. */
#include "commands.h"
#include "fuzz.h"
#include "rank.h"
#include "runsettings.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ARGS 16

static const char Document[] =
    "{\"schema\":\"pisa-char/"
    "1\",\"tool\":{\"name\":\"pisa-char\",\"version\":\"0.1.0\",\"llvm\":\"19."
    "1.7\"},\"program\":{\"path\":\"./"
    "app\",\"args\":[],\"exit_status\":0,\"signal\":null,\"wall_seconds\":0.25}"
    ",\"mode\":\"deep\",\"complete\":true,\"config\":{\"line_sizes\":[8,16]},"
    "\"totals\":{\"instructions\":10,\"instruction_mix\":{\"opcodes\":{"
    "\"load\":2,\"store\":1,\"add\":3,\"br\":3,\"ret\":1},\"categories\":{"
    "\"memory\":3,\"int\":3,\"fp\":0,\"bitwise\":0,\"conversion\":0,"
    "\"address\":0,\"control\":4,\"vector\":0,\"other\":0},\"phi\":1,\"bytes_"
    "loaded\":8,\"bytes_stored\":4,\"vector\":{\"instructions\":0,\"lanes\":{},"
    "\"bits\":{}}},\"memory_accesses\":{\"loads\":2,\"stores\":1,\"atomics\":0,"
    "\"memcpy\":0,\"memset\":0,\"gathers\":0,\"scatters\":0},\"footprint\":{"
    "\"bytes\":8,\"blocks\":{\"8\":1,\"16\":1}},\"external_calls\":{}},"
    "\"threads\":[],\"functions\":[]}";

static char dir[64];

static void remove_dir(void) {
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
        unlinkat(dirfd(d), e->d_name, 0) != 0)
      unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
  if (d)
    closedir(d);
  rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/pisa-fuzz-cmd.XXXXXX", tmp ? tmp : "/tmp");
  if (!mkdtemp(dir) || chdir(dir) != 0)
    abort();
  atexit(remove_dir);
  return 0;
}

/* The command line the settings' parsers report usage errors for. */
static const struct option NoOptions[] = {{NULL, 0, NULL, 0}};
static const struct command_line SettingsLine = {
    .name = "run",
    .usage = "usage: pisa-char run\n",
    .short_options = ":h",
    .options = NoOptions,
};

static void settings(int argc, char **argv) {
  struct run_settings s;
  struct rank_model model;
  uint64_t bytes;
  run_settings_init(&s);
  rank_model_init(&model);
  for (int i = 1; i + 1 < argc; i += 2) {
    int (*parse[])(const struct command_line *, const char *,
                   struct run_settings *) = {
        run_parse_mode,         run_parse_line_sizes,  run_parse_entropy_bits,
        run_parse_metrics,      run_parse_windows,     run_parse_hw_counters,
        run_parse_sample_every, run_parse_interval_ms, run_parse_mpi_ranks};
    size_t which = (unsigned char)argv[i][0] % 12;
    if (which < 9)
      parse[which](&SettingsLine, argv[i + 1], &s);
    else if (which < 11)
      rank_model_option(&SettingsLine, &model, which == 9 ? 'M' : 'l',
                        argv[i + 1]);
    else
      rank_parse_llc_bytes(argv[i + 1], &bytes);
  }
  run_check_mode(&SettingsLine, &s);
}

static const struct {
  const char *name;
  int (*run)(int, char **);
} Commands[] = {
    {"validate", cmd_validate},
    {"show", cmd_show},
    {"rank", cmd_rank},
    {"compare", cmd_compare},
    {"report", cmd_report},
    {"merge", cmd_merge},
    {"merge-sweep", cmd_merge_sweep},
};

static void run_input_line(int argc, char **argv) {
  if (!strcmp(argv[0], "settings"))
    settings(argc, argv);
  for (size_t i = 0; i < sizeof Commands / sizeof *Commands; i++)
    if (!strcmp(argv[0], Commands[i].name))
      Commands[i].run(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size), *argv[MAX_ARGS + 1];
  /* ".." names the parent without a '/' (`rank ..` read a whole tree and
   * timed out in the long fuzzing run); the arguments end at a NUL. */
  int outside = memchr(data, '/', size) != NULL || strstr(text, "..");
  int argc = 0;
  for (char *p = strtok(text, "\n"); p && argc < MAX_ARGS;
       p = strtok(NULL, "\n"))
    argv[argc++] = p;
  argv[argc] = NULL;
  FILE *f = fopen("a.json", "w");
  if (!f || fputs(Document, f) < 0 || fclose(f) != 0)
    abort();
  if (argc > 0 && !outside)
    FUZZ_CATCH_EXIT(run_input_line(argc, argv));
  free(text);
  return 0;
}
