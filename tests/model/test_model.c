/* The model reader on every shared model, against ../shared/models/MANIFEST.tsv (counted by
 * the people who collected the models, independently of this code), plus API misuse and the
 * messages for files that are not models. */
#include "arenaplan/model.h"
#include "test.h"

#include <ctype.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_MODELS 64

typedef struct manifest_row {
  char file[64];
  long subgraphs, tensors, ops;
  char inputs[256], ops_hist[4096], notes[4096];
} manifest_row;

/* Splits a MANIFEST.tsv line into its columns (in place). */
static size_t split_tabs(char *line, char **cols, size_t max) {
  size_t n = 0;
  for (char *p = line; n < max;) {
    cols[n++] = p;
    char *tab = strchr(p, '\t');
    if (!tab) break;
    *tab = '\0';
    p = tab + 1;
  }
  char *nl = n ? strchr(cols[n - 1], '\n') : NULL;
  if (nl) *nl = '\0';
  return n;
}

static size_t read_manifest(manifest_row *rows, size_t max) {
  char path[4096];
  size_t len;
  char *text =
      (char *)ap_test_read_file(ap_test_path(path, sizeof path, "models/MANIFEST.tsv"), &len);
  if (!text) return 0;
  text[len] = '\0';
  size_t n = 0;
  char *save = NULL;
  bool header = true;
  for (char *line = strtok_r(text, "\n", &save); line && n < max;
       line = strtok_r(NULL, "\n", &save)) {
    char *c[16];
    if (header) {
      header = false;
      continue;
    }
    if (split_tabs(line, c, 16) < 14) continue;
    manifest_row *r = &rows[n++];
    snprintf(r->file, sizeof r->file, "%s", c[0]);
    r->subgraphs = atol(c[7]);
    r->tensors = atol(c[8]);
    r->ops = atol(c[9]);
    snprintf(r->inputs, sizeof r->inputs, "%s", c[10]);
    snprintf(r->ops_hist, sizeof r->ops_hist, "%s", c[12]);
    snprintf(r->notes, sizeof r->notes, "%s", c[13]);
  }
  free(text);
  return n;
}

/* "float32[-1,1];int8[1,2]": the manifest's spelling of subgraph 0's inputs, dims from
 * shape_signature where the file has one. */
static void format_inputs(const ap_model *m, char *out, size_t size) {
  size_t o = 0;
  ap_ivec in = ap_model_subgraph_inputs(m, 0);
  out[0] = '\0';
  for (size_t i = 0; i < in.n && o < size; i++) {
    ap_tensor_info t;
    if (ap_model_tensor(m, 0, (size_t)in.v[i], &t) != AP_OK) return;
    char type[32];
    snprintf(type, sizeof type, "%s", ap_dtype_name(t.type));
    for (char *p = type; *p; p++)
      *p = (char)tolower((unsigned char)*p);
    o += (size_t)snprintf(out + o, size - o, "%s%s[", i ? ";" : "", type);
    ap_ivec d = t.shape_signature.v ? t.shape_signature : t.shape;
    for (size_t k = 0; k < d.n && o < size; k++)
      o += (size_t)snprintf(out + o, size - o, "%s%d", k ? "," : "", (int)d.v[k]);
    if (o < size) o += (size_t)snprintf(out + o, size - o, "]");
  }
}

/* Counts of each op over all subgraphs, compared with "CONV_2D:14,CUSTOM(x):1,..." */
static void check_ops_hist(const ap_model *m, const char *file, const char *hist) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", hist);
  char *save = NULL;
  long listed = 0;
  for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
    char *colon = strrchr(item, ':');
    if (!colon) continue;
    *colon = '\0';
    long want = atol(colon + 1), got = 0;
    listed += want;
    for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
      for (size_t i = 0; i < ap_model_op_count(m, sg); i++) {
        ap_op_info op;
        char name[128];
        if (ap_model_op(m, sg, i, &op) != AP_OK) continue;
        if (op.builtin == AP_BUILTIN_CUSTOM)
          snprintf(name, sizeof name, "CUSTOM(%s)", op.custom ? op.custom : "");
        else
          snprintf(name, sizeof name, "%s", ap_builtin_name(op.builtin));
        got += strcmp(name, item) == 0;
      }
    CHECK_MSG(got == want, "%s: %s: %ld ops, manifest says %ld", file, item, got, want);
  }
  long total = 0;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    total += ap_model_op_count(m, sg);
  CHECK_MSG(listed == total, "%s: manifest lists %ld ops, model has %ld", file, listed, total);
}

