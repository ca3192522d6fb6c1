/* The fast kernels of the legacy uint8 ops (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, per
 * tensor, TFLite's reference arithmetic): each SIMD level's ap_fast_level.ops points at one of
 * these tables (u8_generic.c, u8_avx2.c); the drivers (u8_conv.c, u8_dw.c, u8_fc.c) lay out
 * scratch, split the work over the threads and call the table's functions.
 *
 * Exactness. Every product is (w + filter_offset) * (x + input_offset), both factors in
 * [-255, 255]: int16 lanes, pairs summed into int32 by vpmaddwd without overflow. Sums wrap
 * modulo 2^32 as the reference's int64 sum reduced to int32, so any order gives its bits; the
 * requantization is the reference's MultiplyByQuantizedMultiplier with one multiplier.
 */
#ifndef AP_KERNELS_FAST_FASTOPS_H
#define AP_KERNELS_FAST_FASTOPS_H

#include "kernels/fast/fast.h"

/* One per-tensor requantization: out = clamp(mul(acc) + out_off, lo, hi). */
typedef struct ap_u8q {
  int32_t mult, shift, out_off, lo, hi;
} ap_u8q;

/* A uint8 matrix product over rows of a: out[r][c] = requant(bias[c] + sum_i a[r][i] *
 * (w[c][i] + w_off)) where a holds input + input_offset as int16, kp (k rounded up to the
 * table's kalign, zeros past k) apart. */
typedef struct ap_u8gemm {
  int32_t n, k, kp;
  const uint8_t *w; /* [n][k] */
  const int32_t *bias;
  int32_t w_off;
  ap_u8q q;
} ap_u8gemm;

/* Depthwise, uint8: output rows [oy0, oy1) of batch b. */
typedef struct ap_u8dw {
  const uint8_t *in, *f;
  const int32_t *bias;
  uint8_t *out;
  AP_FAST_GEOM;
  int32_t in_off, f_off;
  ap_u8q q;
} ap_u8dw;

/* Fully connected, uint8: units [u0, u1) of every batch. */
typedef struct ap_u8fc {
  const uint8_t *x, *w;
  const int32_t *bias;
  uint8_t *out;
  int32_t batches, depth, units, in_off, w_off;
  ap_u8q q;
} ap_u8fc;

/* AVERAGE_POOL_2D or MAX_POOL_2D of int8, uint8 or int16 (type: AP_INT8, ...). */
typedef struct ap_qpool {
  const void *in;
  void *out;
  int type, kind; /* AP_KPOOL_AVERAGE or AP_KPOOL_MAX */
  int32_t in_h, in_w, depth, out_h, out_w, f_h, f_w, stride_h, stride_w, pad_h, pad_w;
  int32_t act_min, act_max;
} ap_qpool;

/* q for the pool p of in into out (pool_fast.c); false when a tensor has no data or its shape
 * is not p's (the callers' AP_ERR_ARG). */
bool ap_fast_qpool_of(const ap_pool_params *p, const ap_ktensor *in, ap_ktensor *out, ap_qpool *q);

/* TRANSPOSE_CONV float32 (float_tconv.c): y (zeroed) += the reference's scatter of x over wt,
 * the filter as [ky][kx][ci][co]. */
typedef struct ap_ftconv {
  const float *x, *wt;
  float *y;
  int32_t batches, ih, iw, ic, fh, fw, oh, ow, oc, stride_h, stride_w, pad_h, pad_w;
  int32_t co0, co1; /* the output channels this call computes */
  /* wt's rows (0: oc) and the output channel of its first column: a chunk of the filter's
   * output channels transposed alone has rows of the chunk's width. */
  int32_t ws, wc0;
} ap_ftconv;
void ap_fast_tconv_float(const ap_ftconv *t);
/* Output channels in chunks of AP_FTCONV_CHUNK, each transposed from the filter w ([co][ky][kx]
 * [ci]) into wt (ap_fast_tconv_float_chunk_bytes) and scattered: a flat level's
 * (ap_fast_level_flat) TRANSPOSE_CONV, scratch for a chunk of the filter instead of all of it. */
enum { AP_FTCONV_CHUNK = 8 };
size_t ap_fast_tconv_float_chunk_bytes(int32_t fh, int32_t fw, int32_t ic, int32_t oc);
void ap_fast_tconv_float_chunks(const ap_ftconv *t, const float *w, float *wt);

