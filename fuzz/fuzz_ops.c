/* fuzz_ops: structure-aware. The input is not a file but a recipe: a few small tensors (type,
 * shape, quantization, constant data) and a few ops of the kernels the runtime has (with fuzzed
 * options), written by arenaplan's model writer as a well-formed model, then loaded, allocated
 * and invoked. Mutating .tflite bytes rarely gets past the verifier to a kernel with odd shapes;
 * this reaches every kernel's prepare and eval with shapes up to 6 per dimension (so one input
 * costs microseconds). The lifetimes and plans of the model are checked as in fuzz_model. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct reader {
  const uint8_t *p;
  size_t n;
} reader;

static uint8_t byte(reader *r) {
  if (!r->n) return 0;
  r->n--;
  return *r->p++;
}

static int32_t pick(reader *r, int32_t lo, int32_t hi) { /* lo..hi inclusive */
  return lo + (int32_t)(byte(r) % (uint32_t)(hi - lo + 1));
}

/* The builtins src/kernels/registry.c implements, with their usual input count (one output
 * each): a recipe mostly follows it, so that inputs get past the arity checks. */
static const struct {
  int32_t builtin, inputs;
} builtins[] = {{0, 2},  {1, 1},  {2, 2},  {3, 3},  {4, 3},  {6, 1},  {9, 3},
                {14, 1}, {17, 1}, {18, 2}, {19, 1}, {21, 1}, {22, 2}, {25, 1},
                {28, 1}, {34, 2}, {39, 2}, {40, 2}, {41, 2}, {60, 3}, {114, 1},
                /* issue 8: shape arithmetic (folded in prepare or dynamic), math, TILE */
                {11, 1}, {36, 2}, {42, 2}, {45, 4}, {53, 1}, {54, 2}, {65, 3}, {69, 2},
                {76, 1}, {77, 1}, {83, 2}, {98, 1}, {99, 2}, {105, 2}, {126, 2}};
static const int types[] = {AP_FLOAT32, AP_INT8, AP_UINT8, AP_INT16, AP_INT32, AP_INT64, AP_BOOL};

#define MAX_TENSORS 10
#define MAX_OPS 4

/* shape: room for RESHAPE's new_shape, which the options point to until the op is added. */
static ap_options options_for(reader *r, int32_t builtin, int32_t shape[4]) {
  ap_padding pad = byte(r) & 1 ? AP_PADDING_VALID : AP_PADDING_SAME;
  ap_activation act = (ap_activation)pick(r, 0, 6);
  switch (builtin) {
  case 3:
    return ap_options_conv2d(pad, pick(r, 0, 3), pick(r, 0, 3), act, pick(r, 0, 3), pick(r, 0, 3));
  case 4:
    return ap_options_depthwise_conv2d(pad, pick(r, 0, 3), pick(r, 0, 3), pick(r, 0, 3), act,
                                       pick(r, 0, 3), pick(r, 0, 3));
  case 1:
  case 17:
    return ap_options_pool2d(pad, pick(r, 0, 3), pick(r, 0, 3), pick(r, 0, 4), pick(r, 0, 4), act);
  case 9: return ap_options_fully_connected(act, byte(r) & 1);
  case 25: return ap_options_softmax((float)pick(r, -4, 4) / 2.0f);
  case 0:
  case 41: return ap_options_add(act);
  case 18: return ap_options_mul(act);
  case 2: return ap_options_concatenation(pick(r, -5, 5), act);
  case 22: {
    size_t n = (size_t)pick(r, 0, 4);
    for (size_t i = 0; i < n; i++)
      shape[i] = pick(r, -1, 6);
    return ap_options_reshape(shape, n);
  }
  case 40: /* ReducerOptions (union type 27): keep_dims */
    return (ap_options){
        .type = 27, .count = 1, .fields = {{.id = 0, .kind = AP_OPT_BOOL, .i = byte(r) & 1}}};
  default: return (ap_options){0};
  }
}

