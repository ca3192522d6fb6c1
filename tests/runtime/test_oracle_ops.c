/* TFLite Micro's whole op set: every model in shared/oracle/ops (one model per (op, type) pair,
 * and real test models from LiteRT, TFLM and Coral), every seed, byte for byte; and every
 * seanet model fed its upstream input CSV gives its golden CSV (TFLM's .bin where the oracle
 * README says TFLM is 1 LSB off TFLite's golden).
 *
 * A model this runtime does not run yet is listed in oracle_ops_refused.tsv with the reason
 * allocate gives. The list is a ratchet: a model that is refused but not listed fails, and so
 * does a listed model that now runs (take it off the list). A wrong output always fails.
 *
 * AP_ORACLE_OPS=name runs one model; AP_ORACLE_OPS_LIST=1 prints every refusal with its
 * message (for keeping the list true). */
#include "oracle.h"

typedef struct row {
  char *model, *kind, *sha256;
  long seed, index;
} row;

void ap_sha256_hex(const void *data, size_t size, char out[65]); /* src/report/sha256.c */

static char *read_text(const char *path) {
  size_t n = 0;
  uint8_t *text = ap_test_read_file(path, &n);
  if (!text) return NULL;
  char *s = malloc(n + 1);
  if (s) {
    memcpy(s, text, n);
    s[n] = '\0';
  }
  free(text);
  return s;
}

/* The refused list: "model<TAB>reason" lines; '#' starts a comment. */
typedef struct refused {
  char *model;
  bool seen;
} refused;

static refused *find_refused(refused *r, size_t n, const char *model) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(r[i].model, model) == 0) return &r[i];
  return NULL;
}

static size_t by_hash; /* comparisons made by the manifest's sha256 */

static void compare_file(const row *r, const void *data, size_t bytes) {
  char path[4096], file[512];
  /* The manifest's `file` column keeps the upstream name (add.bin...); the files are named
   * MODEL.seedS.kindK.bin. */
  snprintf(file, sizeof file, "%s.seed%ld.%s%ld.bin", r->model, r->seed, r->kind, r->index);
  size_t n = 0;
  uint8_t *want = ap_test_read_file(ap_test_path(path, sizeof path, "oracle/ops/%s", file), &n);
  if (!want) {
    /* shared/ lacks the .bin files of 106 models; the manifest's sha256 of each still holds
     * TFLite Micro's bytes. */
    char hex[65];
    ap_sha256_hex(data, bytes, hex);
    CHECK_MSG(strcmp(hex, r->sha256) == 0, "%s: sha256 %s, oracle %s", file, hex, r->sha256);
    by_hash++;
    return;
  }
  CHECK_MSG(n == bytes, "%s: %zu bytes, ours %zu", file, n, bytes);
  if (n == bytes && bytes && memcmp(want, data, n) != 0) {
    size_t i = 0;
    while (((const uint8_t *)data)[i] == want[i])
      i++;
    CHECK_MSG(0, "%s: differs first at byte %zu of %zu (0x%02x, oracle 0x%02x)", file, i, n,
              ((const uint8_t *)data)[i], want[i]);
  } else if (n == bytes) {
    ap_test_passed++;
  }
  free(want);
}

/* Parses a CSV of integers into int32 values; returns the count (at most max). */
static size_t parse_csv32(const char *text, int32_t *v, size_t max) {
  size_t n = 0;
  const char *p = text;
  while (*p && n < max) {
    char *end;
    long x = strtol(p, &end, 10);
    if (end == p) {
      p++;
      continue;
    }
    v[n++] = (int32_t)x;
    p = end;
  }
  return n;
}

/* The same into int16 values. */
static size_t parse_csv16(const char *text, int16_t *v, size_t max) {
  int32_t *w = calloc(max ? max : 1, sizeof *w);
  size_t n = w ? parse_csv32(text, w, max) : 0;
  for (size_t i = 0; i < n; i++)
    v[i] = (int16_t)w[i];
  free(w);
  return n;
}

static bool golden_exact(const char *model) {
  /* TFLM is 1 LSB off TFLite's golden CSV on these two (oracle/ops/README.md). */
  return strcmp(model, "seanet_sub0") != 0 && strcmp(model, "seanet_sub3") != 0;
}

