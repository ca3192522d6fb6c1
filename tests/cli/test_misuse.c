/* CLI misuse: for every subcommand `arenaplan --help` lists, unknown options, missing
 * arguments, bad sizes (-5, 1e99, 12Q), paths that are directories, unreadable or empty. Each
 * must exit 2 with one error line "arenaplan: WHAT: MESSAGE" on stderr (usage errors may add
 * the hint "(see 'arenaplan CMD --help')" on a second line), and print nothing on stdout.
 * Needs nothing from ../shared: `arenaplan example` writes the model. */
#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

/* Runs the CLI with args (a shell fragment, paths relative to dir); returns the exit status
 * and the stderr and stdout text (malloc'd). */
static int cli(const char *args, char **err, char **out) {
  char cmd[1024];
  /* timeout: a hang (a FIFO opened for reading waits for a writer) must fail, not stall. */
  snprintf(cmd, sizeof cmd, "cd %s && timeout 20 %s %s 2>stderr.txt", dir, ap_test_cli(), args);
  int rc = ap_test_run(cmd, false, out);
  snprintf(cmd, sizeof cmd, "cat %s/stderr.txt", dir);
  ap_test_run(cmd, false, err);
  return rc;
}

/* Exit 2, nothing on stdout, and stderr is the line `want` (exactly, when want ends without
 * '*'; as a prefix when it ends with '*'), possibly followed by the --help hint of `cmd`. */
static void expect_error(const char *args, const char *cmd, const char *want) {
  char *err = NULL, *out = NULL;
  int rc = cli(args, &err, &out);
  CHECK_MSG(rc == 2, "arenaplan %s: exit %d", args, rc);
  CHECK_MSG(out && out[0] == '\0', "arenaplan %s: stdout \"%s\"", args, out ? out : "");
  const char *e = err ? err : "";
  const char *nl = strchr(e, '\n');
  size_t first = nl ? (size_t)(nl - e) : strlen(e);
  size_t wn = strlen(want);
  bool prefix = wn && want[wn - 1] == '*';
  bool ok = prefix ? first >= wn - 1 && strncmp(e, want, wn - 1) == 0
                   : first == wn && strncmp(e, want, wn) == 0;
  CHECK_MSG(ok, "arenaplan %s: stderr \"%s\", want \"%s\"", args, e, want);
  if (nl && nl[1]) {
    char hint[128];
    snprintf(hint, sizeof hint, "(see 'arenaplan %s --help')\n", cmd);
    CHECK_MSG(strcmp(nl + 1, hint) == 0, "arenaplan %s: more than one error line: \"%s\"", args, e);
  }
  free(err);
  free(out);
}

/* The subcommands `arenaplan --help` lists (besides help and version). */
static size_t listed_commands(char names[][32], size_t max) {
  char *out = NULL;
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s --help", ap_test_cli());
  CHECK_EQ(ap_test_run(cmd, false, &out), 0);
  size_t n = 0;
  /* After the usage paragraph, groups: a "title:" line, then "  NAME  summary" lines. */
  const char *p = out ? strstr(out, "\n\n") : NULL;
  for (; p && n < max; p = strchr(p + 1, '\n')) {
    if (p[1] != ' ' || p[2] != ' ') continue;
    if (sscanf(p + 1, " %31s", names[n]) == 1 && strcmp(names[n], "help") != 0 &&
        strcmp(names[n], "version") != 0)
      n++;
  }
  free(out);
  return n;
}

