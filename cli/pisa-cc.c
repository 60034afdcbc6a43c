/* pisa-cc.c: the pisa-cc / pisa-c++ compiler wrappers.  They run clang 19
 * with the user's arguments unchanged, append the pass plugin and debug line
 * tables when compiling and the pisa-char runtime when linking. */
#include "manpage.h"
#include "pisa/vocabulary.h"
#include "suggest.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PISA_PLUGIN_NAME "pisa-pass.so"
#define PISA_RT_SHARED_NAME "libpisa_rt.so"
#define PISA_RT_STATIC_NAME "libpisa_rt.a"
#define PISA_MPI_SHARED_NAME "libpisa_mpi.so"
#define PISA_MPI_STATIC_NAME "libpisa_mpi.a"
#define PISA_OPTION_PREFIX "--pisa-"

/* ---- What the user's command line asks clang to do --------------------- */

/* INPUT_C_FAMILY goes through the preprocessor and the optimiser, INPUT_IR
 * through the optimiser only. */
enum input_kind { INPUT_OTHER, INPUT_C_FAMILY, INPUT_IR, INPUT_UNKNOWN };

struct request {
  bool query;          /* --version, -print-*, -###: clang, nothing added */
  bool no_link;        /* -c, -S, -E, -M, -MM, -fsyntax-only, -r, ... */
  bool no_codegen;     /* -E, -M, -MM, -fsyntax-only: preprocess at most */
  bool has_input;      /* any file operand (or response file) */
  bool has_c_family;   /* a C/C++/ObjC operand, or a response file */
  bool has_ir;         /* an LLVM IR operand */
  bool user_debug;     /* the user chose a -g level */
  bool static_runtime; /* -static, -static-pie or --pisa-static-runtime */
  bool print_command;  /* --pisa-print-command */
  bool dropped_lto;    /* an -flto option was removed */
  const char *mode;    /* --mode: "deep", "counter" or "footprint" */
  bool mpi;            /* --pisa-mpi: add the MPI compiler's flags */
  const char *lang;    /* last -x value, NULL or "none" = by extension */
};

/* Whether word is one of the space-separated words of list. */
static bool in_word_list(const char *word, const char *list) {
  size_t n = strlen(word);
  while (n && *list) {
    size_t len = strcspn(list, " ");
    if (len == n && !strncmp(list, word, n))
      return true;
    list += len + (list[len] == ' ');
  }
  return false;
}

/* Options whose value is the next argument (clang's Separate and
 * JoinedOrSeparate options when given alone).  Their value is never an
 * input file or an option of ours. */
static bool takes_separate_value(const char *arg) {
  static const char options[] =
      "-o -x -I -D -U -L -l -u -T -z -e -A -B -F -G -MF -MT -MQ -include "
      "-imacros -isystem -idirafter -iquote -iprefix -iwithprefix "
      "-iwithprefixbefore -isysroot -isystem-after -cxx-isystem -include-pch "
      "-ivfsoverlay -Xlinker -Xclang -Xassembler -Xpreprocessor -Xanalyzer "
      "-Xopenmp-target -Xcuda-fatbinary -Xcuda-ptxas -Xoffload-linker -mllvm "
      "-arch -target -rpath -Tbss -Tdata -Ttext -resource-dir "
      "-working-directory -serialize-diagnostics --sysroot --config --param "
      "--output --language --include-directory --define-macro "
      "--undefine-macro --library-directory --for-linker --force-link "
      "--prefix";
  return !strncmp(arg, "-Xarch_", 7) || in_word_list(arg, options);
}

/* Kind of a file operand from its extension, as clang decides it:
 * C, C++, Objective-C, their preprocessed forms and headers, CUDA, HIP; IR
 * (assembly, objects and libraries are INPUT_OTHER). */
static enum input_kind kind_from_extension(const char *path) {
  static const char c_family[] =
      "c i cc cp cxx cpp CPP c++ C CC ii m mi mm M mii h hh hpp hxx H cu hip "
      "cppm ccm cxxm c++m ixx";
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  if (!dot || (slash && dot < slash))
    return INPUT_OTHER;
  if (in_word_list(dot + 1, c_family))
    return INPUT_C_FAMILY;
  return in_word_list(dot + 1, "ll bc") ? INPUT_IR : INPUT_OTHER;
}

