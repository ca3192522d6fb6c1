/* The data-movement and shape kernels of issue 15: split, squeeze/expand, space/depth/batch
 * rearrangements, broadcast, fill, mirror pad, slice updates, lookups, cumulative and n-ary
 * sums, nearest-neighbour resize. Context-level kernels (ap_kctx) like kops.h's; eval sees no
 * options, so prepare keeps what eval needs in its ap_kx_params.
 *
 * Most copy bytes and so take any element type with a size; where TFLite Micro refuses a type
 * that a byte copy handles, these kernels are a superset (they never compute different bytes).
 */
#ifndef AP_KERNELS_KOPS_DATAMOVE_H
#define AP_KERNELS_KOPS_DATAMOVE_H

#include "kernels/kops.h"

/* Builtin codes (schema.fbs BuiltinOperator). */
enum {
  AP_KB_DEPTH_TO_SPACE = 5,
  AP_KB_EMBEDDING_LOOKUP = 7,
  AP_KB_SPACE_TO_DEPTH = 26,
  AP_KB_BATCH_TO_SPACE_ND = 37,
  AP_KB_SPACE_TO_BATCH_ND = 38,
  AP_KB_SQUEEZE = 43,
  AP_KB_SPLIT = 49,
  AP_KB_EXPAND_DIMS = 70,
  AP_KB_ZEROS_LIKE = 93,
  AP_KB_FILL = 94,
  AP_KB_RESIZE_NEAREST_NEIGHBOR = 97,
  AP_KB_MIRROR_PAD = 100,
  AP_KB_SPLIT_V = 102,
  AP_KB_ADD_N = 106,
  AP_KB_CUMSUM = 128,
  AP_KB_BROADCAST_TO = 130,
  AP_KB_BROADCAST_ARGS = 145,
  AP_KB_DYNAMIC_UPDATE_SLICE = 151
};

/* datamove.c: what these kernels share. */
/* Prepare's start: n_in..max_in inputs and an output (ap_kx_arity), no scratch, params zeroed. */
ap_status ap_kxd_begin(ap_kctx *c, size_t *scratch, const char *op, int n_in, int max_in);
/* Input 0 has a valid shape of rank min_rank..max_rank and output 0 its type (with a size). */
ap_status ap_kxd_input(ap_kctx *c, const char *op, int min_rank, int max_rank);
/* Prepare's end: output 0's count fits (else AP_ERR_OVERFLOW naming op), and input 0's and
 * output 0's shapes are recorded for ap_kx_eval_io. */
ap_status ap_kxd_finish(ap_kctx *c, const char *op);
/* Element i of an INT32 or INT64 tensor. */
int64_t ap_kxd_int_at(const ap_ktensor *t, size_t i);
/* The values of `t`, an INT32/INT64 tensor of rank at most max_rank with at most max_n elements
 * (count in *n), that must be known in prepare because they decide an output shape:
 * AP_ERR_UNSUPPORTED naming `op` and `what` when they are not, AP_ERR_FORMAT when the tensor is
 * malformed. */
ap_status ap_kxd_shape_values(ap_kctx *c, const char *op, const char *what, const ap_ktensor *t,
                              int max_rank, int max_n, int64_t *v, int *n);
/* Output i has input 0's type, and that type has a size (byte-copying ops). */
ap_status ap_kxd_same_type(ap_kctx *c, const char *op, const ap_ktensor *in, const ap_ktensor *out);
/* out takes in's shape. */
void ap_kxd_shape_like(ap_ktensor *out, const ap_ktensor *in);
/* Product of dims [from, to) of t (dims known valid: t's count did not overflow). */
size_t ap_kxd_span(const ap_ktensor *t, int from, int to);

/* split.c: SPLIT, SPLIT_V */
ap_status ap_kx_split_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_split_v_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_split_eval(ap_kctx *c);
/* squeeze.c: SQUEEZE, EXPAND_DIMS (views: nothing to do when in place), ZEROS_LIKE, FILL */
ap_status ap_kx_squeeze_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_expand_dims_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_view_eval(ap_kctx *c);
ap_status ap_kx_zeros_like_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_zeros_like_eval(ap_kctx *c);
ap_status ap_kx_fill_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_fill_eval(ap_kctx *c);
/* space_depth.c: SPACE_TO_DEPTH, DEPTH_TO_SPACE, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND */
ap_status ap_kx_space_to_depth_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_depth_to_space_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_space_depth_eval(ap_kctx *c);
ap_status ap_kx_space_to_batch_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_batch_to_space_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_space_batch_eval(ap_kctx *c);
/* broadcast.c: BROADCAST_TO, BROADCAST_ARGS */
ap_status ap_kx_broadcast_to_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_broadcast_to_eval(ap_kctx *c);
ap_status ap_kx_broadcast_args_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_broadcast_args_eval(ap_kctx *c);
/* mirror_pad.c: MIRROR_PAD; update_slice.c: DYNAMIC_UPDATE_SLICE */
ap_status ap_kx_mirror_pad_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_mirror_pad_eval(ap_kctx *c);
ap_status ap_kx_update_slice_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_update_slice_eval(ap_kctx *c);
/* embedding_lookup.c: EMBEDDING_LOOKUP (float32, int8, int8 table to float32 output) */
ap_status ap_kx_embedding_lookup_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_embedding_lookup_eval(ap_kctx *c);
/* gather.c: the checks GATHER and GATHER_ND share: prepare's (two inputs, valid shapes, INT32
 * or INT64 indices, the output of the params' type) and eval's (data present, shapes as
 * prepared; the prepared shapes recorded by ap_kx_gather_record). */
ap_status ap_kx_gather_check(ap_kctx *c, size_t *scratch, const char *op);
ap_status ap_kx_gather_record(ap_kctx *c, const char *op);
bool ap_kx_gather_io(const ap_kctx *c, const ap_ktensor **in, const ap_ktensor **idx,
                     ap_ktensor **out);
/* cumsum.c: CUMSUM, ADD_N (float32, int8; ADD_N also int32) */
ap_status ap_kx_cumsum_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_cumsum_eval(ap_kctx *c);
ap_status ap_kx_add_n_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_add_n_eval(ap_kctx *c);
/* resize_nearest.c: RESIZE_NEAREST_NEIGHBOR */
ap_status ap_kx_resize_nearest_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_resize_nearest_eval(ap_kctx *c);

#endif