static void model_command(const char *c) {
  char args[256], want[256];
  snprintf(args, sizeof args, "%s", c);
  snprintf(want, sizeof want, "arenaplan: %s: *", c); /* "missing MODEL", "no model given" */
  expect_error(args, c, want);
  snprintf(args, sizeof args, "%s m.tflite --no-such-option", c);
  snprintf(want, sizeof want, "arenaplan: %s: unknown option *", c);
  expect_error(args, c, want);
  snprintf(args, sizeof args, "%s empty.tflite", c);
  expect_error(args, c, "arenaplan: empty.tflite: empty file (0 bytes)");
  snprintf(args, sizeof args, "%s adir", c);
  expect_error(args, c, "arenaplan: adir: is a directory, not a model file");
  snprintf(args, sizeof args, "%s afile/x.tflite", c);
  expect_error(args, c, "arenaplan: afile/x.tflite: cannot open: Not a directory");
  snprintf(args, sizeof args, "%s missing.tflite", c);
  expect_error(args, c, "arenaplan: missing.tflite: cannot open: No such file or directory");
  snprintf(args, sizeof args, "%s fifo.tflite", c); /* no writer: must not wait for one */
  expect_error(args, c, "arenaplan: fifo.tflite: not a regular file");
  snprintf(args, sizeof args, "%s notamodel.tflite", c);
  expect_error(args, c, "arenaplan: notamodel.tflite: *");
  if (geteuid() != 0) { /* root reads a mode-000 file anyway: afile/x covers unreadable there */
    snprintf(args, sizeof args, "%s locked.tflite", c);
    expect_error(args, c, "arenaplan: locked.tflite: cannot open: Permission denied");
  }
}

static void test_plan_sizes(void) {
  /* 0x10 is no size here (strtod would read it as 16: the size parser must not); seconds are
   * parsed as a C double, where 0x10 is a valid 16. */
  static const char *const bad[] = {"-5", "1e99", "12Q", "", "0x10", "99999999999999999999K"};
  char args[256], want[256];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(args, sizeof args, "plan m.tflite --budget '%s'", bad[i]);
    snprintf(want, sizeof want,
             "arenaplan: plan: --budget \"%s\": expected a size like 76800, 75K, 1.5M", bad[i]);
    expect_error(args, "plan", want);
    snprintf(args, sizeof args, "plan m.tflite --align '%s'", bad[i]);
    snprintf(want, sizeof want, "arenaplan: plan: --align \"%s\": expected a positive integer",
             bad[i]);
    expect_error(args, "plan", want);
    snprintf(args, sizeof args, "compare m.tflite --align '%s'", bad[i]);
    snprintf(want, sizeof want, "arenaplan: compare: --align \"%s\": expected a positive integer",
             bad[i]);
    expect_error(args, "compare", want);
    snprintf(args, sizeof args, "plan m.tflite --subgraph '%s'", bad[i]);
    snprintf(want, sizeof want, "arenaplan: plan: --subgraph \"%s\": expected an index", bad[i]);
    expect_error(args, "plan", want);
    if (strcmp(bad[i], "0x10") == 0) continue;
    snprintf(args, sizeof args, "plan m.tflite --exact-budget '%s'", bad[i]);
    snprintf(want, sizeof want, "arenaplan: plan: --exact-budget \"%s\": expected seconds", bad[i]);
    expect_error(args, "plan", want);
    snprintf(args, sizeof args, "compare m.tflite --exact-budget '%s'", bad[i]);
    snprintf(want, sizeof want, "arenaplan: compare: --exact-budget \"%s\": expected seconds",
             bad[i]);
    expect_error(args, "compare", want);
  }
  expect_error("plan m.tflite --align 0", "plan",
               "arenaplan: plan: --align \"0\": expected a positive integer");
  expect_error("plan m.tflite --budget", "plan", "arenaplan: plan: --budget needs a value");
  expect_error("plan m.tflite --align", "plan", "arenaplan: plan: --align needs a value");
  expect_error("plan m.tflite --strategy", "plan", "arenaplan: plan: --strategy needs a value");
  expect_error("plan m.tflite --rules", "plan", "arenaplan: plan: --rules needs a value");
  expect_error("plan m.tflite --rules x", "plan",
               "arenaplan: plan: --rules \"x\": one of arenaplan, tflite, tflm");
  expect_error("plan m.tflite --strategy nope", "plan",
               "arenaplan: plan: unknown strategy \"nope\"; one of: *");
  /* The model's name once, not twice (the library's message starts with it too). */
  expect_error("plan m.tflite --subgraph 99", "plan",
               "arenaplan: m.tflite: subgraph 99 out of range (model has 1)");
  expect_error("compare m.tflite --align", "compare", "arenaplan: compare: --align needs a value");
  expect_error("plan m.tflite other.tflite", "plan",
               "arenaplan: plan: one model at a time (got \"other.tflite\" too)");
}