/* Kind of a file operand after -x LANG (clang's language names). */
static enum input_kind kind_from_language(const char *lang) {
  if (!strncmp(lang, "assembler", 9))
    return INPUT_OTHER;
  return strcmp(lang, "ir") ? INPUT_C_FAMILY : INPUT_IR;
}

static bool file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static enum input_kind classify_input(const char *arg, const char *lang) {
  if (arg[0] == '@' && file_exists(arg + 1))
    return INPUT_UNKNOWN; /* a response file: it may hold anything */
  if (lang && strcmp(lang, "none"))
    return kind_from_language(lang);
  return kind_from_extension(arg);
}

/* -g options that choose how much debug information to emit (not the
 * modifiers such as -gsplit-dwarf or -gz). */
static bool is_debug_level_option(const char *arg) {
  static const char *const prefixes[] = {
      "-ggdb", "-glldb", "-gsce", "-gdbx", "-gline-", "-gdwarf-", NULL};
  if (strncmp(arg, "-g", 2))
    return false;
  if (!arg[2] || !strcmp(arg, "-gdwarf") ||
      (arg[2] >= '0' && arg[2] <= '3' && !arg[3]))
    return true;
  for (const char *const *p = prefixes; *p; p++)
    if (!strncmp(arg, *p, strlen(*p)))
      return true;
  return false;
}

static bool is_query_option(const char *arg) {
  static const char queries[] =
      "--version -dumpversion -dumpmachine -### --help -help";
  return in_word_list(arg, queries) || !strncmp(arg, "-print-", 7) ||
         !strncmp(arg, "--print-", 8);
}

static bool is_lto_option(const char *arg) {
  return !strcmp(arg, "-flto") || !strncmp(arg, "-flto=", 6);
}

/* Notes what a driver option (not an input, not a --pisa- option) means
 * for compiling and linking. */
static void note_option(struct request *rq, const char *arg) {
  static const char preprocess_only[] = "-E -M -MM -fsyntax-only";
  static const char stop_before_link[] = "-c -S -r --precompile -emit-ast";
  if (is_query_option(arg))
    rq->query = true;
  if (in_word_list(arg, preprocess_only))
    rq->no_codegen = rq->no_link = true;
  if (in_word_list(arg, stop_before_link))
    rq->no_link = true;
  if (is_debug_level_option(arg))
    rq->user_debug = true;
  if (!strcmp(arg, "-static") || !strcmp(arg, "-static-pie"))
    rq->static_runtime = true;
  if (!strncmp(arg, "-x", 2) && arg[2])
    rq->lang = arg + 2;
  if (!strncmp(arg, "--language=", 11))
    rq->lang = arg + 11;
}

static const char *const ModeNames[] = {
#define PISA_MODE_NAME(Id, Name) Name,
    PISA_MODES(PISA_MODE_NAME)
#undef PISA_MODE_NAME
};

/* pisa-cc's own options, after --pisa- (mode also without it). */
enum cc_option { CC_STATIC, CC_PRINT, CC_MODE, CC_MPI, CC_HELP, CC_MAN };
static const struct {
  const char *name;
  enum cc_option id;
} CcOptions[] = {
    {"static-runtime", CC_STATIC},
    {"print-command", CC_PRINT},
    {"mode", CC_MODE},
    {"mpi", CC_MPI},
    {"help", CC_HELP},
    {"man", CC_MAN},
};

static void usage(FILE *out) {
  char *modes = join_names(NAME_TABLE(ModeNames), " or ");
  fprintf(out,
          "usage: %s [clang options] [--pisa-OPTION...] files...\n"
          "\n"
          "Runs clang 19 with every option unchanged and adds the pisa-char\n"
          "pass when compiling and the pisa-char runtime when linking.\n"
          "\n"
          "  --mode=MODE, --mode MODE\n"
          "                         instrumentation mode, %s: deep\n"
          "                         (every block and access; the default)\n"
          "                         counter (block counters and regions\n"
          "                         of interest, a few percent overhead)\n"
          "                         or footprint (counter, and the exact\n"
          "                         footprint of threads and functions);\n"
          "                         also spelt --pisa-mode\n"
          "  --pisa-static-runtime  link the static runtime (implied by\n"
          "                         -static)\n"
          "  --pisa-print-command   print the clang command, do not run it\n"
          "  --pisa-mpi             add mpicc's flags (--showme; or\n"
          "                         $PISA_MPICC's); with it or -lmpi,\n"
          "                         libpisa_mpi is linked before libmpi\n"
          "  --pisa-man             print the manual page pisa-cc(1)\n"
          "  --pisa-help            show this help\n"
          "\n"
          "Environment: PISA_CLANG / PISA_CLANGXX replace the compiler,\n"
          "PISA_MPICC the MPI compiler wrapper of --pisa-mpi.\n",
          pisa_progname, modes);
  free(modes);
}

