/* fuzz_cli_suggest: the CLI's "did you mean" from untrusted argv words: the nearest option of a
 * command's usage to a mistyped one, the nearest command, and the option an error message is
 * about. The CLI's help.c and cli.c are compiled in, over a small command table of our own. */
#include "../tools/arenaplan/cli.c"
#include "../tools/arenaplan/help.c"

#include "fuzz_common.h"

static int run_none(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return 0;
}

static const ap_command fuzz_plan = {
    "plan", "plan", run_none,
    "usage: arenaplan plan MODEL [options]\n"
    "  --strategy S  ...\n  --tensors  --what-if int8  --budget SIZE  --json\n"};
static const ap_command fuzz_run = {"run", "run", run_none,
                                    "usage: arenaplan run MODEL [--iterations N] [--input "
                                    "random|FILE...] [--small-scratch SIZE] [--json]\n"};
const ap_command *const ap_commands[] = {&fuzz_plan, &fuzz_run, NULL};
const ap_command cmd_solve = {"solve", "solve", run_none, "usage: arenaplan solve CSV\n"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char word[256], msg[300], opt[64];
  size_t n = size < sizeof word - 1 ? size : sizeof word - 1;
  memcpy(word, data, n);
  word[n] = '\0';
  for (size_t i = 0; ap_commands[i]; i++) {
    const char *s = cli_suggest_option(ap_commands[i], word);
    /* A suggestion is one of the usage's options, never the word itself. */
    if (s && (strncmp(s, "--", 2) != 0 || !strstr(ap_commands[i]->usage, s) || !strcmp(s, word)))
      fuzz_die("suggest", "a suggestion that is not an other option of the usage");
  }
  const char *c = cli_suggest_command(word);
  if (c && strcmp(c, "plan") && strcmp(c, "run") && strcmp(c, "help") && strcmp(c, "version"))
    fuzz_die("suggest", "a command that is not in the table");
  snprintf(msg, sizeof msg, "unknown option %s", word);
  const char *bad = rejected_option(msg, opt, sizeof opt);
  if (bad && (bad[0] != '-' || strlen(bad) >= sizeof opt))
    fuzz_die("suggest", "a rejected option that does not start with '-'");
  return 0;
}