static void test_solve(void) {
  expect_error("solve", "solve", "arenaplan: solve: no problem file");
  expect_error("solve ok.csv --no-such-option", "solve",
               "arenaplan: solve: unknown or incomplete option \"--no-such-option\"");
  expect_error("solve empty.csv", "solve", "arenaplan: empty.csv: empty file (0 bytes)");
  expect_error("solve header.csv", "solve",
               "arenaplan: header.csv: no requests (expected lines id,lower,upper,size)");
  expect_error("solve adir", "solve", "arenaplan: adir: cannot read: Is a directory");
  expect_error("solve afile/x.csv", "solve",
               "arenaplan: afile/x.csv: cannot read: Not a directory");
  expect_error("solve missing.csv", "solve",
               "arenaplan: missing.csv: cannot read: No such file or directory");
  expect_error("solve bad.csv", "solve", "arenaplan: bad.csv: *");
  static const char *const bad[] = {"-5", "1e99", "12Q", ""};
  char args[256], want[256];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(args, sizeof args, "solve ok.csv --align '%s'", bad[i]);
    snprintf(want, sizeof want, "arenaplan: solve: --align \"%s\": expected a positive integer",
             bad[i]);
    expect_error(args, "solve", want);
    snprintf(args, sizeof args, "solve ok.csv --budget '%s'", bad[i]);
    snprintf(want, sizeof want, "arenaplan: solve: --budget \"%s\": expected seconds > 0", bad[i]);
    expect_error(args, "solve", want);
  }
  expect_error("solve ok.csv --strategy", "solve",
               "arenaplan: solve: unknown or incomplete option \"--strategy\"");
  expect_error("solve ok.csv --out", "solve",
               "arenaplan: solve: unknown or incomplete option \"--out\"");
}

static void test_example(void) {
  expect_error("example", "example", "arenaplan: example: no output file (-o OUT.tflite)");
  expect_error("example -o", "example", "arenaplan: example: -o needs a file name");
  expect_error("example -o y.tflite --no-such-option", "example",
               "arenaplan: example: unexpected argument '--no-such-option'");
  expect_error("example -o afile/x.tflite", "example",
               "arenaplan: afile/x.tflite: cannot create: Not a directory");
  expect_error("example -o adir", "example", "arenaplan: adir: cannot create: Is a directory");
  expect_error("example -o y.tflite --kind x", "example",
               "arenaplan: example: unknown kind 'x' (cnn, mlp)");
  static const char *const bad[] = {"-5", "1e99", "12Q", ""};
  char args[256];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(args, sizeof args, "example -o y.tflite --seed '%s'", bad[i]);
    expect_error(args, "example", "arenaplan: example: --seed needs a non-negative integer");
  }
}

/* serve: its options, and the configuration file like every other input. A build without the
 * server (no AP_SERVE) says so for every use. */
static void test_serve(void) {
  char *err = NULL, *out = NULL;
  cli("serve", &err, &out);
  bool built = !(err && strstr(err, "this build has no server"));
  free(err);
  free(out);
  if (!built) {
    expect_error("serve c.yaml", "serve",
                 "arenaplan: serve: this build has no server (configure with -DAP_SERVE=ON; it "
                 "needs libmicrohttpd-dev, libjansson-dev and libyaml-dev)");
    return;
  }
  expect_error("serve", "serve", "arenaplan: serve: no configuration given");
  expect_error("serve --no-such-option c.yaml", "serve",
               "arenaplan: serve: unknown option --no-such-option");
  expect_error("serve a.yaml b.yaml", "serve",
               "arenaplan: serve: one configuration at a time (got \"b.yaml\" too)");
  expect_error("serve --json c.yaml", "serve", "arenaplan: serve: --json goes with --check");
  static const char *const files[][2] = {
      {"missing.yaml", "cannot open: No such file or directory"},
      {"adir", "is a directory, not a configuration"},
      {"afile/x.yaml", "cannot open: Not a directory"},
      {"fifo.tflite", "not a regular file"},
      {"empty.tflite", "empty configuration (no models)"},
      {"notamodel.tflite", "1: configuration: expected a mapping of keys"},
      {"bad.yaml", "3: unknown key \"modle\" in a model (name, model, threads, pinned, "
                   "idle_timeout, warmup, inplace, stream, strategy, kernels, prepare)"},
      {"nomodel.yaml", "2: model m: missing.tflite: cannot open: No such file or directory"}};
  char args[256], want[512];
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    for (int check = 0; check < 2; check++) {
      snprintf(args, sizeof args, "serve %s%s", check ? "--check " : "", files[i][0]);
      snprintf(want, sizeof want, "arenaplan: %s:%s%s", files[i][0],
               files[i][1][0] >= '0' && files[i][1][0] <= '9' ? "" : " ", files[i][1]);
      expect_error(args, "serve", want);
    }
  }
}

