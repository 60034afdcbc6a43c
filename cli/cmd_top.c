/* cmd_top.c: `pisa-char top [PID...]`: the live view of counter-mode runs
 * (live.h): once a second, each running program's instruction rate,
 * bytes per second, top functions and regions, read from the file its
 * runtime keeps up to date. Nothing is sent to the programs: attaching and
 * detaching cannot disturb them. */
#include "cmdline.h"
#include "commands.h"
#include "live.h"
#include "numbers.h"
#include "util.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: pisa-char top [options] [PID...]\n"
    "\n"
    "Shows, every second, what the counters of running counter-mode\n"
    "programs (run with 'pisa-char run --mode counter') say so far: the\n"
    "rate of instructions and of bytes loaded and stored, and the top\n"
    "functions and regions of interest. Without PID, every such program\n"
    "of this machine (each MPI rank is a process of its own). The\n"
    "programs are not signalled or stopped: their runtime writes a small\n"
    "file (in $PISA_LIVE_DIR, default /dev/shm) that top only reads.\n"
    "\n"
    "Options:\n"
    "  -n, --iterations N  stop after N updates (default: when every\n"
    "                      program watched has ended)\n"
    "  -d, --delay SEC     seconds between updates, 0.1 to 3600\n"
    "                      (default 1)\n"
    "      --json          one JSON object per program and update, on a\n"
    "                      line of its own\n"
    "  -h, --help          show this help\n"
    "\n"
    "Rates are over the last update (the first: since the program\n"
    "started). Exit status: 0 when every program watched was shown, 1\n"
    "when a PID has no live view or, without PID, no program has one, 2\n"
    "on bad usage.\n";

enum { OPT_JSON = 256 };

static const struct option TopOptions[] = {
    {"iterations", required_argument, NULL, 'n'},
    {"delay", required_argument, NULL, 'd'},
    {"json", no_argument, NULL, OPT_JSON},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

const struct command_line top_line = {
    .name = "top",
    .usage = usage_text,
    .short_options = ":n:d:h",
    .options = TopOptions,
};

struct top_options {
  long iterations; /* 0: until every program ended */
  double delay;
  int json;
};

static int take_option(int opt, char *arg, void *ctx) {
  struct top_options *o = ctx;
  char *end;
  switch (opt) {
  case 'n':
    if (parse_long(arg, 1, 1000000000, &o->iterations))
      return usage_error(&top_line,
                         "--iterations '%s': expected a whole "
                         "number from 1",
                         arg);
    return 0;
  case 'd':
    errno = 0;
    o->delay = strtod(arg, &end);
    if (errno || end == arg || *end || !(o->delay >= 0.1) || o->delay > 3600)
      return usage_error(&top_line,
                         "--delay '%s': expected seconds from "
                         "0.1 to 3600",
                         arg);
    return 0;
  default: /* --json */
    o->json = 1;
    return 0;
  }
}

/* One program watched: its view and its last snapshot shown. */
struct watched {
  struct live_view view;
  struct pisa_live last;
  int shown, ended;
};

/* d / seconds, 0 without time passed. */
static double rate(uint64_t now, uint64_t before, double seconds) {
  return seconds > 0 && now >= before ? (double)(now - before) / seconds : 0;
}

struct rates {
  double instructions, loaded, stored;
};

static struct rates rates_of(const struct watched *w,
                             const struct pisa_live *s) {
  const struct pisa_live *b = w->shown ? &w->last : NULL;
  double seconds = s->seconds - (b ? b->seconds : 0);
  return (struct rates){
      rate(s->instructions, b ? b->instructions : 0, seconds),
      rate(s->bytes_loaded, b ? b->bytes_loaded : 0, seconds),
      rate(s->bytes_stored, b ? b->bytes_stored : 0, seconds)};
}

static json_object *entries_json(const struct pisa_live_entry *e, uint32_t n,
                                 int functions) {
  json_object *a = json_object_new_array();
  for (uint32_t i = 0; i < n && i < PISA_LIVE_TOP; i++) {
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(e[i].name));
    if (functions) {
      json_object_object_add(o, "instructions",
                             json_object_new_uint64(e[i].instructions));
      json_object_object_add(o, "bytes", json_object_new_uint64(e[i].bytes));
    } else {
      json_object_object_add(o, "executions",
                             json_object_new_uint64(e[i].executions));
    }
    json_object_array_add(a, o);
  }
  return a;
}

static void add_u64(json_object *o, const char *key, uint64_t v) {
  json_object_object_add(o, key, json_object_new_uint64(v));
}

static void show_json(const struct pisa_live *s, const struct rates *r) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "pid", json_object_new_int(s->pid));
  json_object_object_add(o, "rank",
                         s->rank >= 0 ? json_object_new_int(s->rank) : NULL);
  json_object_object_add(o, "program", json_object_new_string(s->program));
  json_object_object_add(o, "ended", json_object_new_boolean(0));
  json_object_object_add(o, "seconds", json_object_new_double(s->seconds));
  add_u64(o, "snapshots", s->snapshots);
  add_u64(o, "threads", s->threads);
  add_u64(o, "instructions", s->instructions);
  add_u64(o, "loads", s->loads);
  add_u64(o, "stores", s->stores);
  add_u64(o, "bytes_loaded", s->bytes_loaded);
  add_u64(o, "bytes_stored", s->bytes_stored);
  json_object_object_add(o, "instructions_per_second",
                         json_object_new_double(r->instructions));
  json_object_object_add(o, "bytes_loaded_per_second",
                         json_object_new_double(r->loaded));
  json_object_object_add(o, "bytes_stored_per_second",
                         json_object_new_double(r->stored));
  json_object_object_add(o, "functions",
                         entries_json(s->functions, s->n_functions, 1));
  json_object_object_add(o, "regions",
                         entries_json(s->regions, s->n_regions, 0));
  puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                             JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put(o);
}