/* A count the manifest notes state as "N <phrase>", e.g. "2 variable (is_variable) tensors";
 * -1 when the notes do not say. */
static long note_count(const char *notes, const char *phrase) {
  const char *p = strstr(notes, phrase);
  if (!p || p == notes) return -1;
  const char *q = p - 1;
  while (q > notes && *q == ' ')
    q--;
  while (q > notes && isdigit((unsigned char)q[-1]))
    q--;
  return isdigit((unsigned char)*q) ? atol(q) : -1;
}

static void check_notes(const ap_model *m, const manifest_row *r) {
  long variables = 0, dynamic = 0, intermediates = 0;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++) {
    for (size_t i = 0; i < ap_model_tensor_count(m, sg); i++) {
      ap_tensor_info t;
      if (ap_model_tensor(m, sg, i, &t) != AP_OK) continue;
      variables += t.is_variable;
      bool dyn = false;
      for (size_t k = 0; k < t.shape_signature.n; k++)
        dyn |= t.shape_signature.v[k] == -1;
      dynamic += dyn;
    }
    for (size_t i = 0; i < ap_model_op_count(m, sg); i++) {
      ap_op_info op;
      if (ap_model_op(m, sg, i, &op) == AP_OK) intermediates += (long)op.intermediates.n;
    }
  }
  long want;
  if ((want = note_count(r->notes, "variable (is_variable) tensors")) >= 0)
    CHECK_MSG(variables == want, "%s: %ld variables, manifest %ld", r->file, variables, want);
  if ((want = note_count(r->notes, "tensors with -1 in shape_signature")) >= 0)
    CHECK_MSG(dynamic == want, "%s: %ld dynamic tensors, manifest %ld", r->file, dynamic, want);
  if ((want = note_count(r->notes, "operator intermediates tensors")) >= 0)
    CHECK_MSG(intermediates == want, "%s: %ld intermediates, manifest %ld", r->file, intermediates,
              want);
}

