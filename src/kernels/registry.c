/* One adapter per builtin: unpacks the generic context into the family's prepare/eval. */
#include "kernels/registry.h"
#include "kernels/fast/conv_win.h"
#include "kernels/fast/dsp.h"
#include "kernels/fast/fast.h"
#include "kernels/fast/fastops.h"
#include "kernels/fast/lean.h"
#include "kernels/fast/mve.h"
#include "kernels/kops.h"
#include "kernels/kops_datamove.h"
#include "kernels/kops_detect.h"
#include "kernels/kops_elem16.h"
#include "kernels/kops_mathlogic.h"
#include "kernels/kops_signal.h"
#include "kernels/kops_stream7.h"
#include "kernels/kops_threads4.h"
#include "kernels/lstm.h"
#include "kernels/stream_kernels.h"

#include <string.h>

enum {
  B_ADD = 0,
  B_AVERAGE_POOL_2D = 1,
  B_CONCATENATION = 2,
  B_CONV_2D = 3,
  B_DEPTHWISE_CONV_2D = 4,
  B_DEQUANTIZE = 6,
  B_FULLY_CONNECTED = 9,
  B_LOGISTIC = 14,
  B_MAX_POOL_2D = 17,
  B_MUL = 18,
  B_RELU = 19,
  B_RELU6 = 21,
  B_RESHAPE = 22,
  B_SOFTMAX = 25,
  B_TANH = 28,
  B_PAD = 34,
  B_TRANSPOSE = 39,
  B_MEAN = 40,
  B_SUB = 41,
  B_PADV2 = 60,
  B_QUANTIZE = 114
};

/* Which paths the conv family's adapters link (a firmware's generated registration,
 * scripts/mcu_kernels.py, sets it for the model's ops): 0 both, the fast kernels where they
 * cover the op and the reference otherwise; 1 the fast kernels only (prepare refuses an op
 * they do not cover: a status, never another result); 2 the reference kernels only. */
#ifndef AP_REGISTRY_PATH
#define AP_REGISTRY_PATH 0
#endif
/* AP_REGISTRY_FAMILY: the DSP level's kernels a planned interpreter runs on a Cortex-M core, 0
 * the fast family (int8_dsp.c), 1 the small one (dsp_small.c). */
#ifndef AP_REGISTRY_FAMILY
#define AP_REGISTRY_FAMILY 0
#endif
#if defined(AP_REGISTRY_OPS) && AP_REGISTRY_FAMILY == 0 && defined(__ARM_FEATURE_SIMD32) &&        \
    __ARM_FEATURE_SIMD32
/* A firmware's copy of this file (scripts/mcu_kernels.py defines AP_REGISTRY_OPS and an
 * AP_REG_OP_* per op with fast kernels): the fast family's table with its model's kernels only,
 * for a table links every function it points at (hello_world's firmware, one FULLY_CONNECTED,
 * then links no convolution). The drivers decline a NULL entry; its op is not registered. */
/* On a core with Helium (Cortex-M55, M85) the MVE level's kernels (mve.h), else the DSP's. */
#if AP_MVE_NATIVE
#define BOARD_K(name) ap_fast_mve_##name
#else
#define BOARD_K(name) ap_fast_dsp_##name
#endif
static const ap_fast_level board_level = {
    .name = AP_MVE_NATIVE ? "mve" : "dsp",
    .level = AP_SIMD_GENERIC,
#if AP_REG_OP_CONV_2D
    .gemm = {1, ap_fast_dsp_packed_bytes, BOARD_K(pack), ap_fast_dsp_arow_bytes, ap_fast_dsp_arow,
             BOARD_K(gemm), BOARD_K(rows2)},
#endif
#if AP_REG_OP_DEPTHWISE_CONV_2D
    .dw = BOARD_K(dw),
#endif
#if AP_REG_OP_FULLY_CONNECTED
    .fc = BOARD_K(fc),
#endif
};
const ap_fast_level *ap_kernels_board_level(void) {
  return &board_level;
}
#if !AP_MVE_NATIVE && AP_REG_OP_CONV_2D
/* The fast DSP product's shift preparation (kernels/fast/conv_int8.c reads it). */
const ap_gemm_prep_fn ap_board_gemm_prep = ap_fast_dsp_prep;
#endif
#else
const ap_fast_level *ap_kernels_board_level(void) {
  return AP_REGISTRY_FAMILY == 1 ? ap_fast_dsp_small() : ap_fast_mve();
}
#endif
#define REG_FAST (AP_REGISTRY_PATH != 2)
#define REG_REF (AP_REGISTRY_PATH != 1)
/* The tensor types whose fast paths the adapters reach (a generated registration sets fewer,
 * so a firmware links only its model's: scripts/mcu_kernels.py): AP_REG_INT8 (int8 and the
 * 8-bit ADD), AP_REG_FLOAT, AP_REG_UINT8, AP_REG_INT16 (16x8). An op of a type left out runs
 * its reference kernel (or is refused where none is registered), never a wrong result. The
 * int16 and float32 SOFTMAX, reference kernels of their own, are refused when neither type is
 * in. */
enum { AP_REG_INT8 = 1, AP_REG_FLOAT = 2, AP_REG_UINT8 = 4, AP_REG_INT16 = 8 };
#ifndef AP_REGISTRY_TYPES
#define AP_REGISTRY_TYPES 15
#endif
#define REG_T(t) (REG_FAST && (AP_REGISTRY_TYPES & (t)))
/* The hybrid kernels (float input, int8 weights: kernels/hybrid.c) with both their types: the
 * reference kernels reach them through weak references (kernels.h), so a float firmware's
 * registration links neither them nor the soft double their quantization needs. */
#if (AP_REGISTRY_TYPES & 3) == 3 /* AP_REG_INT8 | AP_REG_FLOAT: an enum, which #if cannot read */
const int *const ap_registry_hybrid = &ap_khybrid_anchor;
#endif

static ap_status no_reference(ap_kctx *c, const char *op) {
  return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                 "%s: the fast kernels do not cover this op and the registration links no "
                 "reference kernel (AP_REGISTRY_PATH 1)",
                 op);
}