/* A usage error: one line and the hint, exit status 2. */
static _Noreturn void usage_die(const char *fmt, ...) PISA_PRINTF(1, 2);
static _Noreturn void usage_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", pisa_progname);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry '%s --pisa-help'.\n", pisa_progname);
  exit(2);
}

static void handle_mode(struct request *rq, const char *mode) {
  struct name_table modes = NAME_TABLE(ModeNames);
  for (size_t i = 0; i < modes.count; i++)
    if (!strcmp(mode, ModeNames[i])) {
      rq->mode = ModeNames[i];
      return;
    }
  const char *close = suggest_name(mode, modes);
  char *list = join_names(modes, " or ");
  usage_die("--mode '%s': expected %s%s%s%s", mode, list,
            close ? "; did you mean '" : "", close ? close : "",
            close ? "'?" : "");
}

static void print_man_page(void) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    die_status(1, "out of memory");
  usage(f);
  fclose(f);
  man_begin(stdout, pisa_progname, PISA_VERSION,
            "clang 19 with pisa-char's instrumentation and runtime");
  man_section(stdout, "SYNOPSIS", 0);
  man_help_text(stdout, text);
  man_section(stdout, "SEE ALSO", 0);
  fputs("pisa\\-char(1), clang(1)\n", stdout);
  free(text);
}

/* --pisa-NAME[=VALUE], or --mode=VALUE (name "mode"). */
static void handle_pisa_option(struct request *rq, const char *name,
                               const char *given) {
  size_t len = strcspn(name, "=");
  const char *value = name[len] ? name + len + 1 : NULL;
  size_t i = 0, n = sizeof CcOptions / sizeof *CcOptions;
  while (i < n && !(strlen(CcOptions[i].name) == len &&
                    !strncmp(CcOptions[i].name, name, len)))
    i++;
  if (i == n || (value != NULL) != (CcOptions[i].id == CC_MODE)) {
    char *word = xasprintf("%.*s", (int)len, name);
    const char *close = suggest_name(word, NAME_TABLE(CcOptions));
    usage_die("%s option '%s'%s%s%s", i == n ? "unknown" : "misused", given,
              close ? "; did you mean '--pisa-" : "", close ? close : "",
              close ? "'?" : "");
  }
  switch (CcOptions[i].id) {
  case CC_STATIC:
    rq->static_runtime = true;
    break;
  case CC_PRINT:
    rq->print_command = true;
    break;
  case CC_MODE:
    handle_mode(rq, value);
    break;
  case CC_MPI:
    rq->mpi = true;
    break;
  case CC_HELP:
    usage(stdout);
    exit(0);
  case CC_MAN:
    print_man_page();
    exit(0);
  }
}

/* ---- The clang command line -------------------------------------------- */

struct command {
  const char **argv;
  int argc, capacity; /* capacity keeps room for the final NULL */
};

static void insert(struct command *cmd, int at, const char *arg) {
  if (cmd->argc + 1 >= cmd->capacity) {
    cmd->capacity = 2 * cmd->capacity + 16;
    cmd->argv = xrealloc(cmd->argv, (size_t)cmd->capacity * sizeof *cmd->argv);
  }
  memmove(cmd->argv + at + 1, cmd->argv + at,
          (size_t)(cmd->argc - at) * sizeof *cmd->argv);
  cmd->argv[at] = arg;
  cmd->argc++;
}

static void push(struct command *cmd, const char *arg) {
  insert(cmd, cmd->argc, arg);
}

/* Copies the user's arguments to cmd, minus --pisa- and -flto options,
 * and records in rq what they ask for. */