static void test_pool(void) {
  expect_error("pool m.tflite", "pool", "arenaplan: pool: --budget SIZE is required");
  expect_error("pool --budget 1M", "pool", "arenaplan: pool: no model given");
  expect_error("pool --budget 1M m.tflite --no-such-option", "pool",
               "arenaplan: pool: unknown option --no-such-option");
  expect_error("pool --budget 1M --trace", "pool", "arenaplan: pool: --trace needs a value");
  expect_error("pool --budget 1M --idle 5 m.tflite", "pool",
               "arenaplan: pool: --idle applies to a --trace replay");
  static const char *const bad[] = {"-5", "1e99", "12Q", "", "0"};
  char args[256], want[256];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(args, sizeof args, "pool --budget '%s' m.tflite", bad[i]);
    snprintf(want, sizeof want,
             "arenaplan: pool: --budget \"%s\": expected a size above 0, like 76800, 75K, 1.5M",
             bad[i]);
    expect_error(args, "pool", want);
    if (strcmp(bad[i], "0") == 0) continue;
    snprintf(args, sizeof args, "pool --budget 1M --trace ok.csv --idle '%s' m.tflite", bad[i]);
    snprintf(want, sizeof want, "arenaplan: pool: --idle \"%s\": expected seconds (0 to 1e9)",
             bad[i]);
    expect_error(args, "pool", want);
  }
  static const char *const models[][2] = {
      {"empty.tflite", "empty file (0 bytes)"},
      {"adir", "is a directory, not a model file"},
      {"afile/x.tflite", "cannot open: Not a directory"},
      {"missing.tflite", "cannot open: No such file or directory"},
      {"fifo.tflite", "not a regular file"},
      {"notamodel.tflite", "*"}};
  for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
    snprintf(args, sizeof args, "pool --budget 1M m.tflite %s", models[i][0]);
    snprintf(want, sizeof want, "arenaplan: %s: %s", models[i][0], models[i][1]);
    expect_error(args, "pool", want);
  }
  /* Traces: m.tflite's name is "m". */
  expect_error("pool --budget 1M --trace missing.csv m.tflite", "pool",
               "arenaplan: missing.csv: cannot open: No such file or directory");
  expect_error("pool --budget 1M --trace adir m.tflite", "pool",
               "arenaplan: adir: is a directory, not a trace file");
  expect_error("pool --budget 1M --trace fifo.tflite m.tflite", "pool",
               "arenaplan: fifo.tflite: not a regular file");
  expect_error("pool --budget 1M --trace empty.csv m.tflite", "pool",
               "arenaplan: empty.csv: no requests (expected lines of time_ms,model)");
  expect_error("pool --budget 1M --trace ok.csv m.tflite", "pool",
               "arenaplan: ok.csv: line 1: \"id,lower,upper,size\": time_ms is not a "
               "non-negative integer");
  expect_error("pool --budget 1M --trace bad.csv m.tflite", "pool",
               "arenaplan: bad.csv: line 1: unknown model \"0,2,100\" (the models are the files' "
               "names without .tflite)");
}