_Static_assert(sizeof(ap_conv_params) <= AP_KPARAMS_SIZE, "conv params");
_Static_assert(sizeof(ap_fc_params) <= AP_KPARAMS_SIZE, "fc params");
_Static_assert(sizeof(ap_pool_params) <= AP_KPARAMS_SIZE, "pool params");
_Static_assert(sizeof(ap_binary_params) <= AP_KPARAMS_SIZE, "binary params");
_Static_assert(sizeof(ap_mean_params) <= AP_KPARAMS_SIZE, "mean params");
_Static_assert(sizeof(ap_pad_params) <= AP_KPARAMS_SIZE, "pad params");
_Static_assert(sizeof(ap_softmax_params) <= AP_KPARAMS_SIZE, "softmax params");
_Static_assert(sizeof(ap_unary_params) <= AP_KPARAMS_SIZE, "unary params");
_Static_assert(sizeof(ap_transpose_params) <= AP_KPARAMS_SIZE, "transpose params");
_Static_assert(sizeof(ap_concat_params) <= AP_KPARAMS_SIZE, "concat params");
_Static_assert(sizeof(ap_quantize_params) <= AP_KPARAMS_SIZE, "quantize params");
_Static_assert(sizeof(ap_kx_params) <= AP_KPARAMS_SIZE, "kops params");

/* Checks the input and output counts every adapter relies on. */
static ap_status arity(ap_kctx *c, const char *op, int min_in, int max_in, bool first_required) {
  if (!c || !c->options || c->n_outputs < 1 || !c->outputs || !c->outputs[0] ||
      c->n_inputs < min_in || c->n_inputs > max_in || !c->inputs ||
      (first_required && !c->inputs[0])) {
    return ap_fail(c ? c->err : NULL, AP_ERR_FORMAT, "%s: expected %d to %d inputs and an output",
                   op, min_in, max_in);
  }
  return AP_OK;
}

static const ap_ktensor *in(const ap_kctx *c, int i) {
  return i < c->n_inputs ? c->inputs[i] : NULL;
}

#define ARITY(OP, MIN, MAX)                                                                        \
  do {                                                                                             \
    ap_status s_ = arity(c, OP, MIN, MAX, true);                                                   \
    if (s_ != AP_OK) return s_;                                                                    \
  } while (0)

/* --- conv family --- */
/* The fast paths' scratch (ap_fast_need): int8, float, uint8 (each declines the others'
 * kinds). */
static bool conv_need(const ap_kexec *x, ap_kctx *c, size_t *scratch) {
  const ap_conv_params *p = c->params;
  if (!p || !in(c, 0) || !in(c, 1)) return false;
  return ((REG_T(AP_REG_INT8) || REG_T(AP_REG_UINT8)) &&
          ap_fast_smallk_conv_scratch(x, p, in(c, 0), in(c, 1), scratch)) ||
         (REG_T(AP_REG_INT8) && ap_fast_lean_conv_scratch(x, p, in(c, 0), in(c, 1), scratch)) ||
         (REG_T(AP_REG_INT8) && ap_fast_conv_scratch(x, p, in(c, 0), in(c, 1), scratch)) ||
         (REG_T(AP_REG_FLOAT) && ap_fast_lean_fconv_scratch(x, p, in(c, 0), in(c, 1), scratch)) ||
         (REG_T(AP_REG_FLOAT) && ap_fast_fconv_scratch(x, p, in(c, 0), in(c, 1), scratch)) ||
         (REG_T(AP_REG_UINT8) && ap_fast_u8conv_scratch(x, p, in(c, 0), in(c, 1), scratch)) ||
         (REG_T(AP_REG_INT16) && ap_fast_conv16_scratch(x, p, in(c, 0), in(c, 1), scratch));
}
static ap_status conv_prep(ap_kctx *c, size_t *scratch) {
  ARITY("CONV_2D", 2, 3);
  if (!in(c, 1)) return ap_fail(c->err, AP_ERR_FORMAT, "CONV_2D: filter is missing");
  ap_conv_params *p = c->params;
  ap_status s =
      ap_conv_prepare(&c->options->conv, in(c, 0), in(c, 1), in(c, 2), c->outputs[0], p, c->err);
  ap_fast_small one;
  *scratch = p->scratch_bytes;
  if (s == AP_OK && REG_FAST) ap_fast_bounded(c, conv_need, p->scratch_bytes, false, &one, scratch);
  if (s == AP_OK && !REG_REF && !conv_need(c->options->exec, c, &(size_t){0}))
    return no_reference(c, "CONV_2D");
  return s;
}
static ap_status conv_run(ap_kctx *c) {
  ap_status s;
  if (REG_FAST) {
    ap_fast_small one;
    size_t bytes;
    const ap_conv_params *p = c->params;
    ap_kexec serial;
    /* The lean kernels, the float and the uint8 ones split an output over its input band by
     * band themselves (ap_fast_overlap_band) or run it on one thread; the others get x. */
    const ap_kexec *xb =
        p ? ap_fast_bounded(c, conv_need, p->scratch_bytes, true, &one, &bytes) : NULL;
    const ap_kexec *x = ap_fast_in_order(xb, in(c, 0), c->outputs[0], &serial);
    void *sc = c->scratch;
    ap_ktensor *o = c->outputs[0];
    if (((REG_T(AP_REG_INT8) || REG_T(AP_REG_UINT8)) &&
         ap_fast_smallk_conv_eval(x, p, in(c, 0), in(c, 1), in(c, 2), o, sc, &s)) ||
        (REG_T(AP_REG_INT8) &&
         ap_fast_lean_conv_eval(xb, p, in(c, 0), in(c, 1), in(c, 2), o, sc, &s)) ||
        (REG_T(AP_REG_INT8) && ap_fast_conv_eval(x, p, in(c, 0), in(c, 1), in(c, 2), o, sc, &s)) ||
        (REG_T(AP_REG_FLOAT) &&
         ap_fast_lean_fconv_eval(xb, p, in(c, 0), in(c, 1), in(c, 2), o, sc, &s)) ||
        (REG_T(AP_REG_FLOAT) &&
         ap_fast_fconv_eval(xb, p, in(c, 0), in(c, 1), in(c, 2), o, sc, &s)) ||
        (REG_T(AP_REG_UINT8) &&
         ap_fast_u8conv_eval(xb, p, in(c, 0), in(c, 1), in(c, 2), o, sc, &s)) ||
        (REG_T(AP_REG_INT16) && ap_fast_conv16_eval(x, p, in(c, 0), in(c, 1), in(c, 2), o, sc, &s)))
      return s;
  }
  if (!REG_REF) return no_reference(c, "CONV_2D");
  return ap_conv_eval(c->params, in(c, 0), in(c, 1), in(c, 2), c->outputs[0], c->scratch);
}
static bool dw_need(const ap_kexec *x, ap_kctx *c, size_t *scratch) {
  const ap_conv_params *p = c->params;
  if (!p || !in(c, 0) || !in(c, 1)) return false;
  return (REG_T(AP_REG_INT8) && ap_fast_lean_dw_scratch(x, p, in(c, 0), in(c, 1), scratch)) ||
         (REG_T(AP_REG_INT8) && ap_fast_dw_scratch(x, p, in(c, 0), in(c, 1), scratch)) ||
         (REG_T(AP_REG_UINT8) && ap_fast_u8dw_scratch(x, p, in(c, 0), in(c, 1), scratch));
}
static ap_status dw_prep(ap_kctx *c, size_t *scratch) {
  ARITY("DEPTHWISE_CONV_2D", 2, 3);
  if (!in(c, 1)) return ap_fail(c->err, AP_ERR_FORMAT, "DEPTHWISE_CONV_2D: filter is missing");
  ap_conv_params *p = c->params;
  ap_status s = ap_depthwise_prepare(&c->options->conv, in(c, 0), in(c, 1), in(c, 2), c->outputs[0],
                                     p, c->err);
  ap_fast_small one;
  *scratch = p->scratch_bytes;
  if (s == AP_OK && REG_FAST) ap_fast_bounded(c, dw_need, p->scratch_bytes, false, &one, scratch);
  if (s == AP_OK && !REG_REF && !dw_need(c->options->exec, c, &(size_t){0}))
    return no_reference(c, "DEPTHWISE_CONV_2D");
  return s;
}
static ap_status dw_run(ap_kctx *c) {
  ap_status s;
  if (REG_FAST) {
    ap_fast_small one;
    size_t bytes;
    const ap_conv_params *p = c->params;
    ap_kexec serial;
    /* The lean kernel splits an output over its input band by band itself. */
    const ap_kexec *xb =
        p ? ap_fast_bounded(c, dw_need, p->scratch_bytes, true, &one, &bytes) : NULL;
    const ap_kexec *x = ap_fast_in_order(xb, in(c, 0), c->outputs[0], &serial);
    void *sc = c->scratch;
    ap_ktensor *o = c->outputs[0];
    if ((REG_T(AP_REG_INT8) &&
         ap_fast_lean_dw_eval(xb, p, in(c, 0), in(c, 1), in(c, 2), o, sc, &s)) ||
        (REG_T(AP_REG_INT8) && ap_fast_dw_eval(x, p, in(c, 0), in(c, 1), in(c, 2), o, sc, &s)) ||
        (REG_T(AP_REG_UINT8) && ap_fast_u8dw_eval(x, p, in(c, 0), in(c, 1), in(c, 2), o, sc, &s)) ||
        (REG_T(AP_REG_FLOAT) && ap_fast_fdw_eval(x, p, in(c, 0), in(c, 1), in(c, 2), o, &s)))
      return s;
  }
  if (!REG_REF) return no_reference(c, "DEPTHWISE_CONV_2D");
  return ap_depthwise_eval(c->params, in(c, 0), in(c, 1), in(c, 2), c->outputs[0], c->scratch);
}
static ap_status fc_prep(ap_kctx *c, size_t *scratch) {
  ARITY("FULLY_CONNECTED", 2, 3);
  if (!in(c, 1)) return ap_fail(c->err, AP_ERR_FORMAT, "FULLY_CONNECTED: weights are missing");
  ap_fc_params *p = c->params;
  ap_status s =
      ap_fc_prepare(&c->options->fc, in(c, 0), in(c, 1), in(c, 2), c->outputs[0], p, c->err);
  *scratch = p->scratch_bytes;
  const ap_kexec *x = c->options->exec;
  bool fast = s == AP_OK && ((REG_T(AP_REG_INT8) && ap_fast_fc_scratch(x, p, scratch)) ||
                             (REG_T(AP_REG_FLOAT) && ap_fast_ffc_scratch(x, p, scratch)));
  /* Without a reference kernel only the int8 path is known to cover the op here. */
  if (s == AP_OK && !REG_REF && (!fast || in(c, 0)->type != AP_INT8))
    return no_reference(c, "FULLY_CONNECTED");
  return s;
}
static ap_status fc_run(ap_kctx *c) {
  ap_status s;
  const ap_kexec *x = c->options->exec;
  const ap_fc_params *p = c->params;
  void *sc = c->scratch;
  ap_ktensor *o = c->outputs[0];
  /* int8 first: each path takes only its own kinds, and small int8 models run it per op */
  if ((REG_T(AP_REG_INT8) && ap_fast_fc_eval(x, p, in(c, 0), in(c, 1), in(c, 2), o, sc, &s)) ||
      (REG_T(AP_REG_UINT8) && ap_fast_u8fc_eval(x, p, in(c, 0), in(c, 1), in(c, 2), o, &s)) ||
      (REG_T(AP_REG_INT16) && ap_fast_fc16_eval(x, p, in(c, 0), in(c, 1), in(c, 2), o, sc, &s)) ||
      (REG_T(AP_REG_FLOAT) && ap_fast_ffc_eval(x, p, in(c, 0), in(c, 1), in(c, 2), o, sc, &s)))
    return s;
  if (!REG_REF) return no_reference(c, "FULLY_CONNECTED");
  return ap_fc_eval(c->params, in(c, 0), in(c, 1), in(c, 2), c->outputs[0], c->scratch);
}

