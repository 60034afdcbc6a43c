/* fake.c: stands in for a program built with pisa-cc in the run-*.test
 * tests: it carries the pass's marker section and, when PISA_OUTPUT_DIR is
 * set, writes a raw result as the runtime would, doing what its arguments
 * say, left to right:
 *   out TEXT, err TEXT  print TEXT and a newline to stdout, stderr
 *   cat                 copy stdin to stdout
 *   env NAME            print the value of NAME ("(unset)" if unset)
 *   instructions N      report N instructions in the totals
 *   footprint N         report a footprint of N bytes in the totals
 *   functions N         report N more functions (a result that takes
 *                       pisa-char a while to read and write)
 *   exit N              exit with status N (the raw result is written then)
 *   kill N              write an incomplete raw result recording signal N,
 *                       then die of N (the runtime's fatal-signal path)
 *   late-kill N         write a complete raw result, then die of N
 *   nowrite             write no raw result
 *   garbage             write a raw result that is not JSON
 *   badschema           write a raw result with a wrong "schema"
 *   invalid             write a raw result whose document breaks the schema
 *   fork                fork a child that prints "child PID", writes its
 *                       own raw result and exits 0; wait for it
 *   extra PID           also write a raw result as if process PID did
 *   create PATH         create an empty file PATH
 *   wait                print "ready", then read a line from stdin; a
 *                       SIGTERM or SIGHUP meanwhile acts like "kill"
 *   late-signal N       leave behind a process that sends signal N to
 *                       pisa-char (the parent) as soon as this process has
 *                       ended and been reaped: while pisa-char writes
 * Built with -DFAKE_UNINSTRUMENTED it lacks the marker section. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef FAKE_UNINSTRUMENTED
__attribute__((section("pisa_modules"), used)) static const char marker[] =
    "pisa";
#endif

enum raw_kind { RAW_GOOD, RAW_NONE, RAW_GARBAGE, RAW_BADSCHEMA, RAW_INVALID };

static enum raw_kind raw_kind = RAW_GOOD;
static long long instructions = 100;
static long long footprint = 64;
static long extra_functions;
static int written;

static void metrics(FILE *f) {
  fprintf(f,
          "\"instructions\": %lld, \"instruction_mix\": {\"opcodes\": "
          "{\"add\": %lld}, "
          "\"categories\": {\"memory\": 0, \"int\": %lld, \"fp\": 0, "
          "\"bitwise\": 0, "
          "\"conversion\": 0, \"address\": 0, \"control\": 0, \"vector\": 0, "
          "\"other\": 0}, "
          "\"phi\": 0, \"bytes_loaded\": 0, \"bytes_stored\": 0, "
          "\"vector\": {\"instructions\": 0, \"lanes\": {}, \"bits\": {}}}, "
          "\"memory_accesses\": {\"loads\": 0, \"stores\": 0, \"atomics\": 0, "
          "\"memcpy\": 0, "
          "\"memset\": 0, \"gathers\": 0, \"scatters\": 0}, "
          "\"footprint\": {\"bytes\": %lld, \"blocks\": {}}, "
          "\"external_calls\": {}",
          instructions, instructions, instructions, footprint);
}

/* PISA_LINE_SIZES "MIN:MAX" as a JSON list of powers of two. */
static void line_sizes(FILE *f) {
  unsigned min = 8, max = 512;
  const char *env = getenv("PISA_LINE_SIZES");
  if (env)
    sscanf(env, "%u:%u", &min, &max);
  fputc('[', f);
  for (unsigned s = min; s <= max && s; s *= 2)
    fprintf(f, "%s%u", s == min ? "" : ", ", s);
  fputc(']', f);
}

/* Writes the raw result of process `pid` (child of `ppid`). */
static void write_raw_as(int pid, int ppid, int complete, int sig) {
  const char *dir = getenv("PISA_OUTPUT_DIR");
  if (!dir)
    return;
  char tmp[4096], path[4096];
  snprintf(tmp, sizeof tmp, "%s/.raw.%d.tmp", dir, pid);
  snprintf(path, sizeof path, "%s/raw.%d.json", dir, pid);
  FILE *f = fopen(tmp, "w");
  if (!f)
    return;
  if (raw_kind == RAW_GARBAGE) {
    fputs("{\"schema\": \"pisa-char-raw/1\", \"complete\": tru", f);
  } else {
    fprintf(f, "{\"schema\": \"%s\", \"pid\": %d, \"ppid\": %d, ",
            raw_kind == RAW_BADSCHEMA ? "pisa-char-raw/0" : "pisa-char-raw/1",
            pid, ppid);
    fprintf(f, "\"complete\": %s, \"signal\": ", complete ? "true" : "false");
    fprintf(f, sig ? "%d" : "null", sig);
    fprintf(f, ", \"mode\": \"%s\", \"config\": {\"line_sizes\": ",
            raw_kind == RAW_INVALID ? "shallow" : "deep");
    line_sizes(f);
    fputs("}, \"totals\": {", f);
    metrics(f);
    fprintf(f, "}, \"threads\": [{\"rank\": 0, \"thread\": 0, \"os_tid\": %d, ",
            pid);
    metrics(f);
    fputs(
        "}], \"functions\": [{\"name\": \"main\", \"linkage_name\": \"main\", "
        "\"file\": \"fake.c\", \"line\": 1, \"module\": \"fake.c\", ",
        f);
    metrics(f);
    for (long k = 0; k < extra_functions; k++) {
      fprintf(f,
              "}, {\"name\": \"f%ld\", \"linkage_name\": \"f%ld\", "
              "\"file\": \"fake.c\", \"line\": 1, \"module\": \"fake.c\", ",
              k, k);
      metrics(f);
    }
    fputs("}]}\n", f);
  }
  fclose(f);
  rename(tmp, path);
}