static void show_text(const struct pisa_live *s, const struct rates *r) {
  char a[64], b[64], c[64];
  printf("pid %d", s->pid);
  if (s->rank >= 0)
    printf(" (rank %d)", s->rank);
  printf(" %s: %.1f s, %u thread%s\n", s->program, s->seconds, s->threads,
         s->threads == 1 ? "" : "s");
  printf("  %s instructions/s, %s/s loaded, %s/s stored\n",
         format_count(a, sizeof a, round(r->instructions)),
         format_bytes(b, sizeof b, r->loaded),
         format_bytes(c, sizeof c, r->stored));
  printf("  so far: %s instructions, %s loaded, %s stored\n",
         format_count(a, sizeof a, (double)s->instructions),
         format_bytes(b, sizeof b, (double)s->bytes_loaded),
         format_bytes(c, sizeof c, (double)s->bytes_stored));
  if (s->n_functions)
    printf("  %-40s %20s %7s %12s\n", "function", "instructions", "share",
           "bytes");
  for (uint32_t i = 0; i < s->n_functions && i < PISA_LIVE_TOP; i++) {
    const struct pisa_live_entry *e = &s->functions[i];
    printf("  %-40.40s %20s %6.1f%% %12s\n", e->name,
           format_count(a, sizeof a, (double)e->instructions),
           s->instructions
               ? 100.0 * (double)e->instructions / (double)s->instructions
               : 0.0,
           format_bytes(b, sizeof b, (double)e->bytes));
  }
  if (s->n_regions)
    printf("  %-40s %20s\n", "region", "executions");
  for (uint32_t i = 0; i < s->n_regions && i < PISA_LIVE_TOP; i++)
    printf("  %-40.40s %20s\n", s->regions[i].name,
           format_count(a, sizeof a, (double)s->regions[i].executions));
}

static void show_ended(const struct watched *w, int json) {
  if (json)
    printf("{\"pid\":%ld,\"ended\":true}\n", (long)w->view.pid);
  else
    printf("pid %ld: ended (its result is being written or was written)\n",
           (long)w->view.pid);
}

/* Shows w once; whether it still runs. */
static int show(struct watched *w, int json) {
  struct pisa_live s;
  if (!live_running(&w->view) || live_read(&w->view, &s) != 0) {
    w->ended = 1;
    show_ended(w, json);
    return 0;
  }
  struct rates r = rates_of(w, &s);
  if (json)
    show_json(&s, &r);
  else
    show_text(&s, &r);
  w->last = s;
  w->shown = 1;
  return 1;
}

/* The views of the pids (operands, or every live one); their count, or -1
 * after reporting a pid without one. */
static long open_views(char **pids, int n, struct watched **out) {
  pid_t *listed = NULL;
  size_t count = n ? (size_t)n : live_list(&listed);
  struct watched *w = xcalloc(count + 1, sizeof *w);
  long opened = 0;
  for (size_t i = 0; i < count; i++) {
    long pid = 0;
    char err[4300];
    if (n && parse_long(pids[i], 1, INT32_MAX, &pid)) {
      error("top: '%s' is not a process id", pids[i]);
      opened = -1;
      break;
    }
    if (live_open(n ? (pid_t)pid : listed[i], &w[opened].view, err,
                  sizeof err) == 0) {
      opened++;
    } else if (n) {
      error("top: %s", err);
      opened = -1;
      break;
    }
  }
  free(listed);
  *out = w;
  return opened;
}

static void pause_for(double seconds) {
  struct timespec t = {(time_t)seconds,
                       (long)((seconds - floor(seconds)) * 1e9)};
  while (nanosleep(&t, &t) != 0 && errno == EINTR)
    ;
}

int cmd_top(int argc, char **argv) {
  struct top_options o = {.delay = 1};
  int status = cmdline_parse(&top_line, argc, argv, take_option, &o);
  if (status != CMDLINE_PARSED)
    return status;
  struct watched *w;
  long n = open_views(argv + optind, argc - optind, &w);
  if (n == 0 && optind == argc)
    error("top: no counter-mode run with a live view on this machine "
          "(in %s)",
          live_dir());
  int clear = !o.json && isatty(STDOUT_FILENO);
  for (long update = 0; n > 0 && (!o.iterations || update < o.iterations);
       update++) {
    if (update)
      pause_for(o.delay);
    if (clear)
      fputs("\033[H\033[J", stdout);
    long running = 0;
    for (long i = 0; i < n; i++)
      if (!w[i].ended)
        running += show(&w[i], o.json);
    if (!o.json && !clear)
      putchar('\n');
    fflush(stdout);
    if (!running)
      break;
  }
  for (long i = 0; i < n; i++)
    live_close(&w[i].view);
  free(w);
  return n > 0 ? 0 : 1;
}