/* --- pooling, softmax --- */
/* The reference pools' float32 and int16 kinds are left out with their types. */
#define POOL_WIDE (AP_REGISTRY_TYPES & (AP_REG_FLOAT | AP_REG_INT16))
static ap_status pool_prep(ap_kctx *c, size_t *scratch, int kind) {
  ARITY(kind == AP_KPOOL_MAX ? "MAX_POOL_2D" : "AVERAGE_POOL_2D", 1, 1);
  *scratch = 0;
  if (!POOL_WIDE && (in(c, 0)->type == AP_FLOAT32 || in(c, 0)->type == AP_INT16))
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "%s: float32 and int16 are not registered (AP_REGISTRY_TYPES)",
                   kind == AP_KPOOL_MAX ? "MAX_POOL_2D" : "AVERAGE_POOL_2D");
  return ap_pool_prepare(kind, &c->options->pool, in(c, 0), c->outputs[0], c->params, c->err);
}
static ap_status avg_prep(ap_kctx *c, size_t *s) {
  return pool_prep(c, s, AP_KPOOL_AVERAGE);
}
static ap_status max_prep(ap_kctx *c, size_t *s) {
  return pool_prep(c, s, AP_KPOOL_MAX);
}
static ap_status pool_run(ap_kctx *c) {
  ap_status s;
  ap_kexec serial;
  const ap_kexec *x = ap_fast_in_order(c->options->exec, in(c, 0), c->outputs[0], &serial);
#if AP_MVE_NATIVE
  if (REG_T(AP_REG_INT8) && ap_fast_mve_pool_eval(x, c->params, in(c, 0), c->outputs[0], &s))
    return s;
#endif
  if ((REG_T(AP_REG_INT8 | AP_REG_UINT8 | AP_REG_INT16) && !AP_FAST_DSP_ONLY &&
       ap_fast_pool_eval(x, c->params, in(c, 0), c->outputs[0], &s)) ||
      (REG_T(AP_REG_FLOAT) && ap_fast_fpool_eval(x, c->params, in(c, 0), c->outputs[0], &s)))
    return s;
  if (!POOL_WIDE) return ap_pool_eval_rows_8bit(c->params, in(c, 0), c->outputs[0], NULL);
  return ap_pool_eval(c->params, in(c, 0), c->outputs[0]);
}
static ap_status softmax_prep(ap_kctx *c, size_t *scratch) {
  ARITY("SOFTMAX", 1, 1);
  ap_softmax_params *p = c->params;
  /* int16 and float32 are reference kernels of their own (softmax16.c, expf): left out with
   * their types. */
  ap_status s = (AP_REGISTRY_TYPES & AP_REG_INT16   ? ap_softmax_prepare
                 : AP_REGISTRY_TYPES & AP_REG_FLOAT ? ap_softmax_prepare_float
                                                    : ap_softmax_prepare_8bit)(
      c->options->beta, in(c, 0), c->outputs[0], p, c->err);
  *scratch = s == AP_OK ? p->scratch_bytes : 0; /* int16: its tables */
  size_t fast;
  if (s == AP_OK && AP_FAST_DIRECT && REG_T(AP_REG_INT8 | AP_REG_UINT8) &&
      ap_fast_softmax_scratch(c->options->exec, p, in(c, 0), c->outputs[0], &fast) &&
      fast > *scratch)
    *scratch = fast;
  return s;
}
static ap_status softmax_run(ap_kctx *c) {
  ap_status s;
  if (AP_FAST_DIRECT && REG_T(AP_REG_INT8 | AP_REG_UINT8) &&
      ap_fast_softmax_eval(c->options->exec, c->params, in(c, 0), c->outputs[0], c->scratch, &s))
    return s;
  return (AP_REGISTRY_TYPES & (AP_REG_INT16 | AP_REG_FLOAT)
              ? ap_softmax_eval_scratch
              : ap_softmax_eval_8bit)(c->params, in(c, 0), c->outputs[0], c->scratch);
}