/* Feeds the seanet model its upstream CSV inputs; compares with the golden CSV. */
static void seanet_golden(ap_interpreter *it, const char *model) {
  char path[4096];
  ap_test_path(path, sizeof path, "oracle/ops/%s_golden_int16.csv", model);
  char *golden = read_text(path);
  if (!golden) return; /* not every seanet model has CSVs */
  for (size_t k = 0; k < ap_interpreter_input_count(it); k++) {
    ap_tensor t;
    CHECK(oracle_input(it, k, &t) != NULL);
    bool wide = t.type == AP_INT32; /* transpose_conv's output shape, quantize's int32 input */
    char *in = read_text(ap_test_path(path, sizeof path, "oracle/ops/%s_input%zu_%s.csv", model, k,
                                      wide ? "int32" : "int16"));
    CHECK_MSG(in != NULL, "%s: no input CSV %zu", model, k);
    if (!in) continue;
    size_t count = t.bytes / (wide ? 4 : 2), n = 0;
    int32_t *v = calloc(count + 1, sizeof *v);
    if (v) n = parse_csv32(in, v, count + 1);
    CHECK_MSG(n == count && (wide || t.type == AP_INT16),
              "%s: input %zu has %zu values, tensor %zu", model, k, n, count);
    for (size_t e = 0; v && n == count && e < count; e++) {
      if (wide)
        ((int32_t *)t.data)[e] = v[e];
      else
        ((int16_t *)t.data)[e] = (int16_t)v[e];
    }
    free(v);
    free(in);
  }
  ap_status s = ap_interpreter_invoke(it);
  CHECK_MSG(s == AP_OK, "%s golden: %s", model, ap_interpreter_error(it));
  ap_tensor out;
  if (s == AP_OK && oracle_output(it, 0, &out)) {
    size_t count = out.bytes / 2;
    int16_t *want = calloc(count + 1, 2);
    size_t n = want ? parse_csv16(golden, want, count + 1) : 0;
    CHECK_MSG(n == count, "%s: golden has %zu values, output %zu", model, n, count);
    if (n == count && golden_exact(model)) {
      size_t diff = 0;
      while (diff < count && ((int16_t *)out.data)[diff] == want[diff])
        diff++;
      CHECK_MSG(diff == count, "%s: golden differs at %zu (ours %d, golden %d)", model, diff,
                diff < count ? ((int16_t *)out.data)[diff] : 0, diff < count ? want[diff] : 0);
    } else if (n == count) {
      /* Within 1 LSB of TFLite's golden, as the upstream test accepts. */
      size_t off = 0;
      for (size_t i = 0; i < count; i++) {
        int d = ((int16_t *)out.data)[i] - want[i];
        CHECK_MSG(d >= -1 && d <= 1, "%s: golden %d vs ours %d at %zu", model, want[i],
                  ((int16_t *)out.data)[i], i);
        off += d != 0;
      }
      CHECK_MSG(off > 0, "%s: expected TFLM's 1-LSB differences from the golden", model);
    }
    free(want);
  }
  free(golden);
}

/* One model: every seed's rows in rows[0..n). Returns 1 if it ran, 0 if refused. */
static int run_model(const row *rows, size_t n, refused *list, size_t n_list, bool print) {
  const char *name = rows[0].model;
  char path[4096];
  ap_model *m = NULL;
  ap_test_path(path, sizeof path, "oracle/ops/%s.tflite", name);
  if (ap_model_open(path, NULL, &m) != AP_OK) {
    CHECK_MSG(0, "%s: %s", name, ap_model_error(m));
    ap_model_destroy(m);
    return 0;
  }
  refused *r = find_refused(list, n_list, name);
  int ran = 1;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && rows[j].seed == rows[i].seed)
      j++;
    bool skip = ORACLE_SANITIZED && rows[i].seed > 1; /* ASan: seed 1 shows memory errors */
    ap_interpreter_options o = oracle_options();
    ap_interpreter *it = NULL;
    ap_status s = skip ? AP_OK : ap_interpreter_create(m, &o, &it);
    if (!skip && s == AP_OK) s = ap_interpreter_allocate(it);
    if (!skip && s == AP_OK) {
      for (size_t k = 0; k < ap_interpreter_input_count(it); k++)
        oracle_fill(oracle_input(it, k, &(ap_tensor){0}), (uint64_t)rows[i].seed, k);
      for (size_t q = i; q < j; q++) {
        if (strcmp(rows[q].kind, "input") != 0) continue;
        ap_tensor t;
        CHECK_MSG(oracle_input(it, (size_t)rows[q].index, &t) != NULL, "%s: no input %ld", name,
                  rows[q].index);
        compare_file(&rows[q], t.data, t.bytes);
      }
      s = ap_interpreter_invoke(it);
    }
    /* Refused: allocate or the first invoke fails (a kernel may refuse a type only in eval). */
    if (!skip && s != AP_OK) {
      const char *why = it ? ap_interpreter_error(it) : "create failed";
      if (print) printf("refused\t%s\t%s\n", name, why);
      CHECK_MSG(r != NULL && i == 0, "%s seed %ld: %s%s", name, rows[i].seed, why,
                r ? "" : " (refused and not in oracle_ops_refused.tsv)");
      if (r) r->seen = true;
      ap_interpreter_destroy(it);
      ran = 0;
      break;
    }
    if (!skip) {
      CHECK_MSG(r == NULL, "%s: runs now; take it off oracle_ops_refused.tsv", name);
      for (size_t q = i; q < j; q++) {
        if (strcmp(rows[q].kind, "output") != 0) continue;
        ap_tensor t;
        CHECK_MSG(oracle_output(it, (size_t)rows[q].index, &t) != NULL, "%s: no output %ld", name,
                  rows[q].index);
        compare_file(&rows[q], t.data, t.bytes);
      }
      if (rows[i].seed == 1 && strncmp(name, "seanet_", 7) == 0) seanet_golden(it, name);
      ap_interpreter_destroy(it);
    }
    i = j;
  }
  ap_model_destroy(m);
  return ran;
}