/* Tasks a driver without per-task scratch splits into at most (AP_MAX_THREADS). */
#define AP_FAST_MAX_TASKS 64

typedef struct ap_fastops {
  int32_t mr, kalign; /* gemm rows per call; a rows' length multiple */
  void (*u8gemm)(const ap_u8gemm *g, const int16_t *a, int32_t rows, uint8_t *out,
                 size_t out_stride);
  /* The same product over weights packed first (output channels in lanes), for levels that
   * have it (NULL: none): u8pack fills u8pack_bytes(n, k) bytes from g->w and g->w_off. */
  size_t (*u8pack_bytes)(int32_t n, int32_t k);
  void (*u8pack)(const ap_u8gemm *g, void *packed);
  void (*u8gemm_packed)(const ap_u8gemm *g, const void *packed, const int16_t *a, int32_t rows,
                        uint8_t *out, size_t out_stride);
  /* ws: ap_fast_u8dw_ws bytes of this task's workspace. */
  void (*u8dw)(const ap_u8dw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws);
  void (*u8fc)(const ap_u8fc *f, int32_t u0, int32_t u1);
  /* Output rows [oy0, oy1) of batch b; false: an average over an empty window (the
   * reference's AP_ERR_KERNEL). */
  bool (*pool)(const ap_qpool *q, int32_t b, int32_t oy0, int32_t oy1);
  /* 16x8: sum of x[i] * w[i] over k, exact in int64 (int32 partial sums kept far from
   * overflow). */
  int64_t (*dot16x8)(const int16_t *x, const int8_t *w, int32_t k);
  /* sum of x[i] * y[i] over kp (a multiple of kalign) modulo 2^32, values in [-255, 255]. */
  int32_t (*dot16x16)(const int16_t *x, const int16_t *y, int32_t kp);
  /* Float rows times a matrix: out[i][j] (m x n) = the reference's sum over q < k, from 0.0f
   * in q order, of a[i * a_row + q * a_col] * b[q * n + j]. */
  void (*fmm)(const float *a, size_t a_row, size_t a_col, const float *b, float *out, int32_t m,
              int32_t n, int32_t k);
  /* Patch rows of output pixels (b, oy, ox) on, rows of them in batch, row, column order, of
   * a uint8 convolution of geometry g over whole input maps: each row's k values (input +
   * off, 0 in padded positions) at a + i * kp, nothing written past k. NULL: the driver's. */
  void (*u8patch)(const ap_fast_geom *g, const uint8_t *in, int16_t off, int32_t b, int32_t oy,
                  int32_t ox, int32_t rows, int32_t kp, int16_t *a);
  /* Three byte planes interleaved (TRANSPOSE's NCHW to NHWC of 3 channels): o[3 a + l] =
   * s[l * istl + a] for a < n, l < 3. NULL: transpose_fast.c's tiles. */
  void (*planes3)(const uint8_t *s, size_t istl, uint8_t *o, size_t n);
} ap_fastops;

/* A depthwise task's workspace: int16 tap pairs of (weight + offset) for 8-channel blocks and
 * a row of input zero points (with room for reads past its end). */
static inline size_t ap_fast_u8dw_ws(int32_t taps, int32_t channels) {
  return ap_kscratch_round((size_t)(taps + 1) / 2 * (size_t)(channels / 8) * 32 + (size_t)channels +
                           16);
}

static inline uint8_t ap_fast_u8requant(int32_t acc, const ap_u8q *q) {
  return (uint8_t)ap_kq_clamp(ap_kq_mul(acc, q->mult, q->shift) + q->out_off, q->lo, q->hi);
}

void ap_fastops_generic_fmm(const float *a, size_t a_row, size_t a_col, const float *b, float *out,
                            int32_t m, int32_t n, int32_t k);
void ap_fastops_avx2_fmm(const float *a, size_t a_row, size_t a_col, const float *b, float *out,
                         int32_t m, int32_t n, int32_t k);
bool ap_fastops_generic_pool(const ap_qpool *q, int32_t b, int32_t oy0, int32_t oy1);
bool ap_fastops_avx2_pool(const ap_qpool *q, int32_t b, int32_t oy0, int32_t oy1);
void ap_fastops_avx2_planes3(const uint8_t *s, size_t istl, uint8_t *o, size_t n);