/* --- elementwise, activations --- */
static ap_status bin_prep(ap_kctx *c, size_t *scratch, int op, const char *name) {
  ARITY(name, 2, 2);
  if (!in(c, 1)) return ap_fail(c->err, AP_ERR_FORMAT, "%s: second input is missing", name);
  *scratch = 0;
  return ap_binary_prepare(op, c->options->activation, in(c, 0), in(c, 1), c->outputs[0], c->params,
                           c->err);
}
static ap_status add_prep(ap_kctx *c, size_t *s) {
  return bin_prep(c, s, AP_KBIN_ADD, "ADD");
}
static ap_status sub_prep(ap_kctx *c, size_t *s) {
  return bin_prep(c, s, AP_KBIN_SUB, "SUB");
}
static ap_status mul_prep(ap_kctx *c, size_t *s) {
  return bin_prep(c, s, AP_KBIN_MUL, "MUL");
}
static ap_status bin_run(ap_kctx *c) {
  ap_status s;
  const ap_kexec *x = c->options->exec;
  if ((REG_T(AP_REG_INT8 | AP_REG_UINT8) &&
       ap_fast_add_eval(x, c->params, in(c, 0), in(c, 1), c->outputs[0], &s)) ||
      (REG_T(AP_REG_FLOAT) &&
       (ap_fast_fadd_eval(x, c->params, in(c, 0), in(c, 1), c->outputs[0], &s) ||
        ap_fast_fbin_eval(x, c->params, in(c, 0), in(c, 1), c->outputs[0], &s))))
    return s;
  return ap_binary_eval(c->params, in(c, 0), in(c, 1), c->outputs[0]);
}
static ap_status un_prep(ap_kctx *c, size_t *scratch, int op, const char *name) {
  ARITY(name, 1, 1);
  ap_unary_params *p = c->params;
  ap_status s = ap_unary_prepare(op, in(c, 0), c->outputs[0], p, c->err);
  *scratch = s == AP_OK ? p->scratch_bytes : 0; /* int16 LOGISTIC, TANH: their table */
  return s;
}
static ap_status relu_prep(ap_kctx *c, size_t *s) {
  return un_prep(c, s, AP_KUN_RELU, "RELU");
}
static ap_status relu6_prep(ap_kctx *c, size_t *s) {
  return un_prep(c, s, AP_KUN_RELU6, "RELU6");
}
static ap_status logistic_prep(ap_kctx *c, size_t *s) {
  return un_prep(c, s, AP_KUN_LOGISTIC, "LOGISTIC");
}
static ap_status tanh_prep(ap_kctx *c, size_t *s) {
  return un_prep(c, s, AP_KUN_TANH, "TANH");
}
static ap_status un_run(ap_kctx *c) {
  return ap_unary_eval_scratch(c->params, in(c, 0), c->outputs[0], c->scratch);
}

