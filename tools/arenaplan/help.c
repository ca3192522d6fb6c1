/* The CLI's help: the commands in groups, one example per command, and the nearest option or
 * command to a mistyped one. Kept apart from the commands so that a new command needs only
 * its line in a group and its example here (or an "example:" in its own usage). */
#include "commands.h"

#include <ctype.h>
#include <string.h>

/* Groups by what the user wants; a command in no group is listed under "other". */
typedef struct help_group {
  const char *title;
  const char *names[8];
} help_group;

static const help_group groups[] = {
    {"will it fit? (from the file alone)",
     {"headline", "info", "plan", "compare", "report", "ops"}},
    {"TensorFlow Lite Micro and firmware", {"tflm", "header", "embed"}},
    {"run it", {"run", "diff", "stress", "pool", "serve"}},
    {"make it smaller, plan anything", {"reorder", "solve"}},
    {"other", {"example"}},
};

/* One example per command, each a command line that works as written beside the models of
 * ../shared/models (tests/cli/test_help.py runs every one of them there). */
typedef struct help_example {
  const char *name, *line;
} help_example;

static const help_example examples[] = {
    {"headline", "arenaplan mlperf_vww_int8.tflite"},
    {"info", "arenaplan info person_detect_int8.tflite --ops"},
    {"plan", "arenaplan plan person_detect_int8.tflite --budget 64K --inplace"},
    {"compare", "arenaplan compare mlperf_vww_int8.tflite"},
    {"solve", "arenaplan solve problem.csv --out plan.csv"},
    {"report", "arenaplan report person_detect_int8.tflite --html person_detect.html"},
    {"header", "arenaplan header person_detect_int8.tflite --inplace > person_detect_arena.h"},
    {"run", "arenaplan run person_detect_int8.tflite --iterations 5 --threads 2"},
    {"diff", "arenaplan diff hello_world_float.tflite hello_world_int8.tflite --max-error 0.1"},
    {"stress", "arenaplan stress hello_world_int8.tflite --iterations 2"},
    {"tflm", "arenaplan tflm hello_world_int8.tflite --target mcu32"},
    {"pool", "arenaplan pool --budget 512K person_detect_int8.tflite micro_speech_int8.tflite"},
    {"reorder", "arenaplan reorder resource_vars_fc.tflite -o reordered.tflite"},
    {"embed", "arenaplan embed mlperf_vww_int8.tflite -o vww_planned.tflite"},
    {"ops", "arenaplan ops --json"},
    {"example", "arenaplan example -o model.tflite --kind mlp"},
};

const char *cli_example(const ap_command *cmd) {
  for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++)
    if (strcmp(examples[i].name, cmd->name) == 0) return examples[i].line;
  return NULL;
}

void cli_print_help(const ap_command *cmd, FILE *f) {
  fputs(cmd->usage, f);
  const char *ex = cli_example(cmd);
  /* A usage that carries its own "example:" keeps it; ours is added to the others. */
  if (ex && !strstr(cmd->usage, "\nexample")) fprintf(f, "\nexample:\n  %s\n", ex);
}

static const ap_command *by_name(const char *name) {
  for (size_t i = 0; ap_commands[i]; i++)
    if (strcmp(ap_commands[i]->name, name) == 0) return ap_commands[i];
  return NULL;
}

static bool grouped(const char *name) {
  for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
    for (size_t k = 0; k < 8 && groups[g].names[k]; k++)
      if (strcmp(groups[g].names[k], name) == 0) return true;
  return false;
}

