/* fuzz_serve_config: the server's YAML configuration from untrusted text: accepted, or refused
 * with a message naming the line; never a crash or a leak. */
#include "arenaplan/serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size ? size : 1);
  if (!text) return 0;
  if (size) memcpy(text, data, size);
  ap_serve_config *c = NULL;
  char err[512];
  ap_status st =
      ap_serve_config_parse(text, size, "fuzz.yaml", "/nonexistent", &c, err, sizeof err);
  if (st != AP_OK && (!err[0] || c)) {
    fprintf(stderr, "fuzz_serve_config: failure without a message, or a config left\n");
    abort();
  }
  if (st == AP_OK && (!c || !c->model_count || !c->listen || !c->budget_bytes)) {
    fprintf(stderr, "fuzz_serve_config: an accepted configuration without models or budget\n");
    abort();
  }
  ap_serve_config_free(c);
  free(text);
  return 0;
}