/* Generic kernels the wider tables fall back on for shapes they do not cover. */
void ap_fastops_generic_u8dw(const ap_u8dw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws);
#ifdef AP_FAST_X86
/* The AVX2 depthwise kernel of dw_avx2.c for uint8, multiplier 1 (same workspace as u8dw);
 * false (nothing written): a shape or shift it leaves to the table's u8dw. */
bool ap_fast_avx2_u8dw1(const ap_u8dw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws);
#endif

/* AP_KERNELS_SMALL for the registry's adapters. need(x, c, scratch): the op's fast path
 * under exec x and its scratch bytes (false: none). Returns the exec the op's eval runs with:
 * the interpreter's, or (in tmp) the same on one thread, or on one thread without packed
 * weights, or NULL (the reference kernel) when the fast path would add more than
 * x->small_extra bytes to the reference's `ref`; *scratch: the bytes to plan. With eval and
 * no bound, returns the interpreter's exec without calling need. */
struct ap_kctx;
typedef bool (*ap_fast_need)(const ap_kexec *x, struct ap_kctx *c, size_t *scratch);
typedef struct ap_fast_small {
  ap_kexec x;
  ap_fast_level level;
} ap_fast_small;
const ap_kexec *ap_fast_bounded(struct ap_kctx *c, ap_fast_need need, size_t ref, bool eval,
                                ap_fast_small *tmp, size_t *scratch);

/* A uint8 CONV_2D's product over a range of output pixels (u8_conv.c), the whole-tensor
 * driver's and the segments' row ranges' (rows_u8.c): patch rows widened mr at a time into a
 * (mr rows of g.kp int16, zeros past g.k left as the caller set them), times the weights read
 * in place or packed (u8pack) before. */
typedef struct ap_u8conv_run {
  const ap_conv_params *p;
  const struct ap_fastops *ops;
  ap_u8gemm g;
  const void *packed; /* u8pack's weights; NULL: read in place */
  const uint8_t *in;
  uint8_t *out;
  AP_FAST_GEOM;
  int32_t in_ring, out_ring; /* rows the input and output hold (0: whole; else one batch) */
  bool flat;                 /* 1x1, stride 1, no padding: patch rows are input pixels */
  size_t out_stride;         /* bytes from one output pixel to the next (0: g.n) */
} ap_u8conv_run;
/* Whole maps, weights in place; shapes as the driver's plan checked them. */
void ap_fast_u8conv_init(ap_u8conv_run *r, const struct ap_fastops *ops, const ap_conv_params *p,
                         const ap_ktensor *in, const ap_ktensor *f, const ap_ktensor *bias,
                         ap_ktensor *out);
/* Output pixels [begin, end) in batch, row, column order. */
void ap_fast_u8conv_pixels(const ap_u8conv_run *r, int16_t *a, int64_t begin, int64_t end);

/* Hooks for the registry's adapters, as fast.h's. */
bool ap_fast_u8conv_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                            const ap_ktensor *f, size_t *scratch);
bool ap_fast_u8conv_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                         const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                         void *scratch, ap_status *s);
bool ap_fast_u8dw_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                          const ap_ktensor *f, size_t *scratch);
bool ap_fast_u8dw_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                       const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                       ap_status *s);
bool ap_fast_conv16_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                            const ap_ktensor *f, size_t *scratch);
bool ap_fast_conv16_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                         const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                         void *scratch, ap_status *s);
bool ap_fast_fc16_eval(const ap_kexec *x, const ap_fc_params *p, const ap_ktensor *in,
                       const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                       ap_status *s);
/* BATCH_MATMUL (int8, int16, float): the registry's adapters. */
ap_status ap_fast_bmm_prepare(struct ap_kctx *c, size_t *scratch);
ap_status ap_fast_bmm_eval(struct ap_kctx *c);
/* TRANSPOSE_CONV (int8, 16x8, float): the registry's adapters. */
ap_status ap_fast_tconv_prepare(struct ap_kctx *c, size_t *scratch);
ap_status ap_fast_tconv_eval(struct ap_kctx *c);
bool ap_fast_pool_eval(const ap_kexec *x, const ap_pool_params *p, const ap_ktensor *in,
                       ap_ktensor *out, ap_status *s);
bool ap_fast_u8fc_eval(const ap_kexec *x, const ap_fc_params *p, const ap_ktensor *in,
                       const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, ap_status *s);

#endif
