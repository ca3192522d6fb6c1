/* fuzz_run: an untrusted model allocated and invoked by the interpreter.
 *
 * Limits, so that one input costs milliseconds, not minutes, and memory stays bounded (an
 * input over a limit is skipped or fails cleanly, never reported as a crash):
 *  - models with more than FUZZ_MAX_OPS ops in any subgraph are not run;
 *  - every allocation the library makes goes through an allocator that refuses blocks over
 *    FUZZ_MAX_BLOCK (64 MiB) and more than FUZZ_MAX_TOTAL live bytes: a model whose planned
 *    arena is larger fails allocate with AP_ERR_NOMEM, which must come with a message;
 *  - invoke runs only when, after allocate (shapes propagated by the kernels' prepare), every
 *    tensor holds at most FUZZ_MAX_ELEMS elements and the estimated work of one invoke is at
 *    most FUZZ_MAX_WORK element operations: for CONV_2D, DEPTHWISE_CONV_2D and
 *    FULLY_CONNECTED, output elements x (filter elements / output channels), i.e. their
 *    multiply-adds; for the pools, output elements x filter area; for every other kernel (all
 *    linear), its input and output elements. FUZZ_MAX_WORK lets the shared models up to
 *    person_detect run (~0.1 s per invoke under ASan+UBSan). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_OPS 256
#define FUZZ_MAX_BLOCK ((size_t)64 << 20)
#define FUZZ_MAX_TOTAL ((size_t)256 << 20)
#define FUZZ_MAX_ELEMS ((size_t)1 << 20)
#define FUZZ_MAX_WORK ((uint64_t)1 << 25)

typedef struct capped {
  size_t live;
} capped;

/* Each block carries its size in front so free can subtract it. */
static void *capped_alloc(void *ctx, size_t size) {
  capped *c = ctx;
  if (size > FUZZ_MAX_BLOCK || c->live + size > FUZZ_MAX_TOTAL) return NULL;
  max_align_t *p = malloc(sizeof(max_align_t) + size);
  if (!p) return NULL;
  *(size_t *)p = size;
  c->live += size;
  return p + 1;
}

static void capped_free(void *ctx, void *ptr) {
  if (!ptr) return;
  capped *c = ctx;
  max_align_t *p = (max_align_t *)ptr - 1;
  c->live -= *(size_t *)p;
  free(p);
}

static size_t elems(const ap_tensor *t) {
  size_t n = 1;
  for (int d = 0; d < t->rank; d++) {
    if (t->dims[d] < 0) return SIZE_MAX;
    if (t->dims[d] && n > SIZE_MAX / (size_t)t->dims[d]) return SIZE_MAX;
    n *= (size_t)t->dims[d];
  }
  return n;
}

/* Adds n to *sum; false once the sum passes FUZZ_MAX_WORK (n may be SIZE_MAX). */
static bool add_work(uint64_t *sum, uint64_t n) {
  if (n > FUZZ_MAX_WORK || *sum + n > FUZZ_MAX_WORK) return false;
  *sum += n;
  return true;
}

/* The runtime's view of a tensor, by value into `slot`; NULL when out of range. */
static const ap_tensor *at(ap_interpreter *it, size_t sg, size_t t, ap_tensor *slot) {
  return ap_interpreter_tensor(it, sg, t, slot) == AP_OK ? slot : NULL;
}

/* True when every tensor and the estimated work of one invoke are within the limits. */
static bool small_enough(const ap_model *m, ap_interpreter *it) {
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    for (size_t t = 0; t < ap_model_tensor_count(m, sg); t++) {
      ap_tensor slot;
      const ap_tensor *x = at(it, sg, t, &slot);
      if (x && elems(x) > FUZZ_MAX_ELEMS) return false;
    }
  uint64_t work = 0;
  for (size_t k = 0; k < ap_model_op_count(m, 0); k++) {
    ap_op_info op;
    if (ap_model_op(m, 0, k, &op) != AP_OK) return false;
    uint64_t out = 0, in = 0;
    for (size_t i = 0; i < op.outputs.n; i++) {
      ap_tensor slot;
      const ap_tensor *x = at(it, 0, (size_t)op.outputs.v[i], &slot);
      if (x && !add_work(&out, elems(x))) return false;
    }
    for (size_t i = 0; i < op.inputs.n; i++) {
      ap_tensor slot;
      const ap_tensor *x = op.inputs.v[i] < 0 ? NULL : at(it, 0, (size_t)op.inputs.v[i], &slot);
      if (x && !add_work(&in, elems(x))) return false;
    }
    uint64_t per_out = 1;
    if ((op.builtin == 3 || op.builtin == 4 || op.builtin == 9) && op.inputs.n > 1 &&
        op.outputs.n) {
      ap_tensor fs, os;
      const ap_tensor *f = op.inputs.v[1] < 0 ? NULL : at(it, 0, (size_t)op.inputs.v[1], &fs);
      const ap_tensor *o = at(it, 0, (size_t)op.outputs.v[0], &os);
      uint64_t ch =
          o && o->rank ? (uint64_t)(o->dims[o->rank - 1] > 0 ? o->dims[o->rank - 1] : 1) : 1;
      if (f) per_out = elems(f) / ch + 1;
    } else if (op.builtin == 1 || op.builtin == 17) {
      ap_op_options o;
      if (ap_model_op_options(m, 0, k, &o) == AP_OK)
        per_out = (uint64_t)(o.pool2d.filter_width > 0 ? o.pool2d.filter_width : 1) *
                  (uint64_t)(o.pool2d.filter_height > 0 ? o.pool2d.filter_height : 1);
    }
    if (per_out > FUZZ_MAX_WORK || (out && per_out > FUZZ_MAX_WORK / out)) return false;
    if (!add_work(&work, out * per_out) || !add_work(&work, in)) return false;
  }
  return true;
}

