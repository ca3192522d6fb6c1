/* The kernel registry: one uniform entry point per builtin op, so the interpreter can prepare
 * and run any op without knowing its family. Custom ops use the same ap_kernel shape.
 *
 *   const ap_kernel *k = ap_kernel_find(builtin);     // NULL: unsupported op
 *   ap_kctx c = {inputs, n_in, outputs, n_out, &options, params, NULL, &err};
 *   size_t scratch;
 *   k->prepare(&c, &scratch);                          // fills params, output dims, scratch
 *   ... plan scratch with the op's step ...
 *   c.scratch = arena + offset;
 *   k->eval(&c);                                       // no allocation
 *
 * `params` is storage of k->params_size bytes (aligned for any object) that the caller keeps
 * from prepare to every eval of that op: the op's only persistent state (per-channel
 * multipliers are rebuilt in scratch at each eval instead of being kept).
 */
#ifndef AP_KERNELS_REGISTRY_H
#define AP_KERNELS_REGISTRY_H

#include "kernels/kernels.h"

/* The builtin options a kernel reads, filled by the interpreter from the model. Only the
 * fields of the op's own options matter. */
typedef struct ap_kop_options {
  int activation;           /* ADD, SUB, MUL, DIV, CONCATENATION */
  ap_conv_options conv;     /* CONV_2D, DEPTHWISE_CONV_2D */
  ap_pool_options pool;     /* AVERAGE_POOL_2D, MAX_POOL_2D */
  ap_fc_options fc;         /* FULLY_CONNECTED */
  float beta;               /* SOFTMAX */
  int axis;                 /* CONCATENATION, PACK, UNPACK, GATHER */
  bool keep_dims;           /* MEAN */
  const int32_t *new_shape; /* RESHAPE, when it has no shape input; NULL: keep the output's */
  int new_shape_n;
  float alpha;                            /* LEAKY_RELU */
  int32_t count;                          /* PACK values_count, UNPACK num */
  int batch_dims;                         /* GATHER (axis: in `axis`, as PACK's and UNPACK's) */
  bool adj_x, adj_y;                      /* BATCH_MATMUL */
  bool align_corners, half_pixel_centers; /* RESIZE_BILINEAR */
  struct {
    int32_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
    bool offset;
  } ss; /* STRIDED_SLICE */
  struct {
    float cell_clip, proj_clip;
    bool time_major, asymmetric_quantize_inputs, diagonal_recurrent_tensors;
  } lstm;            /* UNIDIRECTIONAL_SEQUENCE_LSTM (its activation: `activation`) */
  int32_t svdf_rank; /* SVDF (its activation: `activation`) */
  /* Custom ops built in (TFLite_Detection_PostProcess, the Signal library): their FlexBuffers
   * options, read with src/model/flexbuf.h. */
  const uint8_t *custom_options;
  size_t custom_options_size;
  /* Not the model's: how to run. The fast kernels' level and threads (kernels/fast/fast.h),
   * the same in prepare and eval; NULL: the reference kernels on one thread. */
  const struct ap_kexec *exec;
  /* -- 16x8 conv family options -- */

  /* -- int16 element-wise options -- */

  /* -- data movement options -- */
  int32_t num_splits;          /* SPLIT, SPLIT_V (0: not stored) */
  int32_t block_size;          /* SPACE_TO_DEPTH, DEPTH_TO_SPACE */
  int mirror_mode;             /* MIRROR_PAD: 0 REFLECT, 1 SYMMETRIC */
  bool exclusive, reverse;     /* CUMSUM */
  const int32_t *squeeze_dims; /* SQUEEZE; none: every dim of size 1 */
  int squeeze_dims_n;

  /* -- math, comparison, logic, reduction options -- */
} ap_kop_options;

typedef struct ap_kctx {
  const ap_ktensor *const *inputs; /* NULL entries: optional inputs that are absent */
  int n_inputs;
  ap_ktensor *const *outputs;
  int n_outputs;
  const ap_kop_options *options;
  void *params;  /* params_size bytes, kept from prepare to eval */
  void *scratch; /* eval: the planned scratch (NULL when prepare asked for none) */
  ap_errbuf *err;
} ap_kctx;

/* State a kernel keeps across invokes (the Signal library's noise estimate, delay lines). The
 * params of a kernel with state begin with this header: prepare sets `bytes`; the caller points
 * `data` at that many bytes of persistent memory before eval, zeroed at allocate and by
 * ap_interpreter_reset_variables (as TFLite Micro's Reset does). A caller with no state to give
 * (shape folding) leaves it NULL, and eval then fails. */
typedef struct ap_kstate {
  void *data;
  size_t bytes;
} ap_kstate;

/* 8-aligned on every target: the runtime keeps an op's kernel choice in bits 1-2 of its
 * kernel's address (runtime_internal.h), which a 32-bit target's 4-byte alignment lacks. */
typedef struct ap_kernel {
  _Alignas(8) int32_t builtin;
  const char *name;
  size_t params_size; /* bytes of `params` this kernel uses (at most AP_KPARAMS_SIZE) */
  ap_status (*prepare)(ap_kctx *c, size_t *scratch_bytes);
  ap_status (*eval)(ap_kctx *c);
} ap_kernel;

/* Large enough for every builtin kernel's params. */
#define AP_KPARAMS_SIZE 256

const ap_kernel *ap_kernel_find(int32_t builtin);
/* The state header in `params` (after k's prepare filled them) when k keeps state, else NULL. */
ap_kstate *ap_kernel_state(const ap_kernel *k, void *params);
/* The custom ops TFLite Micro ships in its library, built in here, by custom_code (name);
 * their `builtin` is 32 (CUSTOM). NULL when not built in. */
const ap_kernel *ap_kernel_find_custom(const char *name);
const ap_kernel *ap_kernel_custom_at(size_t i);
size_t ap_kernel_custom_count(void);
/* The builtin kernels, for listing (e.g. `arenaplan info` saying what runs). */
const ap_kernel *ap_kernel_at(size_t i);
/* The input types an op (by name) runs, as the oracle proves them (op_types.c, generated). */
const char *ap_kernel_types(const char *op);
size_t ap_kernel_count(void);

#endif