int main(void) {
  ap_test_require_shared();
  char path[4096];
  char *text = read_text(ap_test_path(path, sizeof path, "oracle/ops/MANIFEST.tsv"));
  CHECK_MSG(text != NULL, "cannot read %s", path);
  char *list_text = read_text(AP_SOURCE_DIR "/tests/runtime/oracle_ops_refused.tsv");
  CHECK_MSG(list_text != NULL, "cannot read oracle_ops_refused.tsv");
  if (!text || !list_text) return ap_test_done();

  refused *list = calloc(1024, sizeof *list);
  size_t n_list = 0;
  char *save = NULL;
  for (char *line = strtok_r(list_text, "\n", &save); list && line && n_list < 1024;
       line = strtok_r(NULL, "\n", &save)) {
    if (line[0] == '#' || !line[0]) continue;
    char *tab = strchr(line, '\t');
    if (tab) *tab = '\0';
    list[n_list++] = (refused){line, false};
  }

  row *rows = calloc(8192, sizeof *rows);
  size_t n = 0;
  save = NULL;
  strtok_r(text, "\n", &save); /* the header */
  for (char *line; rows && (line = strtok_r(NULL, "\n", &save)) && n < 8192;) {
    char *f[13];
    if (oracle_fields(line, f, 13) < 10) continue;
    rows[n++] = (row){f[0], f[2], f[8], atol(f[1]), atol(f[3])};
  }
  const char *only = getenv("AP_ORACLE_OPS");
  bool print = getenv("AP_ORACLE_OPS_LIST") != NULL;
  char *models_text = read_text(ap_test_path(path, sizeof path, "oracle/ops/MODELS.tsv"));
  CHECK_MSG(models_text != NULL, "cannot read %s", path);
  size_t models = 0, ran = 0;
  save = NULL;
  if (models_text) strtok_r(models_text, "\n", &save); /* the header */
  for (char *line; models_text && (line = strtok_r(NULL, "\n", &save));) {
    char *tab = strchr(line, '\t');
    if (tab) *tab = '\0';
    if (only && strcmp(only, line) != 0) continue;
    /* The manifest's rows are grouped by model, then seed; two models have no inputs or
     * outputs (no rows): they are allocated and invoked once. */
    size_t i = 0;
    while (i < n && strcmp(rows[i].model, line) != 0)
      i++;
    size_t j = i;
    while (j < n && strcmp(rows[j].model, line) == 0)
      j++;
    row none = {line, "none", "", 1, 0};
    models++;
    ran += (size_t)(i < n ? run_model(rows + i, j - i, list, n_list, print)
                          : run_model(&none, 1, list, n_list, print));
  }
  for (size_t i = 0; !only && i < n_list; i++)
    CHECK_MSG(list[i].seen, "%s: listed in oracle_ops_refused.tsv but not refused", list[i].model);
  printf("oracle/ops: %zu models, %zu equal TFLite Micro, %zu refused (listed), %zu manifest rows "
         "(%zu compared by sha256: no .bin in shared/)\n",
         models, ran, models - ran, n, by_hash);
  if (!only) CHECK_EQ(models, (size_t)548);
  free(rows);
  free(list);
  free(list_text);
  free(models_text);
  free(text);
  return ap_test_done();
}