/* FUZZ_TRACE=1 in the environment: one line per input saying how far it got, to see what
 * share of a corpus reaches invoke (`fuzz_run -runs=0 CORPUS`). */
static void trace(const char *stage, const char *msg) {
  static int on = -1;
  if (on < 0) on = getenv("FUZZ_TRACE") != NULL;
  if (on) fprintf(stderr, "fuzz_run: %s%s%s\n", stage, msg ? ": " : "", msg ? msg : "");
}

static void fail_needs_message(ap_interpreter *it, const char *what) {
  if (!ap_interpreter_error(it)[0]) fuzz_die(what, "failure without a message");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t map_size;
  uint8_t *copy = fuzz_readonly_copy(data, size, &map_size);
  if (!copy) return 0;
  capped cap = {0};
  ap_allocator a = {capped_alloc, capped_free, &cap};
  ap_model *m = NULL;
  ap_status st = ap_model_from_buffer(copy, size, "fuzz.tflite", &(ap_model_options){&a}, &m);
  bool run = st == AP_OK;
  if (!run) trace("load failed", ap_model_error(m));
  for (size_t sg = 0; run && sg < ap_model_subgraph_count(m); sg++)
    if (ap_model_op_count(m, sg) > FUZZ_MAX_OPS) run = false;
  if (st == AP_OK && !run) trace("too many ops", NULL);
  if (run) {
    ap_interpreter_options o = ap_interpreter_defaults();
    o.allocator = &a;
    /* "best" searches; a bounded greedy strategy keeps each input fast. Odd sizes take the
     * no-reuse path, which exercises a different layout. */
    o.strategy = size % 3 == 0 ? "greedy_size" : size % 3 == 1 ? "tflm" : "linear";
    o.preserve_all = size % 7 == 0;
    o.max_loop_iterations = 1000; /* a WHILE that never ends is valid; a fuzz input must end */
    ap_interpreter *it = NULL;
    st = ap_interpreter_create(m, &o, &it);
    if (st != AP_OK && it) fail_needs_message(it, "create");
    if (st == AP_OK) {
      st = ap_interpreter_allocate(it);
      if (st != AP_OK) fail_needs_message(it, "allocate");
    }
    if (st != AP_OK) trace("create/allocate failed", ap_interpreter_error(it));
    bool small = st == AP_OK && small_enough(m, it);
    if (st == AP_OK && !small) trace("too large to invoke", NULL);
    if (small) {
      ap_memory_usage mu;
      (void)ap_interpreter_memory(it, &mu);
      /* Inputs: a deterministic pattern from the input bytes (the arena starts as whatever
       * the allocator gave; kernels must not depend on it, but their inputs must be set). */
      for (size_t i = 0; i < ap_interpreter_input_count(it); i++) {
        ap_tensor slot, *in = ap_interpreter_input(it, i, &slot) == AP_OK ? &slot : NULL;
        if (!in || !in->data || in->is_constant) continue;
        uint8_t *b = in->data;
        for (size_t k = 0; k < in->bytes; k++)
          b[k] = data[(k * 31 + i) % size];
      }
      for (int rep = 0; rep < 2; rep++) {
        st = ap_interpreter_invoke(it);
        if (st != AP_OK) {
          fail_needs_message(it, "invoke");
          trace("invoke failed", ap_interpreter_error(it));
          break;
        }
      }
      for (size_t i = 0; st == AP_OK && i < ap_interpreter_output_count(it); i++) {
        ap_tensor slot;
        const ap_tensor *out = ap_interpreter_output(it, i, &slot) == AP_OK ? &slot : NULL;
        if (out && out->data) {
          volatile const uint8_t *b = out->data;
          for (size_t k = 0; k < out->bytes; k++)
            (void)b[k];
        }
      }
      if (st == AP_OK) trace("invoked", NULL);
      (void)ap_interpreter_reset_variables(it);
    }
    ap_interpreter_destroy(it);
  }
  ap_model_destroy(m);
  fuzz_readonly_free(copy, map_size);
  if (cap.live) fuzz_die("allocator", "bytes still allocated after every destroy");
  return 0;
}
