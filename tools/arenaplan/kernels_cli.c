/* --kernels and --small-scratch, shared by run, report and header. */
#include "kernels_cli.h"

#include <string.h>

int cli_kernels_arg(const ap_command *cmd, int argc, char **argv, int *i, cli_kernels *k) {
  const char *arg = argv[*i], *v;
  if (strcmp(arg, "--kernels") == 0) {
    if (!(v = cli_value(cmd, argc, argv, i))) return -1;
    if (strcmp(v, "fast") == 0)
      k->kernels = AP_KERNELS_FAST;
    else if (strcmp(v, "auto") == 0)
      k->kernels = AP_KERNELS_AUTO;
    else if (strcmp(v, "small") == 0)
      k->kernels = AP_KERNELS_SMALL;
    else if (strcmp(v, "reference") == 0)
      k->kernels = AP_KERNELS_REFERENCE;
    else {
      cli_usage_error(cmd, "--kernels \"%s\": expected auto, fast, small or reference", v);
      return -1;
    }
    return 1;
  }
  if (strcmp(arg, "--small-scratch") == 0) {
    if (!(v = cli_value(cmd, argc, argv, i))) return -1;
    if (!cli_parse_size(v, &k->small) || k->small == 0 || k->small > SIZE_MAX / 2) {
      cli_usage_error(cmd, "--small-scratch \"%s\": expected a size in bytes (4096, 8K)", v);
      return -1;
    }
    k->kernels = AP_KERNELS_SMALL;
    return 1;
  }
  return 0;
}

int cli_budget_arg(const ap_command *cmd, int argc, char **argv, int *i, cli_kernels *k) {
  const char *v;
  if (strcmp(argv[*i], "--budget") == 0) {
    if (!(v = cli_value(cmd, argc, argv, i))) return -1;
    if (!cli_parse_size(v, &k->budget) || k->budget == 0) {
      cli_usage_error(cmd, "--budget \"%s\": expected a size in bytes (76800, 75K, 1.5M)", v);
      return -1;
    }
    k->kernels = AP_KERNELS_AUTO;
    return 1;
  }
  return 0;
}

const char *cli_kernels_name(int kernels) {
  return kernels == AP_KERNELS_REFERENCE ? "reference"
         : kernels == AP_KERNELS_SMALL   ? "small"
         : kernels == AP_KERNELS_FAST    ? "fast"
                                         : "auto";
}