/* --- shape ops --- */
static ap_status pad_prep(ap_kctx *c, size_t *scratch) {
  ARITY("PAD", 2, 3);
  if (!in(c, 1)) return ap_fail(c->err, AP_ERR_FORMAT, "PAD: paddings are missing");
  *scratch = 0;
  return ap_pad_prepare(in(c, 0), in(c, 1), in(c, 2), c->outputs[0], c->params, c->err);
}
static ap_status pad_run(ap_kctx *c) {
  ap_status s;
  if (REG_FAST && ap_fast_pad_eval(c->options->exec, c->params, in(c, 0), c->outputs[0], &s))
    return s;
  return ap_pad_eval(c->params, in(c, 0), c->outputs[0]);
}
static ap_status mean_prep(ap_kctx *c, size_t *scratch) {
  ARITY("MEAN", 2, 2);
  if (!in(c, 1)) return ap_fail(c->err, AP_ERR_FORMAT, "MEAN: axis is missing");
  ap_mean_params *p = c->params;
  ap_status s =
      ap_mean_prepare(in(c, 0), in(c, 1), c->options->keep_dims, c->outputs[0], p, c->err);
  *scratch = p->scratch_bytes;
  return s;
}
static ap_status mean_run(ap_kctx *c) {
  ap_status s;
  if (REG_FAST &&
      ap_fast_mean_eval(c->options->exec, c->params, in(c, 0), c->outputs[0], c->scratch, &s))
    return s;
  return ap_mean_eval(c->params, in(c, 0), c->outputs[0], c->scratch);
}
static ap_status transpose_prep(ap_kctx *c, size_t *scratch) {
  ARITY("TRANSPOSE", 2, 2);
  if (!in(c, 1)) return ap_fail(c->err, AP_ERR_FORMAT, "TRANSPOSE: perm is missing");
  *scratch = 0;
  return ap_transpose_prepare(in(c, 0), in(c, 1), c->outputs[0], c->params, c->err);
}
static ap_status transpose_run(ap_kctx *c) {
  ap_status s;
  if (REG_FAST && ap_fast_transpose_eval(c->options->exec, c->params, in(c, 0), c->outputs[0], &s))
    return s;
  return ap_transpose_eval(c->params, in(c, 0), c->outputs[0]);
}
static ap_status concat_prep(ap_kctx *c, size_t *scratch) {
  ARITY("CONCATENATION", 1, 1 << 16);
  *scratch = 0;
  return ap_concat_prepare(c->options->axis, c->options->activation, c->inputs, c->n_inputs,
                           c->outputs[0], c->params, c->err);
}
static ap_status concat_run(ap_kctx *c) {
  return ap_concat_eval(c->params, c->inputs, c->n_inputs, c->outputs[0]);
}
static ap_status reshape_prep(ap_kctx *c, size_t *scratch) {
  ARITY("RESHAPE", 1, 2);
  *scratch = 0;
  const ap_ktensor *shape = in(c, 1);
  ap_ktensor *out = c->outputs[0];
  int32_t dims[AP_KMAXDIMS];
  const int32_t *v = NULL;
  int n = 0;
  size_t count;
  /* A shape input with data wins (TFLite's order); then the options; then the shape the model
   * declares for the output. */
  if (shape && shape->data && shape->type == AP_INT32 && ap_ktensor_count(shape, &count) &&
      shape->rank == 1) {
    if (count > AP_KMAXDIMS) {
      return ap_fail(c->err, AP_ERR_UNSUPPORTED, "RESHAPE: rank %zu too large", count);
    }
    v = shape->data;
    n = (int)count;
  } else if (c->options->new_shape && c->options->new_shape_n > 0) {
    v = c->options->new_shape;
    n = c->options->new_shape_n;
  } else {
    if (out->rank < 0 || out->rank > AP_KMAXDIMS) {
      return ap_fail(c->err, AP_ERR_FORMAT, "RESHAPE: no shape");
    }
    memcpy(dims, out->dims, sizeof dims);
    v = dims;
    n = out->rank;
  }
  return ap_reshape_prepare(in(c, 0), v, n, out, c->err);
}
static ap_status reshape_run(ap_kctx *c) {
  return ap_reshape_eval(in(c, 0), c->outputs[0]);
}
static ap_status quantize_prep(ap_kctx *c, size_t *scratch) {
  ARITY("QUANTIZE", 1, 1);
  *scratch = 0;
  return ap_quantize_prepare(in(c, 0), c->outputs[0], c->params, c->err);
}
static ap_status dequantize_prep(ap_kctx *c, size_t *scratch) {
  ARITY("DEQUANTIZE", 1, 1);
  *scratch = 0;
  return ap_dequantize_prepare(in(c, 0), c->outputs[0], c->params, c->err);
}
static ap_status quantize_run(ap_kctx *c) {
  return ap_quantize_eval(c->params, in(c, 0), c->outputs[0]);
}

/* --- kops.h families: bind the builtin code --- */
#define KX_UNARY(NAME)                                                                             \
  static ap_status NAME##_kxprep(ap_kctx *c, size_t *s) {                                          \
    return ap_kx_unary_prepare(c, s, AP_KB_##NAME);                                                \
  }
#define KX_BINARY(NAME)                                                                            \
  static ap_status NAME##_kxprep(ap_kctx *c, size_t *s) {                                          \
    return ap_kx_binary_prepare(c, s, AP_KB_##NAME);                                               \
  }
KX_UNARY(SQRT)
KX_UNARY(RSQRT)
KX_UNARY(EXP)
KX_UNARY(LOG)
KX_UNARY(ABS)
KX_UNARY(NEG)
KX_UNARY(LEAKY_RELU)
KX_BINARY(DIV)
KX_BINARY(FLOOR_DIV)
KX_BINARY(SQUARED_DIFFERENCE)
KX_BINARY(POW)
KX_BINARY(MAXIMUM)
KX_BINARY(MINIMUM)
KX_BINARY(EQUAL)
KX_BINARY(LESS)
KX_BINARY(SELECT_V2)