/* Builds the model; NULL when the writer refuses the recipe (a harness choice, not a bug). */
static uint8_t *build(reader *r, size_t *size, size_t *map_size) {
  ap_writer *w;
  if (ap_writer_create(NULL, &w) != AP_OK) return NULL;
  int32_t nt = pick(r, 1, MAX_TENSORS), no = pick(r, 1, MAX_OPS);
  bool is_const[MAX_TENSORS] = {0}, produced[MAX_TENSORS] = {0};
  ap_status s = AP_OK;
  for (int32_t t = 0; s == AP_OK && t < nt; t++) {
    int32_t shape[4];
    size_t rank = (size_t)pick(r, 0, 4);
    size_t elems = 1;
    for (size_t d = 0; d < rank; d++) {
      shape[d] = pick(r, 0, 6);
      elems *= (size_t)shape[d];
    }
    int type = types[byte(r) % (sizeof types / sizeof types[0])];
    ap_writer_tensor wt = {.type = type, .shape = shape, .rank = rank};
    float scale;
    int64_t zp;
    if (byte(r) & 1) {
      scale = (float)pick(r, 0, 16) / 8.0f;
      zp = pick(r, -128, 127);
      wt.scale = &scale;
      wt.scale_count = 1;
      wt.zero_point = &zp;
      wt.zero_point_count = 1;
    }
    if (byte(r) % 3 == 0) { /* a constant: its data from the recipe */
      uint8_t buf[6 * 6 * 6 * 6 * 8];
      size_t bytes = elems * ap_dtype_bits(type) / 8;
      for (size_t i = 0; i < bytes; i++)
        buf[i] = byte(r);
      uint32_t b;
      s = ap_writer_add_buffer(w, buf, bytes, &b);
      wt.buffer = b;
      is_const[t] = bytes > 0;
    }
    if (s == AP_OK) s = ap_writer_add_tensor(w, 0, &wt, NULL);
  }
  int32_t last_out = 0;
  for (int32_t k = 0; s == AP_OK && k < no; k++) {
    size_t which = byte(r) % (sizeof builtins / sizeof builtins[0]);
    int32_t builtin = builtins[which].builtin;
    uint32_t oc;
    s = ap_writer_add_opcode(w, builtin, 1, &oc);
    int32_t ins[4], outs[2];
    uint8_t arity = byte(r);
    size_t nin = arity < 224 ? (size_t)builtins[which].inputs : (size_t)pick(r, 1, 4);
    size_t nout = arity < 224 ? 1 : (size_t)pick(r, 1, 2);
    for (size_t i = 0; i < nin; i++)
      ins[i] = pick(r, -1, nt - 1);
    for (size_t i = 0; i < nout; i++) {
      outs[i] = pick(r, 0, nt - 1);
      produced[outs[i]] = true;
      last_out = outs[i];
    }
    int32_t new_shape[4];
    ap_options o = options_for(r, builtin, new_shape);
    ap_writer_op op = {.opcode = oc,
                       .inputs = ins,
                       .input_count = nin,
                       .outputs = outs,
                       .output_count = nout,
                       .options = o.type ? &o : NULL};
    if (s == AP_OK) s = ap_writer_add_op(w, 0, &op, NULL);
  }
  int32_t in[MAX_TENSORS];
  size_t nin = 0;
  for (int32_t t = 0; t < nt; t++)
    if (!is_const[t] && !produced[t]) in[nin++] = t;
  if (s == AP_OK) s = ap_writer_set_subgraph_io(w, 0, in, nin, &last_out, 1);
  const uint8_t *bytes;
  uint8_t *copy = NULL;
  if (s == AP_OK && ap_writer_finish(w, &bytes, size) == AP_OK)
    copy = fuzz_readonly_copy(bytes, *size, map_size);
  ap_writer_destroy(w);
  return copy;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  reader r = {data, size};
  size_t n, map_size;
  uint8_t *bytes = build(&r, &n, &map_size);
  if (!bytes) return 0;
  const char *save = getenv("FUZZ_SAVE"); /* writes the model: a reproducer for tests/ */
  FILE *f = save ? fopen(save, "wb") : NULL;
  if (f) {
    fwrite(bytes, 1, n, f);
    fclose(f);
  }
  ap_model *m = NULL;
  if (ap_model_from_buffer(bytes, n, "ops.tflite", NULL, &m) == AP_OK) {
    ap_graph *g = NULL;
    if (ap_graph_create(m, NULL, NULL, &g) == AP_OK) {
      ap_problem *p = NULL;
      if (ap_graph_problem(g, -1, 16, &p) == AP_OK) fuzz_plan_all(p);
      ap_problem_destroy(p);
    }
    ap_graph_destroy(g);
    ap_interpreter_options o = ap_interpreter_defaults();
    o.strategy = byte(&r) & 1 ? "greedy_size" : "linear";
    ap_interpreter *it = NULL;
    ap_status s = ap_interpreter_create(m, &o, &it);
    if (s == AP_OK) s = ap_interpreter_allocate(it);
    if (s == AP_OK) {
      for (size_t i = 0; i < ap_interpreter_input_count(it); i++) {
        ap_tensor slot, *t = ap_interpreter_input(it, i, &slot) == AP_OK ? &slot : NULL;
        if (t && t->data && !t->is_constant)
          for (size_t k = 0; k < t->bytes; k++)
            ((uint8_t *)t->data)[k] = byte(&r);
      }
      s = ap_interpreter_invoke(it);
    }
    if (s != AP_OK && it && !ap_interpreter_error(it)[0])
      fuzz_die("ops", "failure without a message");
    if (getenv("FUZZ_TRACE")) /* how far each input gets: `FUZZ_TRACE=1 fuzz_ops -runs=0 DIR` */
      fprintf(stderr, "fuzz_ops: %s\n", s == AP_OK ? "invoked" : ap_interpreter_error(it));
    ap_interpreter_destroy(it);
  }
  ap_model_destroy(m);
  fuzz_readonly_free(bytes, map_size);
  return 0;
}