static void check_model(const manifest_row *r) {
  char path[4096];
  ap_test_path(path, sizeof path, "models/%s", r->file);
  ap_model *m = NULL;
  ap_status s = ap_model_open(path, NULL, &m);
  CHECK_MSG(s == AP_OK, "%s: %s", r->file, ap_model_error(m));
  if (s != AP_OK) {
    ap_model_destroy(m);
    return;
  }
  CHECK_STR(ap_model_error(m), "");
  CHECK_STR(ap_model_path(m), path);
  CHECK_EQ(ap_model_version(m), 3);
  long tensors = 0, ops = 0;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++) {
    tensors += (long)ap_model_tensor_count(m, sg);
    ops += (long)ap_model_op_count(m, sg);
  }
  CHECK_MSG((long)ap_model_subgraph_count(m) == r->subgraphs, "%s: subgraphs", r->file);
  CHECK_MSG(tensors == r->tensors, "%s: %ld tensors, manifest %ld", r->file, tensors, r->tensors);
  CHECK_MSG(ops == r->ops, "%s: %ld ops, manifest %ld", r->file, ops, r->ops);
  char inputs[512];
  format_inputs(m, inputs, sizeof inputs);
  CHECK_MSG(strcmp(inputs, r->inputs) == 0, "%s: inputs %s, manifest %s", r->file, inputs,
            r->inputs);
  check_ops_hist(m, r->file, r->ops_hist);
  check_notes(m, r);

  /* The same bytes through a caller's buffer read the same. */
  size_t size;
  const uint8_t *bytes = ap_model_bytes(m, &size);
  struct stat st;
  CHECK(bytes && stat(path, &st) == 0 && (size_t)st.st_size == size);
  uint8_t *copy = ap_test_read_file(path, &size);
  ap_model *b = NULL;
  CHECK(copy && ap_model_from_buffer(copy, size, r->file, NULL, &b) == AP_OK);
  CHECK_EQ(ap_model_tensor_count(b, 0), ap_model_tensor_count(m, 0));
  CHECK(ap_model_bytes(b, NULL) == copy);
  ap_model_destroy(b);
  free(copy);

  /* Out-of-range indices. */
  size_t nsg = ap_model_subgraph_count(m);
  ap_tensor_info t;
  ap_op_info op;
  ap_opcode_info oc;
  ap_metadata_info md;
  ap_signature_info sig;
  ap_tensor_map tm;
  CHECK_EQ(ap_model_tensor(m, nsg, 0, &t), AP_ERR_RANGE);
  CHECK_EQ(ap_model_tensor(m, 0, ap_model_tensor_count(m, 0), &t), AP_ERR_RANGE);
  CHECK_EQ(ap_model_op(m, 0, ap_model_op_count(m, 0), &op), AP_ERR_RANGE);
  CHECK_EQ(ap_model_opcode(m, ap_model_opcode_count(m), &oc), AP_ERR_RANGE);
  CHECK_EQ(ap_model_metadata(m, ap_model_metadata_count(m), &md), AP_ERR_RANGE);
  CHECK_EQ(ap_model_signature(m, ap_model_signature_count(m), &sig), AP_ERR_RANGE);
  CHECK_EQ(ap_model_signature_input(m, ap_model_signature_count(m), 0, &tm), AP_ERR_RANGE);
  CHECK_EQ(ap_model_tensor_count(m, nsg), 0);
  CHECK_EQ(ap_model_op_count(m, nsg), 0);
  CHECK_STR(ap_model_subgraph_name(m, nsg), "");
  CHECK(ap_model_subgraph_inputs(m, nsg).n == 0 && ap_model_subgraph_inputs(m, nsg).v == NULL);
  CHECK(ap_model_buffer(m, ap_model_buffer_count(m), &size) == NULL && size == 0);
  CHECK_EQ(ap_model_tensor(m, 0, 0, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_model_op(m, 0, 0, NULL), AP_ERR_ARG);
  ap_model_destroy(m);
}

static size_t allocs, frees;
static void *count_alloc(void *ctx, size_t n) {
  (void)ctx;
  allocs++;
  return malloc(n);
}
static void count_free(void *ctx, void *p) {
  (void)ctx;
  frees += p != NULL;
  free(p);
}