static void scan_arguments(int argc, char **argv, struct request *rq,
                           struct command *cmd) {
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    size_t prefix = strlen(PISA_OPTION_PREFIX);
    if (!strcmp(arg, "--mode") || !strcmp(arg, "--pisa-mode")) {
      if (i + 1 == argc)
        usage_die("option '%s' needs an argument", arg);
      handle_mode(rq, argv[++i]);
    } else if (!strncmp(arg, PISA_OPTION_PREFIX, prefix)) {
      handle_pisa_option(rq, arg + prefix, arg);
    } else if (!strncmp(arg, "--mode=", 7)) {
      handle_pisa_option(rq, arg + 2, arg);
    } else if (is_lto_option(arg)) {
      rq->dropped_lto = true;
    } else if (takes_separate_value(arg) && i + 1 < argc) {
      if (!strcmp(arg, "-x") || !strcmp(arg, "--language"))
        rq->lang = argv[i + 1];
      push(cmd, arg);
      push(cmd, argv[++i]);
    } else if (arg[0] == '-' && arg[1]) {
      note_option(rq, arg);
      push(cmd, arg);
    } else {
      enum input_kind kind = classify_input(arg, rq->lang);
      rq->has_input = true;
      rq->has_c_family |= kind == INPUT_C_FAMILY || kind == INPUT_UNKNOWN;
      rq->has_ir |= kind == INPUT_IR;
      push(cmd, arg);
    }
  }
}

static const char *require_file(const char *dir, const char *name,
                                const char *what) {
  char *path = xasprintf("%s%s", dir, name);
  if (access(path, R_OK))
    die("%s not found: %s: %s", what, path, strerror(errno));
  return path;
}

/* The pass and line tables wherever the optimiser runs; the header
 * directory and macro wherever the preprocessor runs, -E included, so that
 * `$CC -E` header checks agree with compiles. */
static void add_compile_flags(struct command *cmd, const struct request *rq,
                              const char *libdir, const char *incdir) {
  if (!rq->no_codegen && (rq->has_c_family || rq->has_ir)) {
    const char *plugin =
        require_file(libdir, "/" PISA_PLUGIN_NAME, "pisa-char pass plugin");
    push(cmd, xasprintf("-fpass-plugin=%s", plugin));
    if (rq->mode && strcmp(rq->mode, "deep")) {
      /* loaded early so that -mllvm knows the option */
      push(cmd, xasprintf("-fplugin=%s", plugin));
      push(cmd, "-mllvm");
      push(cmd, xasprintf("-pisa-mode=%s", rq->mode));
    }
    if (!rq->user_debug)
      push(cmd, "-gline-tables-only");
  }
  if (rq->has_c_family) {
    push(cmd, xasprintf("-I%s", incdir));
    push(cmd, "-DPISA_INSTRUMENTED=1");
  }
}

static void add_link_flags(struct command *cmd, const struct request *rq,
                           const char *libdir) {
  if (rq->static_runtime) {
    const char *lib = require_file(libdir, "/" PISA_RT_STATIC_NAME,
                                   "pisa-char static runtime");
    if (rq->lang && strcmp(rq->lang, "none")) {
      push(cmd, "-x"); /* so the archive is not read as a source file */
      push(cmd, "none");
    }
    push(cmd, lib);
    /* The runtime's own sigaction and the functions that install signal
     * handlers (analysislib/handlers.c): in a static link no other
     * interposition reaches the program's calls. */
    push(cmd, "-Wl,--wrap=sigaction,--wrap=signal,--wrap=bsd_signal,"
              "--wrap=sysv_signal,--wrap=__sysv_signal,--wrap=sigset");
    push(cmd, "-ljson-c");
    push(cmd, "-lpthread");
    push(cmd, "-lm");
    return;
  }
  require_file(libdir, "/" PISA_RT_SHARED_NAME, "pisa-char runtime");
  push(cmd, xasprintf("-L%s", libdir));
  push(cmd, xasprintf("-Wl,-rpath,%s", libdir));
  push(cmd, "-lpisa_rt");
}

/* ---- MPI ---------------------------------------------------------------- */

/* Appends the words that `$PISA_MPICC --showme:WHAT` prints (OpenMPI's
 * compile or link flags). */
static void push_mpi_flags(struct command *cmd, const char *what) {
  const char *mpicc = getenv("PISA_MPICC");
  char *line = NULL, *shell = NULL;
  size_t cap = 0;
  mpicc = mpicc && *mpicc ? mpicc : "mpicc";
  shell = xasprintf("%s --showme:%s", mpicc, what);
  FILE *p = popen(shell, "r");
  ssize_t n = p ? getline(&line, &cap, p) : -1;
  int status = p ? pclose(p) : -1;
  if (n < 0 || status != 0)
    die("--pisa-mpi: '%s' failed; install OpenMPI (libopenmpi-dev) or set "
        "PISA_MPICC to its mpicc",
        shell);
  for (char *word = strtok(line, " \t\n"); word; word = strtok(NULL, " \t\n"))
    push(cmd, word);
  free(shell);
}