#define KX_ENTRY(NAME, EVAL)                                                                       \
  { AP_KB_##NAME, #NAME, sizeof(ap_kx_params), NAME##_kxprep, EVAL }

static const ap_kernel kernels[] = {
    {B_ADD, "ADD", sizeof(ap_binary_params), add_prep, bin_run},
    {B_AVERAGE_POOL_2D, "AVERAGE_POOL_2D", sizeof(ap_pool_params), avg_prep, pool_run},
    {B_CONCATENATION, "CONCATENATION", sizeof(ap_concat_params), concat_prep, concat_run},
    {B_CONV_2D, "CONV_2D", sizeof(ap_conv_params), conv_prep, conv_run},
    {B_DEPTHWISE_CONV_2D, "DEPTHWISE_CONV_2D", sizeof(ap_conv_params), dw_prep, dw_run},
    {B_DEQUANTIZE, "DEQUANTIZE", sizeof(ap_quantize_params), dequantize_prep, quantize_run},
    {B_FULLY_CONNECTED, "FULLY_CONNECTED", sizeof(ap_fc_params), fc_prep, fc_run},
    {B_LOGISTIC, "LOGISTIC", sizeof(ap_unary_params), logistic_prep, un_run},
    {B_MAX_POOL_2D, "MAX_POOL_2D", sizeof(ap_pool_params), max_prep, pool_run},
    {B_MUL, "MUL", sizeof(ap_binary_params), mul_prep, bin_run},
    {B_RELU, "RELU", sizeof(ap_unary_params), relu_prep, un_run},
    {B_RELU6, "RELU6", sizeof(ap_unary_params), relu6_prep, un_run},
    {B_RESHAPE, "RESHAPE", 0, reshape_prep, reshape_run},
    {B_SOFTMAX, "SOFTMAX", sizeof(ap_softmax_params), softmax_prep, softmax_run},
    {B_TANH, "TANH", sizeof(ap_unary_params), tanh_prep, un_run},
    {B_PAD, "PAD", sizeof(ap_pad_params), pad_prep, pad_run},
    {B_TRANSPOSE, "TRANSPOSE", sizeof(ap_transpose_params), transpose_prep, transpose_run},
    {B_MEAN, "MEAN", sizeof(ap_mean_params), mean_prep, mean_run},
    {B_SUB, "SUB", sizeof(ap_binary_params), sub_prep, bin_run},
    {B_PADV2, "PADV2", sizeof(ap_pad_params), pad_prep, pad_run},
    {B_QUANTIZE, "QUANTIZE", sizeof(ap_quantize_params), quantize_prep, quantize_run},
    KX_ENTRY(SQRT, ap_kx_unary_eval),
    KX_ENTRY(RSQRT, ap_kx_unary_eval),
    KX_ENTRY(EXP, ap_kx_unary_eval),
    KX_ENTRY(LOG, ap_kx_unary_eval),
    KX_ENTRY(ABS, ap_kx_unary_eval),
    KX_ENTRY(NEG, ap_kx_unary_eval),
    KX_ENTRY(LEAKY_RELU, ap_kx_unary_eval),
    KX_ENTRY(DIV, ap_kx_binary_eval),
    KX_ENTRY(FLOOR_DIV, ap_kx_binary_eval),
    KX_ENTRY(SQUARED_DIFFERENCE, ap_kx_binary_eval),
    KX_ENTRY(POW, ap_kx_binary_eval),
    KX_ENTRY(MAXIMUM, ap_kx_binary_eval),
    KX_ENTRY(MINIMUM, ap_kx_binary_eval),
    KX_ENTRY(EQUAL, ap_kx_binary_eval),
    KX_ENTRY(LESS, ap_kx_binary_eval),
    KX_ENTRY(SELECT_V2, ap_kx_binary_eval),
    {AP_KB_CAST, "CAST", sizeof(ap_kx_params), ap_kx_cast_prepare, ap_kx_cast_eval},
    {AP_KB_SHAPE, "SHAPE", sizeof(ap_kx_params), ap_kx_shape_prepare, ap_kx_shape_eval},
    {AP_KB_PACK, "PACK", sizeof(ap_kx_params), ap_kx_pack_prepare, ap_kx_pack_eval},
    {AP_KB_UNPACK, "UNPACK", sizeof(ap_kx_params), ap_kx_unpack_prepare, ap_kx_unpack_eval},
    {AP_KB_GATHER, "GATHER", sizeof(ap_kx_params), ap_kx_gather_prepare, ap_kx_gather_eval},
    {AP_KB_ARG_MAX, "ARG_MAX", sizeof(ap_kx_params), ap_kx_argmax_prepare, ap_kx_argmax_eval},
    {AP_KB_SLICE, "SLICE", sizeof(ap_kx_params), ap_kx_slice_prepare, ap_kx_slice_eval},
    {AP_KB_STRIDED_SLICE, "STRIDED_SLICE", sizeof(ap_kx_params), ap_kx_strided_slice_prepare,
     ap_kx_slice_eval},
    {AP_KB_PRELU, "PRELU", sizeof(ap_kx_params), ap_kx_prelu_prepare, ap_kx_prelu_eval},
    {AP_KB_REVERSE_V2, "REVERSE_V2", sizeof(ap_kx_params), ap_kx_reverse_prepare,
     ap_kx_reverse_eval},
    {AP_KB_TRANSPOSE_CONV, "TRANSPOSE_CONV", sizeof(ap_kx_params), ap_fast_tconv_prepare,
     ap_fast_tconv_eval},
    {AP_KB_BATCH_MATMUL, "BATCH_MATMUL", sizeof(ap_kx_params), ap_fast_bmm_prepare,
     ap_fast_bmm_eval},
    {AP_KB_GATHER_ND, "GATHER_ND", sizeof(ap_kx_params), ap_kx_gather_nd_prepare,
     ap_kx_gather_nd_eval},
    {AP_KB_RESIZE_BILINEAR, "RESIZE_BILINEAR", sizeof(ap_kx_params), ap_kx_resize_bilinear_prepare,
     ap_kx_resize_bilinear_eval},
    {AP_KB_SVDF, "SVDF", sizeof(ap_svdf_params), ap_kx_svdf_prepare, ap_kx_svdf_eval},
    {AP_KB_UNIDIRECTIONAL_SEQUENCE_LSTM, "UNIDIRECTIONAL_SEQUENCE_LSTM", sizeof(ap_lstm_params),
     ap_kx_lstm_prepare, ap_kx_lstm_eval},
    {AP_KB_TILE, "TILE", sizeof(ap_kx_params), ap_kx_tile_prepare, ap_kx_tile_eval},
    {AP_KB_L2_NORMALIZATION, "L2_NORMALIZATION", sizeof(ap_kx_params), ap_kx_l2norm_prepare,
     ap_kx_l2norm_eval},
    /* -- 16x8 conv family, int8/int16 BATCH_MATMUL and TRANSPOSE_CONV, INT4 weights -- */

    /* -- int16 element-wise and activation ops; HARD_SWISH, ELU, LOG_SOFTMAX -- */
    {AP_KB_HARD_SWISH, "HARD_SWISH", sizeof(ap_kx_params), ap_kx_hard_swish_prepare,
     ap_kx_hard_swish_eval},
    {AP_KB_ELU, "ELU", sizeof(ap_kx_params), ap_kx_elu_prepare, ap_kx_elu_eval},
    {AP_KB_LOG_SOFTMAX, "LOG_SOFTMAX", sizeof(ap_kx_params), ap_kx_log_softmax_prepare,
     ap_kx_log_softmax_eval},

    /* -- data movement: SPLIT, SQUEEZE, space/depth/batch, broadcast, fill, pad, resize -- */
    {AP_KB_SPLIT, "SPLIT", sizeof(ap_kx_params), ap_kx_split_prepare, ap_kx_split_eval},
    {AP_KB_SPLIT_V, "SPLIT_V", sizeof(ap_kx_params), ap_kx_split_v_prepare, ap_kx_split_eval},
    {AP_KB_SQUEEZE, "SQUEEZE", sizeof(ap_kx_params), ap_kx_squeeze_prepare, ap_kx_view_eval},
    {AP_KB_EXPAND_DIMS, "EXPAND_DIMS", sizeof(ap_kx_params), ap_kx_expand_dims_prepare,
     ap_kx_view_eval},
    {AP_KB_ZEROS_LIKE, "ZEROS_LIKE", sizeof(ap_kx_params), ap_kx_zeros_like_prepare,
     ap_kx_zeros_like_eval},
    {AP_KB_FILL, "FILL", sizeof(ap_kx_params), ap_kx_fill_prepare, ap_kx_fill_eval},
    {AP_KB_SPACE_TO_DEPTH, "SPACE_TO_DEPTH", sizeof(ap_kx_params), ap_kx_space_to_depth_prepare,
     ap_kx_space_depth_eval},
    {AP_KB_DEPTH_TO_SPACE, "DEPTH_TO_SPACE", sizeof(ap_kx_params), ap_kx_depth_to_space_prepare,
     ap_kx_space_depth_eval},
    {AP_KB_SPACE_TO_BATCH_ND, "SPACE_TO_BATCH_ND", sizeof(ap_kx_params),
     ap_kx_space_to_batch_prepare, ap_kx_space_batch_eval},
    {AP_KB_BATCH_TO_SPACE_ND, "BATCH_TO_SPACE_ND", sizeof(ap_kx_params),
     ap_kx_batch_to_space_prepare, ap_kx_space_batch_eval},
    {AP_KB_BROADCAST_TO, "BROADCAST_TO", sizeof(ap_kx_params), ap_kx_broadcast_to_prepare,
     ap_kx_broadcast_to_eval},
    {AP_KB_BROADCAST_ARGS, "BROADCAST_ARGS", sizeof(ap_kx_params), ap_kx_broadcast_args_prepare,
     ap_kx_broadcast_args_eval},
    {AP_KB_MIRROR_PAD, "MIRROR_PAD", sizeof(ap_kx_params), ap_kx_mirror_pad_prepare,
     ap_kx_mirror_pad_eval},
    {AP_KB_DYNAMIC_UPDATE_SLICE, "DYNAMIC_UPDATE_SLICE", sizeof(ap_kx_params),
     ap_kx_update_slice_prepare, ap_kx_update_slice_eval},
    {AP_KB_EMBEDDING_LOOKUP, "EMBEDDING_LOOKUP", sizeof(ap_kx_params),
     ap_kx_embedding_lookup_prepare, ap_kx_embedding_lookup_eval},
    {AP_KB_CUMSUM, "CUMSUM", sizeof(ap_kx_params), ap_kx_cumsum_prepare, ap_kx_cumsum_eval},
    {AP_KB_ADD_N, "ADD_N", sizeof(ap_kx_params), ap_kx_add_n_prepare, ap_kx_add_n_eval},
    {AP_KB_RESIZE_NEAREST_NEIGHBOR, "RESIZE_NEAREST_NEIGHBOR", sizeof(ap_kx_params),
     ap_kx_resize_nearest_prepare, ap_kx_resize_nearest_eval},

    /* -- math, comparison, logic, reductions, ARG_MIN, L2_POOL_2D -- */
    AP_KML_ENTRY(FLOOR, ap_kx_params, ap_kx_unary_eval),
    AP_KML_ENTRY(CEIL, ap_kx_params, ap_kx_unary_eval),
    AP_KML_ENTRY(ROUND, ap_kx_params, ap_kx_unary_eval),
    AP_KML_ENTRY(SIN, ap_kx_params, ap_kx_unary_eval),
    AP_KML_ENTRY(COS, ap_kx_params, ap_kx_unary_eval),
    AP_KML_ENTRY(SQUARE, ap_kx_params, ap_kx_unary_eval),
    AP_KML_ENTRY(LOGICAL_NOT, ap_kx_params, ap_kx_unary_eval),
    AP_KML_ENTRY(FLOOR_MOD, ap_kx_params, ap_kx_binary_eval),
    AP_KML_ENTRY(GREATER, ap_kx_params, ap_kx_binary_eval),
    AP_KML_ENTRY(GREATER_EQUAL, ap_kx_params, ap_kx_binary_eval),
    AP_KML_ENTRY(LESS_EQUAL, ap_kx_params, ap_kx_binary_eval),
    AP_KML_ENTRY(NOT_EQUAL, ap_kx_params, ap_kx_binary_eval),
    AP_KML_ENTRY(LOGICAL_AND, ap_kx_params, ap_kx_binary_eval),
    AP_KML_ENTRY(LOGICAL_OR, ap_kx_params, ap_kx_binary_eval),
    AP_KML_ENTRY(SUM, ap_kreduce_params, ap_kx_reduce_eval),
    AP_KML_ENTRY(REDUCE_MAX, ap_kreduce_params, ap_kx_reduce_eval),
    AP_KML_ENTRY(REDUCE_MIN, ap_kreduce_params, ap_kx_reduce_eval),
    AP_KML_ENTRY(REDUCE_ALL, ap_kreduce_params, ap_kx_reduce_eval),
    {AP_KB_ARG_MIN, "ARG_MIN", sizeof(ap_kx_params), ap_kx_argmin_prepare, ap_kx_argmax_eval},
    {AP_KB_L2_POOL_2D, "L2_POOL_2D", sizeof(ap_pool_params), ap_kml_l2_pool_prepare,
     ap_kml_pool_eval},

    /* -- legacy uint8 kernels -- */
};

const ap_kernel *ap_kernel_find(int32_t builtin) {
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
    if (kernels[i].builtin == builtin) return &kernels[i];
  }
  return NULL;
}