/* reorder and embed: a model and an output file. */
static void test_model_to_file(const char *c) {
  char args[256], want[256];
  snprintf(args, sizeof args, "%s", c);
  snprintf(want, sizeof want, "arenaplan: %s: no model given", c);
  expect_error(args, c, want);
  snprintf(args, sizeof args, "%s m.tflite", c);
  snprintf(want, sizeof want, "arenaplan: %s: no output file given (-o OUT.tflite)*", c);
  expect_error(args, c, want);
  snprintf(args, sizeof args, "%s m.tflite -o y.tflite --no-such-option", c);
  snprintf(want, sizeof want, "arenaplan: %s: unknown option --no-such-option", c);
  expect_error(args, c, want);
  snprintf(args, sizeof args, "%s m.tflite -o", c);
  snprintf(want, sizeof want, "arenaplan: %s: -o needs a value*", c);
  expect_error(args, c, want);
  snprintf(args, sizeof args, "%s m.tflite other.tflite -o y.tflite", c);
  snprintf(want, sizeof want, "arenaplan: %s: one model at a time (got \"other.tflite\" too)", c);
  expect_error(args, c, want);
  snprintf(args, sizeof args, "%s empty.tflite -o y.tflite", c);
  expect_error(args, c, "arenaplan: empty.tflite: empty file (0 bytes)");
  snprintf(args, sizeof args, "%s adir -o y.tflite", c);
  expect_error(args, c, "arenaplan: adir: is a directory, not a model file");
  snprintf(args, sizeof args, "%s missing.tflite -o y.tflite", c);
  expect_error(args, c, "arenaplan: missing.tflite: cannot open: No such file or directory");
  snprintf(args, sizeof args, "%s notamodel.tflite -o y.tflite", c);
  expect_error(args, c, "arenaplan: notamodel.tflite: *");
  snprintf(args, sizeof args, "%s m.tflite -o afile/x.tflite", c);
  expect_error(args, c, "arenaplan: afile/x.tflite: cannot write: Not a directory");
  snprintf(args, sizeof args, "%s m.tflite -o adir", c);
  expect_error(args, c, "arenaplan: adir: cannot write: Is a directory");
  if (strcmp(c, "reorder") == 0) {
    static const char *const bad[] = {"-5", "1e99", "12Q", "", "0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      snprintf(args, sizeof args, "reorder m.tflite -o y.tflite --search-budget '%s'", bad[i]);
      snprintf(want, sizeof want, "arenaplan: reorder: --search-budget \"%s\": expected seconds",
               bad[i]);
      expect_error(args, c, want);
      snprintf(args, sizeof args, "reorder m.tflite -o y.tflite --beam '%s'", bad[i]);
      snprintf(want, sizeof want, "arenaplan: reorder: --beam \"%s\": expected a positive integer",
               bad[i]);
      expect_error(args, c, want);
    }
  } else {
    expect_error("embed m.tflite -o y.tflite --strategy nope", c,
                 "arenaplan: embed: unknown strategy \"nope\"; one of:*");
    expect_error("embed m.tflite --check -o y.tflite", c,
                 "arenaplan: embed: --check writes nothing: no -o");
    expect_error("embed m.tflite --check", c,
                 "arenaplan: m.tflite: carries no OfflineMemoryAllocation metadata");
  }
}

static void test_diff(void) {
  const char *c = "diff";
  expect_error("diff", c, "arenaplan: diff: two models needed (A.tflite B.tflite)");
  expect_error("diff m.tflite", c, "arenaplan: diff: two models needed (A.tflite B.tflite)");
  expect_error("diff m.tflite other.tflite m.tflite", c,
               "arenaplan: diff: two models (got \"m.tflite\" too)");
  expect_error("diff m.tflite other.tflite --no-such-option", c,
               "arenaplan: diff: unknown option --no-such-option");
  expect_error("diff m.tflite empty.tflite", c, "arenaplan: empty.tflite: empty file (0 bytes)");
  expect_error("diff adir m.tflite", c, "arenaplan: adir: is a directory, not a model file");
  expect_error("diff m.tflite missing.tflite", c,
               "arenaplan: missing.tflite: cannot open: No such file or directory");
  expect_error("diff m.tflite fifo.tflite", c, "arenaplan: fifo.tflite: not a regular file");
  expect_error("diff notamodel.tflite m.tflite", c, "arenaplan: notamodel.tflite: *");
  static const char *const bad[] = {"-5", "1e99", "12Q", "", "0", "1001"};
  char args[256], want[256];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(args, sizeof args, "diff m.tflite other.tflite --seeds '%s'", bad[i]);
    snprintf(want, sizeof want, "arenaplan: diff: --seeds \"%s\": expected 1 to 1000", bad[i]);
    expect_error(args, c, want);
  }
  static const char *const real[] = {"-1", "nan", "inf", "", "0x1p3", "1e99x"};
  for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
    snprintf(args, sizeof args, "diff m.tflite other.tflite --max-error '%s'", real[i]);
    snprintf(want, sizeof want, "arenaplan: diff: --max-error \"%s\": expected a number >= 0",
             real[i]);
    expect_error(args, c, want);
    snprintf(args, sizeof args, "diff m.tflite other.tflite --min-iou '%s'", real[i]);
    snprintf(want, sizeof want, "arenaplan: diff: --min-iou \"%s\": expected a number from 0 to 1",
             real[i]);
    expect_error(args, c, want);
  }
  expect_error("diff m.tflite other.tflite --min-iou 1.5", c,
               "arenaplan: diff: --min-iou \"1.5\": expected a number from 0 to 1");
  expect_error("diff m.tflite other.tflite --score-threshold 2", c,
               "arenaplan: diff: --score-threshold \"2\": expected a number from 0 to 1");
}