static void write_raw(int complete, int sig) {
  if (written || raw_kind == RAW_NONE)
    return;
  written = 1;
  write_raw_as((int)getpid(), (int)getppid(), complete, sig);
}

static void write_complete_raw(void) { write_raw(1, 0); }

static void die_of(int sig, int record) {
  if (record)
    write_raw(0, sig);
  else
    write_raw(1, 0);
  fflush(NULL);
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  raise(sig);
  _exit(99); /* not reached for a fatal signal */
}

static volatile sig_atomic_t pending_signal;

/* Closing stdin also ends a read() that had not started yet. */
static void on_signal(int sig) {
  pending_signal = sig;
  close(0);
}

static void copy_stdin(void) {
  int c;
  while ((c = getchar()) != EOF)
    putchar(c);
}

static void fork_child(void) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    printf("child %d\n", (int)getpid());
    exit(0);
  }
  waitpid(pid, NULL, 0);
}

static void late_signal(int sig) {
  pid_t self = getpid(), parent = getppid();
  fflush(NULL);
  if (fork() != 0)
    return;
  close(0);
  close(1);
  close(2);
  while (kill(self, 0) == 0) /* until the zombie is reaped */
    usleep(100);
  kill(parent, sig);
  _exit(0);
}

/* The signal is acted on outside the handler, which only interrupts read(). */
static void wait_for_line(void) {
  struct sigaction sa = {.sa_handler = on_signal};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  puts("ready");
  fflush(stdout);
  char c;
  while (!pending_signal && read(0, &c, 1) == 1 && c != '\n')
    ;
  if (pending_signal)
    die_of(pending_signal, 1);
}

int main(int argc, char **argv) {
  atexit(write_complete_raw);
  for (int i = 1; i < argc; i++) {
    const char *cmd = argv[i], *arg = i + 1 < argc ? argv[i + 1] : "0";
    if (!strcmp(cmd, "out"))
      puts(argv[++i]);
    else if (!strcmp(cmd, "err"))
      fprintf(stderr, "%s\n", argv[++i]);
    else if (!strcmp(cmd, "cat"))
      copy_stdin();
    else if (!strcmp(cmd, "env"))
      puts(getenv(argv[++i]) ? getenv(argv[i]) : "(unset)");
    else if (!strcmp(cmd, "instructions"))
      instructions = atoll(argv[++i]);
    else if (!strcmp(cmd, "footprint"))
      footprint = atoll(argv[++i]);
    else if (!strcmp(cmd, "functions"))
      extra_functions = atol(argv[++i]);
    else if (!strcmp(cmd, "exit"))
      exit(atoi(arg));
    else if (!strcmp(cmd, "kill"))
      die_of(atoi(arg), 1);
    else if (!strcmp(cmd, "late-kill"))
      die_of(atoi(arg), 0);
    else if (!strcmp(cmd, "nowrite"))
      raw_kind = RAW_NONE;
    else if (!strcmp(cmd, "garbage"))
      raw_kind = RAW_GARBAGE;
    else if (!strcmp(cmd, "badschema"))
      raw_kind = RAW_BADSCHEMA;
    else if (!strcmp(cmd, "invalid"))
      raw_kind = RAW_INVALID;
    else if (!strcmp(cmd, "fork"))
      fork_child();
    else if (!strcmp(cmd, "extra"))
      write_raw_as(atoi(argv[++i]), (int)getpid(), 1, 0);
    else if (!strcmp(cmd, "create"))
      fclose(fopen(argv[++i], "w"));
    else if (!strcmp(cmd, "wait"))
      wait_for_line();
    else if (!strcmp(cmd, "late-signal"))
      late_signal(atoi(argv[++i]));
  }
  return 0;
}