static void check_misuse(void) {
  ap_model *m = (ap_model *)&m;
  CHECK_EQ(ap_model_open("x.tflite", NULL, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_model_from_buffer("", 0, "x", NULL, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_model_open(NULL, NULL, &m), AP_ERR_ARG);
  CHECK_STR(ap_model_error(m), "ap_model_open: NULL path");
  ap_model_destroy(m);
  CHECK_EQ(ap_model_open("", NULL, &m), AP_ERR_ARG);
  CHECK_STR(ap_model_error(m), "ap_model_open: empty path");
  ap_model_destroy(m);
  CHECK_EQ(ap_model_from_buffer(NULL, 16, "buf", NULL, &m), AP_ERR_ARG);
  CHECK_STR(ap_model_error(m), "buf: NULL data with size 16");
  ap_model_destroy(m);
  static _Alignas(16) uint8_t small[32];
  CHECK_EQ(ap_model_from_buffer(small + 4, 16, "odd", NULL, &m), AP_ERR_ARG);
  CHECK_CONTAINS(ap_model_error(m), "odd: buffer address ");
  CHECK_CONTAINS(ap_model_error(m), " is not 8-byte aligned (the model is read in place)");
  ap_model_destroy(m);
  CHECK_EQ(ap_model_from_buffer(small, 0, "nothing", NULL, &m), AP_ERR_FORMAT);
  CHECK_STR(ap_model_error(m), "nothing: empty file (0 bytes)");
  /* A failed model answers every getter with nothing. */
  ap_tensor_info t;
  CHECK_EQ(ap_model_subgraph_count(m), 0);
  CHECK_EQ(ap_model_tensor_count(m, 0), 0);
  CHECK_EQ(ap_model_tensor(m, 0, 0, &t), AP_ERR_RANGE);
  CHECK(ap_model_bytes(m, NULL) == NULL);
  CHECK(ap_model_description(m) == NULL);
  ap_model_destroy(m);

  /* NULL handles. */
  ap_op_info op;
  ap_opcode_info oc;
  size_t size = 7;
  CHECK(strlen(ap_model_error(NULL)) > 0);
  CHECK(ap_model_path(NULL) == NULL);
  CHECK_EQ(ap_model_subgraph_count(NULL), 0);
  CHECK_EQ(ap_model_buffer_count(NULL), 0);
  CHECK_EQ(ap_model_opcode_count(NULL), 0);
  CHECK_EQ(ap_model_metadata_count(NULL), 0);
  CHECK_EQ(ap_model_signature_count(NULL), 0);
  CHECK_EQ(ap_model_version(NULL), 0);
  CHECK(ap_model_bytes(NULL, &size) == NULL && size == 0);
  CHECK(ap_model_buffer(NULL, 0, &size) == NULL && size == 0);
  CHECK_EQ(ap_model_tensor(NULL, 0, 0, &t), AP_ERR_ARG);
  CHECK_EQ(ap_model_op(NULL, 0, 0, &op), AP_ERR_ARG);
  CHECK_EQ(ap_model_opcode(NULL, 0, &oc), AP_ERR_ARG);
  CHECK_EQ(ap_model_metadata(NULL, 0, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_model_signature(NULL, 0, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_model_signature_input(NULL, 0, 0, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_model_signature_output(NULL, 0, 0, NULL), AP_ERR_ARG);
  ap_model_destroy(NULL);

  /* The caller's allocator is the only one used: one block for the handle and its name. */
  ap_allocator a = {count_alloc, count_free, NULL};
  ap_model_options opt = {&a};
  CHECK_EQ(ap_model_from_buffer(small, 0, "counted", &opt, &m), AP_ERR_FORMAT);
  ap_model_destroy(m);
  CHECK_EQ(allocs, 1);
  CHECK_EQ(frees, 1);
}

static void check_files(void) {
  ap_model *m;
  CHECK_EQ(ap_model_open("/nonexistent/model.tflite", NULL, &m), AP_ERR_IO);
  CHECK_STR(ap_model_error(m), "/nonexistent/model.tflite: cannot open: No such file or directory");
  ap_model_destroy(m);
  CHECK_EQ(ap_model_open("/tmp", NULL, &m), AP_ERR_IO);
  CHECK_STR(ap_model_error(m), "/tmp: is a directory, not a model file");
  ap_model_destroy(m);
  char empty[] = "/tmp/ap_test_model_XXXXXX";
  int fd = mkstemp(empty);
  CHECK(fd >= 0);
  if (fd >= 0) close(fd);
  char want[128];
  snprintf(want, sizeof want, "%s: empty file (0 bytes)", empty);
  CHECK_EQ(ap_model_open(empty, NULL, &m), AP_ERR_FORMAT);
  CHECK_STR(ap_model_error(m), want);
  ap_model_destroy(m);
  unlink(empty);
}

static void check_names(void) {
  /* Values from the schema's TensorType and BuiltinOperator enums. */
  CHECK_STR(ap_dtype_name(AP_FLOAT32), "FLOAT32");
  CHECK_STR(ap_dtype_name(AP_INT8), "INT8");
  CHECK_STR(ap_dtype_name(22), "FLOAT8_E5M2");
  CHECK_STR(ap_dtype_name(23), "UNKNOWN");
  CHECK_STR(ap_dtype_name(-1), "UNKNOWN");
  CHECK_EQ(ap_dtype_bits(AP_FLOAT32), 32);
  CHECK_EQ(ap_dtype_bits(AP_INT4), 4);
  CHECK_EQ(ap_dtype_bits(AP_COMPLEX128), 128);
  CHECK_EQ(ap_dtype_bits(AP_BOOL), 8);
  CHECK_EQ(ap_dtype_bits(AP_STRING), 0);
  CHECK_EQ(ap_dtype_bits(AP_RESOURCE), 0);
  CHECK_EQ(ap_dtype_bits(99), 0);
  CHECK_STR(ap_builtin_name(0), "ADD");
  CHECK_STR(ap_builtin_name(3), "CONV_2D");
  CHECK_STR(ap_builtin_name(AP_BUILTIN_CUSTOM), "CUSTOM");
  CHECK_STR(ap_builtin_name(44), "UNIDIRECTIONAL_SEQUENCE_LSTM");
  CHECK_STR(ap_builtin_name(127), "PLACEHOLDER_FOR_GREATER_OP_CODES");
  CHECK_STR(ap_builtin_name(209), "STABLEHLO_CASE");
  CHECK_STR(ap_builtin_name(210), "UNKNOWN");
  CHECK_STR(ap_builtin_name(-1), "UNKNOWN");
}

/* Facts stated in MANIFEST.tsv notes about particular models. */
static void check_known(void) {
  char path[4096];
  ap_model *m;
  /* call_once_mul: RESOURCE tensors; subgraph 1 is "NoOp"; a CALL_ONCE op. */
  CHECK_EQ(ap_model_open(ap_test_path(path, sizeof path, "models/call_once_mul.tflite"), NULL, &m),
           AP_OK);
  CHECK_STR(ap_model_subgraph_name(m, 1), "NoOp");
  ap_tensor_info t;
  bool resource = false;
  for (size_t i = 0; i < ap_model_tensor_count(m, 0); i++)
    if (ap_model_tensor(m, 0, i, &t) == AP_OK && t.type == AP_RESOURCE) {
      resource = true;
      CHECK_EQ(t.bytes, 0); /* no size: not a function of the shape */
    }
  CHECK(resource);
  ap_model_destroy(m);
  /* multi_signatures: signatures "add" and "sub", each on its own subgraph. */
  CHECK_EQ(
      ap_model_open(ap_test_path(path, sizeof path, "models/multi_signatures.tflite"), NULL, &m),
      AP_OK);
  CHECK_EQ(ap_model_signature_count(m), 2);
  ap_signature_info sig[2];
  CHECK(ap_model_signature(m, 0, &sig[0]) == AP_OK && ap_model_signature(m, 1, &sig[1]) == AP_OK);
  CHECK((strcmp(sig[0].key, "add") == 0 && strcmp(sig[1].key, "sub") == 0) ||
        (strcmp(sig[0].key, "sub") == 0 && strcmp(sig[1].key, "add") == 0));
  CHECK(sig[0].subgraph != sig[1].subgraph);
  ap_model_destroy(m);
  /* person_detect_vela: metadata vela_version and OfflineMemoryAllocation; ethos-u custom op. */
  CHECK_EQ(
      ap_model_open(ap_test_path(path, sizeof path, "models/person_detect_vela.tflite"), NULL, &m),
      AP_OK);
  bool offline = false;
  for (size_t i = 0; i < ap_model_metadata_count(m); i++) {
    ap_metadata_info md;
    size_t size;
    if (ap_model_metadata(m, i, &md) == AP_OK && strcmp(md.name, "OfflineMemoryAllocation") == 0)
      offline = ap_model_buffer(m, md.buffer, &size) != NULL && size > 0;
  }
  CHECK(offline);
  ap_op_info op;
  CHECK(ap_model_op(m, 0, 0, &op) == AP_OK && op.builtin == AP_BUILTIN_CUSTOM);
  CHECK_STR(op.custom, "ethos-u");
  CHECK(op.custom_options != NULL && op.custom_options_size > 0);
  ap_model_destroy(m);
}

int main(void) {
  check_misuse();
  check_files();
  check_names();
  ap_test_require_shared();
  static manifest_row rows[MAX_MODELS];
  size_t n = read_manifest(rows, MAX_MODELS);
  char names[MAX_MODELS][64];
  size_t nmodels = ap_test_models(names, MAX_MODELS);
  CHECK_MSG(n == nmodels && n > 0, "manifest rows %zu, models %zu", n, nmodels);
  for (size_t i = 0; i < n; i++)
    check_model(&rows[i]);
  check_known();
  return ap_test_done();
}