/* Index of the first -lmpi (or -l mpi) of the command, or -1. */
static int find_libmpi(const struct command *cmd) {
  for (int i = 1; i < cmd->argc; i++) {
    if (!strcmp(cmd->argv[i], "-lmpi"))
      return i;
    if (!strcmp(cmd->argv[i], "-l") && i + 1 < cmd->argc &&
        !strcmp(cmd->argv[i + 1], "mpi"))
      return i;
  }
  return -1;
}

/* libpisa_mpi goes right before libmpi, so that its MPI_* wrappers, not
 * libmpi's, are what the program's calls resolve to. */
static void add_mpi_library(struct command *cmd, const struct request *rq,
                            const char *libdir) {
  int at = find_libmpi(cmd);
  if (at < 0 && !rq->mpi)
    return;
  const char *lib = "-lpisa_mpi"; /* found by the runtime's -L */
  if (rq->static_runtime)
    lib =
        require_file(libdir, "/" PISA_MPI_STATIC_NAME, "pisa-char MPI library");
  else
    require_file(libdir, "/" PISA_MPI_SHARED_NAME, "pisa-char MPI library");
  insert(cmd, at < 0 ? cmd->argc : at, lib);
}

static void add_pisa_flags(struct command *cmd, const struct request *rq) {
  if (rq->query || !rq->has_input)
    return;
  const char *prefix = install_prefix();
  if (!prefix)
    die("cannot locate own executable: %s", strerror(errno));
  const char *libdir = xasprintf("%s/" PISA_LIBDIR, prefix);
  const char *incdir = xasprintf("%s/" PISA_INCDIR, prefix);
  if (rq->mpi)
    push_mpi_flags(cmd, "compile");
  add_compile_flags(cmd, rq, libdir, incdir);
  if (rq->no_link)
    return;
  if (rq->mpi)
    push_mpi_flags(cmd, "link");
  add_mpi_library(cmd, rq, libdir);
  add_link_flags(cmd, rq, libdir);
}

/* Prints arg so that a POSIX shell reads it back unchanged. */
static void print_quoted(const char *arg) {
  static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
                             "vwxyz0123456789_@%+=:,./-";
  if (*arg && strspn(arg, safe) == strlen(arg)) {
    fputs(arg, stdout);
    return;
  }
  putchar('\'');
  for (; *arg; arg++) {
    if (*arg == '\'')
      fputs("'\\''", stdout); /* close, escaped quote, reopen */
    else
      putchar(*arg);
  }
  putchar('\'');
}

static int print_command(const struct command *cmd) {
  for (int i = 0; i < cmd->argc; i++) {
    if (i)
      putchar(' ');
    print_quoted(cmd->argv[i]);
  }
  putchar('\n');
  if (fflush(stdout) || ferror(stdout))
    die("cannot write the command: %s", strerror(errno));
  return 0;
}

static bool is_cxx_driver(const char *argv0) {
  const char *base = strrchr(argv0, '/');
  base = base ? base + 1 : argv0;
  size_t n = strlen(base);
  return n >= 2 && !strcmp(base + n - 2, "++");
}

static const char *compiler_path(bool cxx) {
  const char *env = getenv(cxx ? "PISA_CLANGXX" : "PISA_CLANG");
  if (env && *env)
    return env;
  return cxx ? PISA_CLANGXX : PISA_CLANG;
}

int main(int argc, char **argv) {
  bool cxx = argc > 0 && is_cxx_driver(argv[0]);
  pisa_progname = cxx ? "pisa-c++" : "pisa-cc";

  struct request rq = {0};
  struct command cmd = {NULL, 0, 0};
  push(&cmd, compiler_path(cxx));
  scan_arguments(argc, argv, &rq, &cmd);
  if (rq.dropped_lto)
    warning("-flto is ignored: instrumentation runs at compile time");
  add_pisa_flags(&cmd, &rq);
  cmd.argv[cmd.argc] = NULL;

  if (rq.print_command)
    return print_command(&cmd);
  execv(cmd.argv[0], (char **)cmd.argv);
  die("cannot run %s: %s", cmd.argv[0], strerror(errno));
}