/* The Signal ops keep their parsed options in params (at most AP_KPARAMS_SIZE, checked in
 * their files). */
#define SIG_ENTRY(NAME, FN)                                                                        \
  { 32, NAME, AP_KPARAMS_SIZE, ap_sig_##FN##_prepare, ap_sig_##FN##_eval }

/* Custom ops: `name` is the custom_code the model carries. */
static const ap_kernel custom_kernels[] = {
    /* -- TFLite_Detection_PostProcess -- */
    {32, "TFLite_Detection_PostProcess", sizeof(ap_detect_params), ap_detect_prepare,
     ap_detect_eval},

    /* -- the Signal library -- */
    SIG_ENTRY("SignalWindow", window),
    SIG_ENTRY("SignalFftAutoScale", fft_auto_scale),
    SIG_ENTRY("SignalRfft", rfft),
    SIG_ENTRY("SignalIrfft", irfft),
    SIG_ENTRY("SignalEnergy", energy),
    SIG_ENTRY("SignalFilterBank", filter_bank),
    SIG_ENTRY("SignalFilterBankSquareRoot", filter_bank_sqrt),
    SIG_ENTRY("SignalFilterBankSpectralSubtraction", spectral_subtraction),
    SIG_ENTRY("SignalFilterBankLog", filter_bank_log),
    SIG_ENTRY("SignalPCAN", pcan),
    SIG_ENTRY("SignalDelay", delay),
    SIG_ENTRY("SignalFramer", framer),
    SIG_ENTRY("SignalStacker", stacker),
    SIG_ENTRY("SignalOverlapAdd", overlap_add),

    {0, NULL, 0, NULL, NULL} /* keeps the array non-empty; never matched */
};

/* strcmp(a, b) == 0 without newlib's unrolled strcmp (0.7 KB in every firmware). */
static bool same_name(const char *a, const char *b) {
  while (*a && *a == *b)
    a++, b++;
  return *a == *b;
}

ap_kstate *ap_kernel_state(const ap_kernel *k, void *params) {
  /* The kernels whose params begin with an ap_kstate, by name: a table of their functions
   * would link the Signal kernels into every firmware (scripts/mcu_kernels.py keeps only a
   * model's rows; this table would keep the rest). */
  static const char *const with_state[] = {
      "SignalRfft",      "SignalIrfft",  "SignalFilterBankSpectralSubtraction",
      "SignalDelay",     "SignalFramer", "SignalStacker",
      "SignalOverlapAdd"};
  if (!k || !params || k->builtin != 32 || !k->name) return NULL;
  for (size_t i = 0; i < sizeof with_state / sizeof with_state[0]; i++)
    if (same_name(k->name, with_state[i])) return params;
  return NULL;
}

const ap_kernel *ap_kernel_find_custom(const char *name) {
  for (size_t i = 0; name && i + 1 < sizeof custom_kernels / sizeof custom_kernels[0]; i++) {
    if (strcmp(custom_kernels[i].name, name) == 0) return &custom_kernels[i];
  }
  return NULL;
}

const ap_kernel *ap_kernel_custom_at(size_t i) {
  return i + 1 < sizeof custom_kernels / sizeof custom_kernels[0] ? &custom_kernels[i] : NULL;
}

size_t ap_kernel_custom_count(void) {
  return sizeof custom_kernels / sizeof custom_kernels[0] - 1;
}

const ap_kernel *ap_kernel_at(size_t i) {
  return i < sizeof kernels / sizeof kernels[0] ? &kernels[i] : NULL;
}

size_t ap_kernel_count(void) {
  return sizeof kernels / sizeof kernels[0];
}

/* -- streamed segments (stream_kernels.h) -- */
/* A generated registration sets AP_REG_STREAM_<OP> to 0 for the streamable ops its model does
 * not have; the paths and types are those of the adapters above. */
#ifndef AP_REG_STREAM_CONV_2D
#define AP_REG_STREAM_CONV_2D 1
#endif
#ifndef AP_REG_STREAM_DEPTHWISE_CONV_2D
#define AP_REG_STREAM_DEPTHWISE_CONV_2D 1
#endif
#ifndef AP_REG_STREAM_POOL_2D
#define AP_REG_STREAM_POOL_2D 1
#endif
#ifndef AP_REG_STREAM_PAD
#define AP_REG_STREAM_PAD 1
#endif
#ifndef AP_REG_STREAM_ADD
#define AP_REG_STREAM_ADD 1
#endif
#ifndef AP_REG_STREAM_ELEM
#define AP_REG_STREAM_ELEM 1
#endif
#define SK(ON, FN) ((ON) ? (FN) : NULL)
#define SK_CONV AP_REG_STREAM_CONV_2D
#define SK_DW AP_REG_STREAM_DEPTHWISE_CONV_2D
static const ap_kstream stream_kernels = {
    SK(SK_CONV, ap_conv_prepare),
    SK(SK_DW, ap_depthwise_prepare),
    SK((SK_CONV && REG_REF), ap_conv_eval_rows),
    SK((SK_DW && REG_REF), ap_depthwise_eval_rows),
    SK((SK_CONV && REG_T(AP_REG_INT8 | AP_REG_FLOAT)), ap_fast_conv_rows_scratch),
    SK((SK_DW && REG_T(AP_REG_INT8)), ap_fast_dw_rows_scratch),
    SK((SK_CONV && REG_T(AP_REG_INT8 | AP_REG_FLOAT)), ap_fast_conv_rows_begin),
    SK((SK_DW && REG_T(AP_REG_INT8)), ap_fast_dw_rows_begin),
    SK((SK_CONV && REG_T(AP_REG_INT8 | AP_REG_FLOAT)), ap_fast_conv_rows),
    SK((SK_DW && REG_T(AP_REG_INT8)), ap_fast_dw_rows),
    SK(AP_REG_STREAM_POOL_2D, ap_pool_prepare),
    SK(AP_REG_STREAM_POOL_2D, POOL_WIDE ? ap_pool_eval_rows : ap_pool_eval_rows_8bit),
    SK(AP_REG_STREAM_PAD, ap_pad_prepare),
    SK(AP_REG_STREAM_PAD, ap_pad_eval_rows),
    SK(AP_REG_STREAM_ADD, ap_binary_prepare),
    SK(AP_REG_STREAM_ADD, ap_binary_eval),
    SK((AP_REG_STREAM_ADD && REG_T(AP_REG_INT8 | AP_REG_UINT8)), ap_fast_add_eval),
    SK((AP_REG_STREAM_ADD && REG_T(AP_REG_FLOAT)), ap_fast_fadd_eval),
    SK(AP_REG_STREAM_ELEM, &rt_stream_elem),
    SK(AP_REG_STREAM_ADD, &rt_stream_add),
#if AP_KSTREAM_WIN
    .win_scratch = SK((SK_CONV || SK_DW) && REG_T(AP_REG_INT8), ap_fast_win_rows_scratch),
    .win_begin = SK((SK_CONV || SK_DW) && REG_T(AP_REG_INT8), ap_fast_win_rows_begin),
    .win_rows = SK((SK_CONV || SK_DW) && REG_T(AP_REG_INT8), ap_fast_win_rows),
#endif
#if AP_KSTREAM_BLOCK
    .u8conv_scratch = SK(SK_CONV && REG_T(AP_REG_UINT8), ap_fast_u8conv_rows_scratch),
    .u8dw_scratch = SK(SK_DW && REG_T(AP_REG_UINT8), ap_fast_u8dw_rows_scratch),
    .fdw_scratch = SK(SK_DW && REG_T(AP_REG_FLOAT), ap_fast_fdw_rows_scratch),
    .u8conv_begin = SK(SK_CONV && REG_T(AP_REG_UINT8), ap_fast_u8conv_rows_begin),
    .u8conv_rows = SK(SK_CONV && REG_T(AP_REG_UINT8), ap_fast_u8conv_rows),
    .u8dw_rows = SK(SK_DW && REG_T(AP_REG_UINT8), ap_fast_u8dw_rows),
    .fdw_rows = SK(SK_DW && REG_T(AP_REG_FLOAT), ap_fast_fdw_rows),
    .pool_fast_scratch = SK(AP_REG_STREAM_POOL_2D && REG_FAST, ap_fast_pool_rows_scratch),
    .pool_fast_rows = SK(AP_REG_STREAM_POOL_2D && REG_FAST, ap_fast_pool_rows),
    .fconv_ready = SK(SK_CONV && REG_T(AP_REG_FLOAT), ap_fast_fconv_rows_ready),
    .fdw_ready = SK(SK_DW && REG_T(AP_REG_FLOAT), ap_fast_fdw_rows_ready),
    .pool_ready = SK(AP_REG_STREAM_POOL_2D && REG_FAST, ap_fast_pool_rows_ready),
    .block_run = SK((SK_CONV && REG_T(AP_REG_FLOAT)) || (SK_DW && REG_T(AP_REG_FLOAT)) ||
                        (AP_REG_STREAM_POOL_2D && REG_FAST),
                    ap_fast_block_rows_run),
#endif
};

const ap_kstream *ap_kernel_stream(void) {
  return &stream_kernels;
}
