/* TFLite Micro agrees bit for bit: for each of the 18 models the oracle has, and every seed in
 * shared/oracle/tflm/MANIFEST.tsv, our inputs (the README's rule) equal the oracle's input
 * files and our outputs equal its output files, byte for byte. One fresh interpreter per
 * (model, seed), as the oracle did; the default strategy. */
#include "oracle.h"

typedef struct row {
  char *model, *kind, *dtype, *shape, *file;
  long seed, index, bytes;
} row;

static const char *shape_of(char *buf, size_t size, const ap_tensor *t) {
  size_t o = (size_t)snprintf(buf, size, "[");
  for (int d = 0; d < t->rank && o < size; d++)
    o += (size_t)snprintf(buf + o, size - o, "%s%d", d ? "," : "", (int)t->dims[d]);
  if (o < size) snprintf(buf + o, size - o, "]");
  return buf;
}

static const char *dtype_lower(char *buf, size_t size, int type) {
  const char *n = ap_dtype_name(type);
  size_t i = 0;
  for (; n[i] && i + 1 < size; i++)
    buf[i] = (char)(n[i] >= 'A' && n[i] <= 'Z' ? n[i] + 32 : n[i]);
  buf[i] = '\0';
  return buf;
}

/* Checks one manifest row against the tensor it names. */
static void check_row(const row *r, const ap_tensor *t) {
  char shape[128], type[32];
  CHECK_MSG(t != NULL, "%s: no %s %ld", r->file, r->kind, r->index);
  if (!t) return;
  CHECK_MSG(strcmp(shape_of(shape, sizeof shape, t), r->shape) == 0, "%s: shape %s, oracle %s",
            r->file, shape, r->shape);
  CHECK_MSG(strcmp(dtype_lower(type, sizeof type, t->type), r->dtype) == 0,
            "%s: type %s, oracle %s", r->file, type, r->dtype);
  CHECK_MSG((long)t->bytes == r->bytes, "%s: %zu bytes, oracle %ld", r->file, t->bytes, r->bytes);
  oracle_compare(r->file, t->data, t->bytes);
}

/* Runs one (model, seed): rows[0..n) are its manifest rows. */
static void run_seed(const ap_model *m, const row *rows, size_t n) {
  ap_interpreter *it = oracle_interpreter(m, rows[0].model, NULL, false);
  if (!it) return;
  size_t ins = 0, outs = 0;
  for (size_t k = 0; k < ap_interpreter_input_count(it); k++)
    oracle_fill(oracle_input(it, k, &(ap_tensor){0}), (uint64_t)rows[0].seed, k);
  /* Inputs before invoke: the plan may reuse an input's bytes once it has been read. */
  for (size_t i = 0; i < n; i++)
    if (strcmp(rows[i].kind, "input") == 0) {
      check_row(&rows[i], oracle_input(it, (size_t)rows[i].index, &(ap_tensor){0}));
      ins++;
    }
  ap_status s = ap_interpreter_invoke(it);
  CHECK_MSG(s == AP_OK, "%s seed %ld: %s", rows[0].model, rows[0].seed, ap_interpreter_error(it));
  for (size_t i = 0; s == AP_OK && i < n; i++)
    if (strcmp(rows[i].kind, "output") == 0) {
      check_row(&rows[i], oracle_output(it, (size_t)rows[i].index, &(ap_tensor){0}));
      outs++;
    }
  CHECK_EQ(ins, ap_interpreter_input_count(it));
  if (s == AP_OK) CHECK_EQ(outs, ap_interpreter_output_count(it));
  ap_interpreter_destroy(it);
}

int main(void) {
  ap_test_require_shared();
  char *text = oracle_tsv("MANIFEST.tsv");
  if (!text) return ap_test_done();
  row *rows = calloc(4096, sizeof *rows);
  size_t n = 0;
  char *save = NULL;
  strtok_r(text, "\n", &save); /* the header */
  for (char *line; rows && (line = strtok_r(NULL, "\n", &save)) && n < 4096;) {
    char *f[10];
    if (oracle_fields(line, f, 10) != 10 || !oracle_is_model(f[0])) continue;
    rows[n++] = (row){f[0], f[2], f[5], f[6], f[9], atol(f[1]), atol(f[3]), atol(f[7])};
  }
  /* The manifest's rows are grouped by model then seed. */
  size_t seeds = 0, models = 0;
  for (size_t mi = 0; mi < ORACLE_MODEL_COUNT; mi++) {
    ap_model *m = oracle_open(oracle_models[mi]);
    size_t model_seeds = 0;
    for (size_t i = 0; m && i < n;) {
      size_t j = i;
      while (j < n && strcmp(rows[j].model, rows[i].model) == 0 && rows[j].seed == rows[i].seed)
        j++;
      /* Under ASan (unoptimised, ~10x slower) mobilenet_v2 runs seed 1 only: ~10 s each. */
      bool skip = ORACLE_SANITIZED && rows[i].seed > 1 &&
                  strcmp(rows[i].model, "mobilenet_v2_torch_int8") == 0;
      if (strcmp(rows[i].model, oracle_models[mi]) == 0) {
        if (!skip) run_seed(m, rows + i, j - i);
        model_seeds++;
      }
      i = j;
    }
    /* Every one of these models has seeds 1, 2 and 3 in the oracle. */
    CHECK_MSG(model_seeds == 3, "%s: %zu seeds", oracle_models[mi], model_seeds);
    seeds += model_seeds;
    models += m != NULL;
    ap_model_destroy(m);
  }
  printf("oracle: %zu models, %zu (model, seed) runs, %zu manifest rows\n", models, seeds, n);
  CHECK_EQ(seeds, 3 * ORACLE_MODEL_COUNT);
  free(rows);
  free(text);
  return ap_test_done();
}