static void write_file(const char *name, const char *text) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/ap_cli_misuse_XXXXXX");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  char cmd[512], path[128];
  snprintf(cmd, sizeof cmd,
           "cd %s && %s example -o m.tflite >/dev/null && cp m.tflite other.tflite", dir,
           ap_test_cli());
  CHECK_EQ(ap_test_run(cmd, true, NULL), 0);
  write_file("empty.tflite", "");
  write_file("empty.csv", "");
  write_file("header.csv", "id,lower,upper,size\n");
  write_file("ok.csv", "id,lower,upper,size\n0,0,2,100\n1,1,3,50\n");
  write_file("bad.csv", "0,0,2,100\n1,x,3,50\n");
  write_file("afile", "not a directory\n");
  write_file("notamodel.tflite", "this is text, not a FlatBuffer with TFL3\n");
  write_file("locked.tflite", "x");
  write_file("bad.yaml", "budget: 1M\nmodels:\n  - {name: m, modle: m.tflite}\n");
  write_file("nomodel.yaml", "budget: 1M\nmodels: [{name: m, model: missing.tflite}]\n");
  snprintf(path, sizeof path, "%s/locked.tflite", dir);
  chmod(path, 0);
  snprintf(path, sizeof path, "%s/adir", dir);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/fifo.tflite", dir);
  CHECK_EQ(mkfifo(path, 0600), 0);

  expect_error("", "", "arenaplan: no command or model given (see 'arenaplan --help')");
  expect_error("no-such-command", "",
               "arenaplan: no-such-command: unknown command (see 'arenaplan --help')");
  expect_error("--no-such-option", "",
               "arenaplan: --no-such-option: unknown command (see 'arenaplan --help')");
  expect_error("help no-such-command", "",
               "arenaplan: no-such-command: unknown command (see 'arenaplan --help')");

  char names[32][32];
  size_t n = listed_commands(names, 32);
  CHECK(n >= 6);
  for (size_t i = 0; i < n; i++) {
    const char *c = names[i];
    if (strcmp(c, "info") == 0 || strcmp(c, "plan") == 0 || strcmp(c, "compare") == 0 ||
        strcmp(c, "headline") == 0 || strcmp(c, "report") == 0 || strcmp(c, "header") == 0 ||
        strcmp(c, "run") == 0 || strcmp(c, "stress") == 0 || strcmp(c, "tflm") == 0)
      model_command(c);
    else if (strcmp(c, "solve") == 0)
      test_solve();
    else if (strcmp(c, "diff") == 0)
      test_diff();
    else if (strcmp(c, "example") == 0)
      test_example();
    else if (strcmp(c, "pool") == 0)
      test_pool();
    else if (strcmp(c, "serve") == 0)
      test_serve();
    else if (strcmp(c, "reorder") == 0 || strcmp(c, "embed") == 0)
      test_model_to_file(c);
    else if (strcmp(c, "ops") == 0) { /* takes no model */
      expect_error("ops m.tflite", c, "arenaplan: ops: unexpected argument 'm.tflite'");
      expect_error("ops --json --tensors", c, "arenaplan: ops: unexpected argument '--tensors'");
    } else /* a new subcommand: add its misuse cases here */
      CHECK_MSG(false, "subcommand '%s' has no misuse tests", c);
  }
  test_plan_sizes();
  /* The headline without a subcommand: a path-like first argument. */
  expect_error("empty.tflite", "headline", "arenaplan: empty.tflite: empty file (0 bytes)");
  expect_error("adir/", "headline", "arenaplan: adir/: is a directory, not a model file");

  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ap_test_run(cmd, true, NULL);
  return ap_test_done();
}
