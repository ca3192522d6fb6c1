/* arenaplan: the CLI entry point. Dispatches to one file per subcommand. */
#include "commands.h"

#include <string.h>

/* Each subcommand lives in cmd_NAME.c; add it here to make it reachable. */
extern const ap_command cmd_headline, cmd_info, cmd_plan, cmd_compare, cmd_solve, cmd_example,
    cmd_tflm, cmd_run, cmd_report, cmd_header, cmd_stress, cmd_pool, cmd_reorder, cmd_embed,
    cmd_ops, cmd_diff, cmd_serve;

const ap_command *const ap_commands[] = {
    &cmd_info,  &cmd_plan, &cmd_compare, &cmd_solve,    &cmd_report, &cmd_header,
    &cmd_run,   &cmd_diff, &cmd_stress,  &cmd_tflm,     &cmd_pool,   &cmd_reorder,
    &cmd_embed, &cmd_ops,  &cmd_serve,   &cmd_example, &cmd_headline, NULL,
};

static const ap_command *find(const char *name) {
  for (size_t i = 0; ap_commands[i]; i++)
    if (strcmp(ap_commands[i]->name, name) == 0) return ap_commands[i];
  return NULL;
}

static int unknown_command(const char *name) {
  const char *near = name[0] != '-' ? cli_suggest_command(name) : NULL;
  if (near) return cli_fail(name, "unknown command (did you mean %s?)", near);
  return cli_fail(name, "unknown command (see 'arenaplan --help')");
}

int main(int argc, char **argv) {
  if (argc < 2) { /* bad usage: one error line, like every other; --help prints the usage */
    fputs("arenaplan: no command or model given (see 'arenaplan --help')\n", stderr);
    return AP_EXIT_USAGE;
  }
  const char *name = argv[1];
  if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
    cli_print_overview(stdout);
    return AP_EXIT_OK;
  }
  if (strcmp(name, "version") == 0 || strcmp(name, "--version") == 0) {
    printf("arenaplan %s\n", ap_version());
    return AP_EXIT_OK;
  }
  if (strcmp(name, "help") == 0) {
    if (argc < 3) {
      cli_print_overview(stdout);
      return AP_EXIT_OK;
    }
    const ap_command *c = find(argv[2]);
    if (!c) return unknown_command(argv[2]);
    cli_print_help(c, stdout);
    return AP_EXIT_OK;
  }
  const ap_command *c = find(name);
  if (c) return c->run(argc - 1, argv + 1);
  const ap_command *headline = find("headline");
  if (name[0] != '-' && headline && (strchr(name, '.') || strchr(name, '/')))
    return headline->run(argc, argv);
  return unknown_command(name);
}