void cli_print_overview(FILE *f) {
  fprintf(f, "usage: arenaplan MODEL              the headline: arena, lower bound, weights, IO\n"
             "       arenaplan COMMAND [ARGS...]  (arenaplan COMMAND --help for each)\n");
  for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
    fprintf(f, "\n%s:\n", groups[g].title);
    for (size_t k = 0; k < 8 && groups[g].names[k]; k++) {
      const ap_command *c = by_name(groups[g].names[k]);
      if (c) fprintf(f, "  %-10s %s\n", c->name, c->summary);
    }
    if (strcmp(groups[g].title, "other") == 0) {
      for (size_t i = 0; ap_commands[i]; i++)
        if (!grouped(ap_commands[i]->name))
          fprintf(f, "  %-10s %s\n", ap_commands[i]->name, ap_commands[i]->summary);
      fprintf(f, "  %-10s %s\n", "help", "help COMMAND: the usage of one command");
      fprintf(f, "  %-10s %s\n", "version", "the library version");
    }
  }
  fprintf(f, "\nexit status: 0 success, 1 a failed check (does not fit, outputs differ), 2 bad\n"
             "usage or input. Sizes accept 76800, 75K, 1.5M. See man arenaplan and docs/.\n");
}

/* Edit distance (insert, delete, substitute, each 1) of two short strings; large past 63. */
static size_t distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 63 || lb > 63) return 64;
  size_t row[64];
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

/* The candidate nearest to word within a distance of a third of its length (at least 2), or
 * the only candidate word is a prefix of; NULL when none is near. */
static const char *nearest(const char *word, const char *const *cands, size_t n) {
  const char *best = NULL, *prefixed = NULL;
  size_t best_d = strlen(word) / 3 > 2 ? strlen(word) / 3 : 2, prefixes = 0;
  for (size_t i = 0; i < n; i++) {
    size_t d = distance(word, cands[i]);
    if (d <= best_d && (!best || d < best_d)) best = cands[i], best_d = d;
    if (strncmp(cands[i], word, strlen(word)) == 0) prefixed = cands[i], prefixes++;
  }
  return best ? best : prefixes == 1 ? prefixed : NULL;
}

/* The options a usage text names ("--tensors", "--what-if"), deduplicated, in buf. */
static size_t usage_options(const char *usage, char buf[][40], size_t max) {
  size_t n = 0;
  for (const char *p = strstr(usage, "--"); p && n < max; p = strstr(p + 2, "--")) {
    if (p > usage && (p[-1] == '-' || p[-1] == '_' || isalnum((unsigned char)p[-1]))) continue;
    size_t len = 2;
    while (len < 39 && (islower((unsigned char)p[len]) || isdigit((unsigned char)p[len]) ||
                        (p[len] == '-' && islower((unsigned char)p[len + 1]))))
      len++;
    if (len == 2) continue;
    bool seen = false;
    for (size_t k = 0; k < n && !seen; k++)
      seen = strncmp(buf[k], p, len) == 0 && !buf[k][len];
    if (seen) continue;
    memcpy(buf[n], p, len);
    buf[n++][len] = '\0';
  }
  return n;
}

const char *cli_suggest_option(const ap_command *cmd, const char *arg) {
  static char opts[96][40];
  const char *cands[96];
  if (!arg || arg[0] != '-') return NULL;
  char word[40];
  size_t len = strcspn(arg, "=");
  if (len >= sizeof word) return NULL;
  memcpy(word, arg, len);
  word[len] = '\0';
  if (word[1] != '-') { /* "-tensors": one dash where two were meant */
    if (len + 1 >= sizeof word) return NULL;
    memmove(word + 1, word, len + 1);
  }
  size_t n = usage_options(cmd->usage, opts, 96);
  for (size_t i = 0; i < n; i++)
    cands[i] = opts[i];
  const char *s = nearest(word, cands, n);
  return s && strcmp(s, arg) != 0 ? s : NULL;
}

const char *cli_suggest_command(const char *name) {
  const char *cands[64];
  size_t n = 0;
  for (size_t i = 0; ap_commands[i] && n < 62; i++)
    cands[n++] = ap_commands[i]->name;
  cands[n++] = "help";
  cands[n++] = "version";
  return nearest(name, cands, n);
}
