/* The reordered model, shared by `reorder`, `plan --reorder` and `report --reorder`. */
#include "reorder_cli.h"

#include <string.h>

bool cli_reorder(const char *path, const ap_model *m, const ap_reorder_options *o,
                 cli_reordered *out) {
  memset(out, 0, sizeof *out);
  if (ap_reorder_create(m, o, NULL, &out->r) != AP_OK) {
    cli_fail(path, "%s", cli_unprefixed(path, ap_reorder_error(out->r)));
    cli_reordered_free(out);
    return false;
  }
  if (!ap_reorder_changed(out->r)) return true;
  size_t n;
  const uint32_t *order = ap_reorder_order(out->r, &n);
  if (ap_model_patch_order(m, order, n, NULL, &out->patch) != AP_OK) {
    cli_fail(path, "%s", cli_unprefixed(path, out->patch.error));
    cli_reordered_free(out);
    return false;
  }
  if (ap_model_from_buffer(out->patch.bytes, out->patch.size, path, NULL, &out->model) != AP_OK) {
    cli_fail(path, "the reordered model does not load: %s",
             cli_unprefixed(path, ap_model_error(out->model)));
    cli_reordered_free(out);
    return false;
  }
  return true;
}

const ap_model *cli_reordered_model(const cli_reordered *x, const ap_model *m) {
  return x->model ? x->model : m;
}

void cli_reordered_free(cli_reordered *x) {
  ap_model_destroy(x->model);
  ap_model_patch_free(&x->patch, NULL);
  ap_reorder_destroy(x->r);
  memset(x, 0, sizeof *x);
}

void cli_reorder_line(FILE *f, const cli_reordered *x) {
  uint64_t before = 0, after = 0;
  for (size_t sg = 0; sg < ap_reorder_subgraph_count(x->r); sg++) {
    ap_reorder_subgraph in;
    if (ap_reorder_subgraph_info(x->r, sg, &in) != AP_OK) continue;
    if (in.peak_before > before) before = in.peak_before;
    if (in.peak_after > after) after = in.peak_after;
  }
  char a[64], b[64];
  if (ap_reorder_changed(x->r))
    fprintf(f, "order:        reordered, %s search (peak of live bytes %s -> %s)\n",
            ap_reorder_method(x->r), cli_thousands(a, sizeof a, before),
            cli_thousands(b, sizeof b, after));
  else
    fprintf(f, "order:        stored order kept (%s)\n",
            strcmp(ap_reorder_method(x->r), "exact") == 0 ? "proven optimal"
                                                          : "the search found no better one");
}
