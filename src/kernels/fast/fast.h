/* Fast kernels: the same arithmetic as the reference kernels (which stay the specification),
 * computed by SIMD code chosen once, at allocate, from the CPU's features.
 *
 * Each SIMD level is a table of small functions (ap_fast_level) built from its own files,
 * compiled with that level's flags: int8_generic.c (portable C11), int8_sse41.c, int8_avx2.c
 * (with fc_avx2.c), int8_avx512.c (with conv_avx512.c, dw_avx512.c, fc_avx512.c, add_avx512.c),
 * and the float kernels float_generic.c (portable C11, which every level may reuse) and
 * float_*_avx2.c, float_*_avx512.c (CMakeLists.txt sets -msse4.1, -mavx2, the AVX-512 flags on
 * x86-64 only, by file name, and -ffp-contract=off on float_*.c); on AArch64 int8_neon.c,
 * float_conv_neon.c (Advanced SIMD, part of the base architecture) and int8_neondot.c
 * (-march=armv8.2-a+dotprod, set on AArch64 only); on Cortex-M cores with the DSP extension
 * int8_dsp.c. The drivers (conv_int8.c, conv_win.c, depthwise_int8.c, fc_int8.c, add_int8.c, pad.c;
 * float_conv.c, float_depthwise.c, float_fc.c, float_pool.c, float_binary.c) are level-agnostic:
 * they lay out scratch, split work over the threads and call the level's functions. A level with
 * direct kernels (conv_win.h: convolutions over windows of input rows, no patch rows) takes int8
 * CONV_2D and DEPTHWISE_CONV_2D through conv_win.c before the gemm and depthwise paths. The
 * registry's adapters call ap_fast_*_scratch/eval when the interpreter passes an ap_kexec
 * (ap_kop_options.exec); every case a driver does not cover falls back to the reference kernel.
 *
 * Exactness. Integer accumulation is modular (int32 wrapping, as the reference's int64 sum
 * reduced to 32 bits), so any order gives the same bits; requantization is the reference's
 * MultiplyByQuantizedMultiplier lane by lane. Float kernels keep each output element's
 * accumulation order and vectorise across output elements only (-ffp-contract=off, no FMA);
 * the convolution reads zeros for taps outside the input only when every weight is finite
 * (float_conv_impl.h says why that is exact).
 *
 * Memory. Packed weights, patch (im2col) rows and per-task workspaces live in the op's scratch,
 * sized by prepare for the level and the thread count, so the planner places them and reports
 * show them; fully connected needs no more scratch than the reference's, except float with 8
 * or more batches (its packed weights).
 */
#ifndef AP_KERNELS_FAST_H
#define AP_KERNELS_FAST_H

#include "kernels/kernels.h"
#include "kernels/quant.h"
#include "port/port.h"

/* Every architecture's levels; each build has generic plus its own architecture's (x86-64:
 * sse41, avx2, avx512; AArch64: neon, neondot). */
enum {
  AP_SIMD_GENERIC = 0,
  AP_SIMD_SSE41,
  AP_SIMD_AVX2,
  AP_SIMD_AVX512,
  AP_SIMD_NEON,
  AP_SIMD_NEONDOT,
  AP_SIMD_LEVELS
};

/* A quantized matrix product over rows of int8 patches: out[r][c] = requant(col_bias[c] +
 * sum_k a[r][k] * w[c][k]) where a holds (input + input_offset) in the level's row format. */
typedef struct ap_qgemm {
  int32_t n, k;
  const int8_t *w;         /* [n][k], the model's layout */
  const void *packed;      /* the level's packing of w */
  const int32_t *col_bias; /* n: bias plus the level's correction */
  const int32_t *mult, *shift;
  int32_t out_off, act_min, act_max;
} ap_qgemm;

/* A convolution's geometry, the same in every fast convolution's descriptor (depthwise, float,
 * the int8, uint8 and 16x8 drivers' jobs): input, output and filter extents, depth multiplier
 * (depthwise only), strides, dilations and leading pads. A descriptor holds it as AP_FAST_GEOM, a
 * union of geom (filled whole, by ap_fast_geom_of) and the same fields by name, so the levels'
 * kernels read d->in_h. */
#define AP_FAST_GEOM_FIELDS                                                                        \
  int32_t in_h, in_w, in_d, out_h, out_w, out_d, f_h, f_w, mult;                                   \
  int32_t stride_h, stride_w, dil_h, dil_w, pad_h, pad_w
typedef struct ap_fast_geom {
  AP_FAST_GEOM_FIELDS;
} ap_fast_geom;
#define AP_FAST_GEOM                                                                               \
  union {                                                                                          \
    ap_fast_geom geom;                                                                             \
    struct {                                                                                       \
      AP_FAST_GEOM_FIELDS;                                                                         \
    };                                                                                             \
  }

/* The whole maps' geometry, NHWC tensors of rank 4 as the driver checked them (a streamed row
 * range then narrows in_h, out_h and pad_h). Inline: on Cortex-M it compiles to the stores the
 * initialisers it replaced made. */
static inline ap_fast_geom ap_fast_geom_of(const ap_conv_params *p, const ap_ktensor *in,
                                           const ap_ktensor *f, const ap_ktensor *out) {
  return (ap_fast_geom){.in_h = in->dims[1],
                        .in_w = in->dims[2],
                        .in_d = in->dims[3],
                        .out_h = out->dims[1],
                        .out_w = out->dims[2],
                        .out_d = out->dims[3],
                        .f_h = f->dims[1],
                        .f_w = f->dims[2],
                        .mult = p->depth_multiplier,
                        .stride_h = p->stride_h,
                        .stride_w = p->stride_w,
                        .dil_h = p->dilation_h,
                        .dil_w = p->dilation_w,
                        .pad_h = p->pad.pad_h,
                        .pad_w = p->pad.pad_w};
}

/* Depthwise, int8, per channel. Output rows [oy0, oy1) of batch b. */
typedef struct ap_qdw {
  const int8_t *in, *f;
  const int32_t *bias; /* NULL: none */
  int8_t *out;
  AP_FAST_GEOM;
  int32_t in_off, out_off, act_min, act_max;
  const int32_t *qmult, *qshift;
} ap_qdw;

/* The op's whole maps into *d, its per-channel multipliers and shifts at qmult, qshift (filled
 * in place: on Cortex-M a returned struct costs a copy on the stack). */
static inline void ap_fast_qdw_set(ap_qdw *d, const ap_conv_params *p, const ap_ktensor *in,
                                   const ap_ktensor *f, const ap_ktensor *bias,
                                   const ap_ktensor *out, const int32_t *qmult,
                                   const int32_t *qshift) {
  d->in = in->data;
  d->f = f->data;
  d->bias = bias ? bias->data : NULL;
  d->out = out->data;
  d->geom = ap_fast_geom_of(p, in, f, out);
  d->in_off = p->input_offset;
  d->out_off = p->output_offset;
  d->act_min = p->act_min;
  d->act_max = p->act_max;
  d->qmult = qmult;
  d->qshift = qshift;
}

/* Fully connected, int8: rows of x (one per batch) times weight rows; input offset added on
 * the fly, so the fast path needs no scratch beyond the reference's. */
typedef struct ap_qfc {
  const int8_t *x; /* batches x depth */
  const int8_t *w; /* [units][depth] */
  const int32_t *bias;
  int8_t *out;
  int32_t batches, depth, units;
  int32_t in_off, filter_off, out_off, act_min, act_max;
  const int32_t *qmult, *qshift; /* per unit, or NULL: mult1 and shift1 for every unit */
  int32_t mult1, shift1;
} ap_qfc;

/* sum over the row of (x + in_off), modulo 2^32: what a nonzero filter offset multiplies. */
static inline uint32_t ap_fast_row_sum(const int8_t *x, int32_t depth, int32_t in_off) {
  uint32_t s = (uint32_t)in_off * (uint32_t)depth;
  for (int32_t d = 0; d < depth; d++)
    s += (uint32_t)(int32_t)x[d];
  return s;
}

/* Float convolution, output channels in lanes: wp holds the weights in panels of L output
 * channels (the level's fconv_lanes), [panel][fy][fx][ic][L] (zeros past out_d). Output rows
 * [r0, r1) of b * out_h; mult is not read. */
typedef struct ap_fconv {
  const float *in, *wp, *bias; /* bias: NULL for none */
  float *out;
  AP_FAST_GEOM;
  float lo, hi;
  /* in_d zeros, read for taps outside the input when every weight is finite (finite): 0 * w
   * then adds +-0, which leaves the sum as the reference's skipped tap does. */
  const float *zeros;
  bool finite;
  /* Passes over the filter's taps (float_conv.c's low-scratch variant): accum starts each sum
   * from the value out holds (the sum of the taps before) instead of 0.0f; partial stores the
   * sum as it is, without bias and clamp, for the next pass to go on. Storing a float and
   * loading it back is exact, so each output's chain of adds is the reference's. */
  bool accum, partial;
  /* Panels [p0, p1) of each pixel (p1 0: to the last): threads that split an in-place band
   * take its output channels, not its rows (float_conv.c; 16 bits: the struct's padding, which
   * a streamed member's state has no room to grow past). */
  int16_t p0, p1;
} ap_fconv;

/* Fully connected, float: out[b][u] = clamp(sum_d x[b][d] * w[u][d] + bias[u]), the sum from 0.0f
 * over d in order (the reference's), units in lanes; weights read in place (no scratch). */
typedef struct ap_ffc {
  const float *x, *w, *bias; /* x: batches x depth; w: [units][depth]; bias: NULL for none */
  float *out;
  int32_t batches, depth, units;
  float lo, hi;
} ap_ffc;

/* Depthwise, float: output channel oc = ic * mult + m reads input channel ic; each output's
 * taps (filter row, then column; those outside the input skipped) summed in order from 0.0f,
 * then the bias and the clamp. Output rows [r0, r1) of b * out_h. */
typedef struct ap_fdw {
  const float *in, *f, *bias; /* f: [f_h][f_w][out_d]; bias: NULL for none */
  float *out;
  AP_FAST_GEOM;
  float lo, hi;
} ap_fdw;

/* AVERAGE_POOL_2D or MAX_POOL_2D, float: windows clipped to the input; average: the sum in
 * window order from 0.0f over the count (a float), max: from -FLT_MAX by r < v ? v : r; then the
 * clamp. Output rows [r0, r1) of b * out_h. */
typedef struct ap_fpool {
  const float *in;
  float *out;
  int32_t in_h, in_w, depth, out_h, out_w, f_h, f_w, stride_h, stride_w, pad_h, pad_w;
  bool max;
  float lo, hi;
} ap_fpool;

/* A matrix product's functions: how weights are packed (at each eval, into scratch), how a row
 * of patches is stored, and the product itself. */
typedef struct ap_gemm_kit {
  int mr; /* gemm rows per call */
  size_t (*packed_bytes)(int32_t n, int32_t k);
  /* Fills packed (packed_bytes) and col_bias from w [n][k], bias (NULL: 0) and the input
   * offset. */
  void (*pack)(const int8_t *w, int32_t n, int32_t k, const int32_t *bias, int32_t in_off,
               void *packed, int32_t *col_bias);
  size_t (*arow_bytes)(int32_t k); /* one row of a, a multiple of 16 */
  /* One row of a from k int8 values (input bytes, padding holding the zero point). */
  void (*arow)(const int8_t *src, int32_t k, int32_t in_off, void *dst);
  /* rows (<= mr) rows of a, arow_bytes(k) apart; out rows out_stride apart; acc: mr * n
   * int32 of workspace. */
  void (*gemm)(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc, int8_t *out,
               size_t out_stride);
  /* Optional (NULL: arow, then gemm): two rows of int8 patches read where they lie, the second
   * k bytes after the first (a1 = a0 + k, or NULL: one row), outputs at out and
   * out + out_stride, col_bias as pack made it. The convolution driver then builds the two
   * patch rows side by side in the task's row of a (arow_bytes(k) >= 2k bytes). */
  void (*rows2)(const ap_qgemm *g, const int8_t *a0, const int8_t *a1, int8_t *out,
                size_t out_stride);
} ap_gemm_kit;

/* A depthwise task's workspace: interleaved tap pairs of weights for 8-channel blocks (dw_avx2.c
 * lays out 16-channel blocks in the same bytes) and a row of zero points (with room for reads
 * past its end). */
static inline size_t ap_fast_dw_ws(int32_t taps, int32_t channels) {
  return ap_kscratch_round((size_t)(taps + 1) / 2 * (size_t)(channels / 8) * 32 + (size_t)channels +
                           16);
}

typedef struct ap_fast_level {
  const char *name;
  int level;
  ap_gemm_kit gemm; /* weights read in place: any shape */
  /* Packed weights, output channels in lanes: for products of at least outer_min_m rows
   * (packing costs about one row's work) whose packing fits outer_max_bytes. NULL: none. */
  const ap_gemm_kit *outer;
  int32_t outer_min_m;
  size_t outer_max_bytes;
  /* ws: ap_fast_dw_ws(d) bytes of this task's workspace. */
  void (*dw)(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws);
  void (*fc)(const ap_qfc *f, int32_t u0, int32_t u1);
  /* Quantized ADD or SUB of two same-shape int8 (or uint8) tensors, n elements; NULL: the
   * reference's. */
  void (*add)(const ap_binary_params *p, const void *a, const void *b, void *out, size_t n,
              bool is_unsigned);
  /* Float CONV_2D (NULL: the reference's); keeps each output's sum order. */
  void (*fconv)(const ap_fconv *c, int32_t r0, int32_t r1);
  /* Float ADD/SUB of same-shape tensors, then the clamp (NULL: the reference's). */
  void (*fadd)(const ap_binary_params *p, const float *a, const float *b, float *out, size_t n);
  /* Fields added per work stream (NULL in a level that lacks them: the reference runs). */
  /* -- int8speed -- */
  /* Direct int8 CONV_2D over windows of unsigned input rows (conv_win.h; conv_win.c drives
   * it), taking every int8 convolution the level's gemm kits would; NULL: none. */
  const struct ap_conv_kit *conv;
  /* The same for int8 DEPTHWISE_CONV_2D (any depth multiplier); NULL: dw above. */
  const struct ap_dw_kit *dwin;
  /* -- float -- */
  int32_t fconv_lanes; /* output channels per panel of ap_fconv.wp (4, 8 or 16); 0: 8 */
  /* Packs float weights [n][k] into panels of L (8 or 16) output channels, [panel][k][L], zeros
   * past n; true when every weight is finite. NULL: ap_fast_fconv_pack. */
  bool (*fconv_pack)(const float *w, int32_t n, size_t k, int32_t L, float *wp);
  /* Float FULLY_CONNECTED, units [u0, u1) of every batch (NULL: the reference's). */
  void (*ffc)(const ap_ffc *f, int32_t u0, int32_t u1);
  /* Float DEPTHWISE_CONV_2D, output rows [r0, r1) of b * out_h (NULL: the reference's). */
  void (*fdw)(const ap_fdw *d, int32_t r0, int32_t r1);
  /* Float AVERAGE_POOL_2D and MAX_POOL_2D (NULL: the reference's). */
  void (*fpool)(const ap_fpool *p, int32_t r0, int32_t r1);
  /* Float ADD, SUB or MUL (op: AP_KBIN_*) of one row, out[i] = clamp(a[i * sa] op b[i * sb]),
   * sa and sb 0 (a broadcast value) or 1 (NULL: the reference's). */
  void (*fbin)(int op, const float *a, size_t sa, const float *b, size_t sb, float *out, size_t n,
               float lo, float hi);
  /* -- fastops -- */
  /* The kernels of fastops.h (uint8 ops); NULL: the reference's. */
  const struct ap_fastops *ops;
  /* -- stream3 -- */
} ap_fast_level;

/* A level whose packed-weight kit was taken away (the kernel choice's "in place" candidate,
 * RT_K_FLAT, and AP_KERNELS_SMALL's last try): the float kernels then pack little or nothing. */
static inline bool ap_fast_level_flat(const ap_fast_level *l) {
  return !l->outer && l->outer_min_m > 0;
}

/* The fastops tables (fastops.h) the levels point at. */
extern const struct ap_fastops ap_fastops_generic, ap_fastops_avx2;

extern const ap_fast_level ap_fast_generic;
/* The generic level's depthwise rows (the DSP level's fallback calls it by name). */
void ap_fast_generic_dw(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws);
/* The generic level's float kernels (float_generic.c), which every level may reuse. */
void ap_fast_generic_fconv(const ap_fconv *c, int32_t r0, int32_t r1);
bool ap_fast_fconv_pack(const float *w, int32_t n, size_t k, int32_t L, float *wp);
void ap_fast_generic_ffc(const ap_ffc *f, int32_t u0, int32_t u1);
void ap_fast_generic_fdw(const ap_fdw *d, int32_t r0, int32_t r1);
void ap_fast_generic_fpool(const ap_fpool *p, int32_t r0, int32_t r1);
void ap_fast_generic_fbin(int op, const float *a, size_t sa, const float *b, size_t sb, float *out,
                          size_t n, float lo, float hi);
/* Rows [c0, c1) (rows from n on: zeros), columns [i0, k) of that packing, row c of w at
 * w + c * stride (k for a whole filter; a filter's row length for one tap's); true when finite. */
bool ap_fast_fconv_pack_part(const float *w, int32_t n, size_t k, size_t stride, int32_t L,
                             float *wp, int32_t c0, int32_t c1, size_t i0);
#if defined(__x86_64__) || defined(_M_X64)
extern const ap_fast_level ap_fast_sse41;
extern const ap_fast_level ap_fast_avx2;
extern const ap_fast_level ap_fast_avx512;
/* The AVX2 level's depthwise and fully connected kernels, which the wider level reuses. */
void ap_fast_avx2_dw(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws);
/* Its multiplier-1 case (dw_avx2.c). */
void ap_fast_avx2_dw1(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws);
/* ap_fast_channel_multipliers' values, 4 per-channel filter scales a step (multipliers_avx2.c). */
void ap_fast_avx2_channel_multipliers(float input_scale, const ap_ktensor *filter,
                                      float output_scale, int32_t n, int32_t *mult, int32_t *shift);
void ap_fast_avx2_fc(const ap_qfc *f, int32_t u0, int32_t u1);
/* The AVX2 level's fully connected kernel (fc_avx2.c; depths below 16: ap_fast_avx2_fc). */
void ap_fast_avx2_fc_rows(const ap_qfc *f, int32_t u0, int32_t u1);
void ap_fast_avx2_fconv(const ap_fconv *c, int32_t r0, int32_t r1);
void ap_fast_avx512_fconv(const ap_fconv *c, int32_t r0, int32_t r1);
void ap_fast_sse41_fconv(const ap_fconv *c, int32_t r0, int32_t r1);
bool ap_fast_avx2_fconv_pack(const float *w, int32_t n, size_t k, int32_t L, float *wp);
/* The same with row c of w at w + c * stride (ap_fast_fconv_pack_part). */
bool ap_fast_avx2_fconv_pack_rows(const float *w, int32_t n, size_t k, size_t stride, int32_t L,
                                  float *wp);
void ap_fast_avx2_ffc(const ap_ffc *f, int32_t u0, int32_t u1);
void ap_fast_avx2_fdw(const ap_fdw *d, int32_t r0, int32_t r1);
void ap_fast_avx2_fpool(const ap_fpool *p, int32_t r0, int32_t r1);
void ap_fast_avx2_fbin(int op, const float *a, size_t sa, const float *b, size_t sb, float *out,
                       size_t n, float lo, float hi);
void ap_fast_avx2_fadd(const ap_binary_params *p, const float *a, const float *b, float *out,
                       size_t n);
extern const ap_gemm_kit ap_fast_avx2_outer;
/* The AVX2 rows of a (int16, input + offset) and the outer kit's packing, shared with the wider
 * level's outer kit. */
size_t ap_fast_avx2_arow_bytes(int32_t k);
void ap_fast_avx2_arow(const int8_t *src, int32_t k, int32_t in_off, void *dst);
/* Patch rows [r, r + rows) of a convolution of geometry g (output pixels in batch, row,
 * column order) as such rows of kp values kp apart, widened straight from the input (padding:
 * 0 once offset). */
void ap_fast_avx2_patch16(const ap_fast_geom *g, const int8_t *in, const int8_t *in_end,
                          int32_t in_off, int32_t r, int32_t rows, int32_t k, int32_t kp,
                          int16_t *a);
size_t ap_fast_avx2_outer_bytes(int32_t n, int32_t k);
/* The outer kit's product over rows given as nseg runs of run2 pairs each (row i's run s at
 * x[4 s + i]; rows past `rows` repeat one of the rows): int8_avx2.c. */
void ap_fast_avx2_outer_runs(const ap_qgemm *g, const int16_t *const *x, int32_t nseg, int32_t run2,
                             int32_t rows, int8_t *out, size_t out_stride);
/* A convolution's input rows widened once into a ring (win16_avx2.c): each output pixel's
 * filter rows as runs in them, for ap_fast_avx2_outer_runs, instead of patch16's patches. */
#define AP_WIN16_SEGS 8     /* filter rows at most */
#define AP_WIN16_SLOTS 8    /* rows a group of four pixels reads, at most */
#define AP_WIN16_STACK 8192 /* the callers' buffer on their stack */
typedef struct ap_fast_win16 {
  const ap_fast_geom *g;
  const int8_t *in;
  int16_t *rows;       /* slots rows, room values apart */
  const int16_t *zero; /* a row of zeros: rows outside the input */
  size_t room;
  int32_t slots, in_off;
  int32_t tag[AP_WIN16_SLOTS]; /* the input row each slot holds; -1: none */
  int32_t row_oy;              /* the output row whose filter rows row holds; -1: none */
  const int16_t *row[AP_WIN16_SEGS];
} ap_fast_win16;
/* The ring's bytes for geometry g over `batch` images; 0 where it does not apply (a batch
 * above 1, dilation across, an odd run f_w in_d, out_w < 4, too many filter rows). */
size_t ap_fast_win16_bytes(const ap_fast_geom *g, int32_t batch);
static inline bool ap_fast_win16_fits(const ap_fast_geom *g, int32_t batch) {
  size_t b = ap_fast_win16_bytes(g, batch);
  return b && b <= AP_WIN16_STACK;
}
void ap_fast_win16_init(ap_fast_win16 *w, const ap_fast_geom *g, const int8_t *in, int32_t in_off,
                        void *buf);
/* Pixels [r, r + rows) (rows 1..4): their f_h runs of f_w in_d values into x[4 fy + i]. */
void ap_fast_win16_runs(ap_fast_win16 *w, int32_t r, int32_t rows, const int16_t **x);
void ap_fast_avx2_outer_pack(const int8_t *w, int32_t n, int32_t k, const int32_t *bias,
                             int32_t in_off, void *packed, int32_t *col_bias);
void ap_fast_avx2_add(const ap_binary_params *p, const void *a, const void *b, void *out, size_t n,
                      bool is_unsigned);
#define AP_FAST_X86 1
#endif
#if defined(__aarch64__)
extern const ap_fast_level ap_fast_neon;
extern const ap_fast_level ap_fast_neondot; /* select only with AP_CPU_NEON_DOT */
/* The NEON level's kernels that the dot-product level reuses. */
void ap_fast_neon_dw(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws);
void ap_fast_neon_add(const ap_binary_params *p, const void *a, const void *b, void *out, size_t n,
                      bool is_unsigned);
void ap_fast_neon_fconv(const ap_fconv *c, int32_t r0, int32_t r1);
void ap_fast_neon_fadd(const ap_binary_params *p, const float *a, const float *b, float *out,
                       size_t n);
#define AP_FAST_NEON 1
#endif

/* What the interpreter hands kernels: the level chosen at allocate (NULL: the reference
 * kernels) and the worker group (NULL: one thread). */
typedef struct ap_kexec {
  const ap_fast_level *level;
  ap_port_workers *workers;
  int threads;
  /* The lean kernels (lean.h: about the reference's scratch) where they cover the op. */
  bool lean;
  /* One workspace: the workers serve only kernels whose scratch is the same for every thread
   * count, which take them through ap_fast_shared; the others run on one thread (the kernel
   * choice's "one thread" and "in place" candidates: their scratch is one thread's). */
  bool one_workspace;
  /* Work (multiply-adds of an int8 convolution) below which an op stays on one thread; 0:
   * AP_FAST_PARALLEL_MIN (tests lower it to split small ops). */
  uint64_t parallel_min;
  /* AP_KERNELS_SMALL: the most scratch bytes an op's fast path may add to its reference
   * kernel's (ap_fast_bounded); 0: no bound. */
  size_t small_extra;
} ap_kexec;

/* Whether two tensors' bytes overlap without being the same bytes: an in-place CONV_2D,
 * DEPTHWISE_CONV_2D or pool whose output starts inside its input (a permitted overlap, planned
 * for kernels that write output rows in order, after the input rows they read). */
static inline bool ap_fast_overlapping(const ap_ktensor *a, const ap_ktensor *b) {
  size_t na, nb;
  if (!a || !b || !a->data || !b->data || a->data == b->data || !ap_ktensor_count(a, &na) ||
      !ap_ktensor_count(b, &nb))
    return false;
  uintptr_t pa = (uintptr_t)a->data, pb = (uintptr_t)b->data;
  return pa < pb + nb * ap_ktype_size(b->type) && pb < pa + na * ap_ktype_size(a->type);
}

/* x for an op whose output overlaps its input: one thread (tasks run in order, each after the
 * one before), so output rows are written in order. */
static inline const ap_kexec *ap_fast_in_order(const ap_kexec *x, const ap_ktensor *in,
                                               const ap_ktensor *out, ap_kexec *tmp) {
#ifdef AP_PORT_NONE
  (void)in, (void)out, (void)tmp;
  return x; /* no OS, no threads: tasks always run in order */
#else
  if (!x || !x->workers || !ap_fast_overlapping(in, out)) return x;
  *tmp = *x;
  tmp->workers = NULL;
  tmp->threads = 1;
  return tmp;
#endif
}

/* For an op over rows of NHWC maps (rows counted over batches) whose output overlaps its input
 * (ap_fast_overlapping: the planner's in-place overlap, src/graph/overlap.c): the end of the
 * band of output rows from r0 that may be computed in any order, on any threads: those whose
 * bytes end at or before the first input row that row r0 reads (its first filter row, clamped
 * to the input), which neither r0 nor any later row reads again; at least r0 + 1. */
int32_t ap_fast_overlap_band(const ap_ktensor *in, const ap_ktensor *out, int32_t stride_h,
                             int32_t pad_h, int32_t r0);

/* x for a kernel whose scratch is the same for every thread count (the lean kernels, the
 * float convolution's tap passes): its workers even under one_workspace. */
static inline const ap_kexec *ap_fast_shared(const ap_kexec *x, ap_kexec *tmp) {
  if (!x || !x->one_workspace) return x;
  *tmp = *x;
  tmp->one_workspace = false;
  return tmp;
}

/* The level for the CPU's features, capped by AP_SIMD when it is set (generic; on x86-64
 * sse41, avx2, avx512; on AArch64 neon, neondot; another architecture's name or an unknown one
 * caps nothing); never one the CPU lacks. */
const ap_fast_level *ap_fast_select(void);
const char *ap_fast_level_name(const ap_fast_level *l); /* "reference" for NULL */

/* How many tasks to split `work` over `units` independent pieces into: the thread count, 1
 * for small work. Work counts multiply-adds of an int8 convolution's matrix product (some 40
 * per ns on an AVX-512 core); other kernels scale theirs by their cost per element (depthwise
 * and fully connected 5 per multiply-add, float convolution 4, ADD 40 per element, PAD 3 per
 * byte), doubled for ops with nothing serial before the split (ADD, PAD). Prepare and eval
 * compute the same (scratch depends on it). */
int ap_fast_tasks(const ap_kexec *x, uint64_t work, int64_t units);
/* The work below which an op stays on one thread (ap_kexec.parallel_min 0; kchoice's estimate
 * should split from the same). A region costs the caller 0.15-0.2 us when
 * the workers spin between ops (bench/forkjoin_bench.c on this project's Zen 3 VM, quiet
 * minutes: 2 threads, tasks of 1-5 us), and since each thread takes its own contiguous range
 * first, ops split alike in a row keep their maps in their own core's cache. At this floor an
 * int8 convolution takes over 1 us on one AVX2 core (~50 multiply-adds per ns), so halving it
 * saves several times the region's cost; a depthwise one (its work counts multiply-adds
 * unweighted, some 3 instructions each) takes 8 us. Counted in instructions
 * (bench/threads_balance.sh, no in-place overlap), the ideal 2-thread ratios at avx2 rose from
 * 1.00/1.54/1.79/1.18 (vww, ic_resnet int8 and float, mobilenet_v1_025) with the former 1M
 * floor to 1.78/1.76/1.83/1.84; lower floors split nothing more of them. */
#define AP_FAST_PARALLEL_MIN 65536
/* Runs fn(arg, i) for i in [0, n) on the workers (or inline). */
void ap_fast_parallel(const ap_kexec *x, ap_port_task fn, void *arg, int n);
/* Runs fn(arg, i, slot) for i in [0, n): slot (below the task count) names the workspace of
 * the thread running it. */
void ap_fast_parallel_slots(const ap_kexec *x, ap_port_slot_task fn, void *arg, int n);
/* Workspaces an op split into `tasks` needs under ap_fast_parallel_slots: one per thread of
 * the group (any thread may claim a piece), 1 for one task. */
int ap_fast_slots(const ap_kexec *x, int tasks);
/* Pieces to cut `units` into for `tasks` threads: per_task each (claimed as threads come free,
 * so a late or slower thread takes fewer), 1 for one task. */
int ap_fast_chunks(int tasks, int per_task, int64_t units);

/* ap_kq_mul(x, mult, shift), inline, branch-free and without the reference's 64-bit rounding
 * division: the same value for every input (tests/kernels/test_fast_dsp.c checks the edges).
 * The reference's SaturatingRoundingDoublingHighMul is trunc((ab + nudge) / 2^31), nudge 2^30
 * when ab >= 0 and 1 - 2^30 when ab < 0:
 *  - ab >= 0: the numerator is >= 0, so trunc is floor: floor((ab + 2^30) / 2^31);
 *  - ab < 0: N = ab + 1 - 2^30 < 0, and for N < 0 trunc(N / 2^31) = ceil(N / 2^31)
 *    = floor((N + 2^31 - 1) / 2^31) = floor((ab + 2^30) / 2^31).
 * So it is (ab + 2^30) >> 31, an arithmetic shift. ab lies in [-2^62 + 2^31, 2^62], so the
 * result lies in [-2^31 + 1, 2^31 - 1] but for ab = 2^62 (a = b = INT32_MIN), whose 2^31 the
 * reference saturates to INT32_MAX: its low 32 bits, 0x80000000, are produced by no other
 * input, so that one pattern is mapped to 0x7fffffff. RoundingDivideByPOT is the reference's
 * (exponent clamped to [0, 31] as ap_kq_rdbpot does; left shifts above 31 clamped as ap_kq_mul's
 * wshl). On a Cortex-M4: SMLAL and some twenty single-cycle instructions, no call, no branch. */
static inline int32_t ap_fast_mul(int32_t x, int32_t mult, int32_t shift) {
  uint32_t left = shift > 0 ? (uint32_t)shift : 0u;
  left = left > 31u ? 31u : left;
  uint32_t neg = 0u - (uint32_t)shift; /* -shift without overflow */
  uint32_t right = (int32_t)neg > 0 ? neg : 0u;
  right = right > 31u ? 31u : right;
  int64_t p = (int64_t)(int32_t)((uint32_t)x << left) * mult + (1 << 30);
  uint32_t h = (uint32_t)(p >> 31);
  h -= h == 0x80000000u;
  uint32_t mask = (1u << right) - 1u;
  uint32_t rem = h & mask, thr = (mask >> 1) + (h >> 31);
  return ((int32_t)h >> right) + (rem > thr);
}

/* The reference's requantization of one int32 sum (every level's scalar tail): a call to the
 * reference's function, the least flash where a firmware links it. */
static inline int8_t ap_fast_requant(int32_t acc, int32_t mult, int32_t shift, int32_t out_off,
                                     int32_t lo, int32_t hi) {
  return (int8_t)ap_kq_clamp(ap_kq_mul(acc, mult, shift) + out_off, lo, hi);
}

/* ap_kconv_channel_multipliers' values, computed without libm (multipliers.c). */
void ap_fast_channel_multipliers(float input_scale, const ap_ktensor *filter, float output_scale,
                                 int32_t n, int32_t *mult, int32_t *shift);
/* The same values at exec x's level: 4 a step on AVX2 and above (multipliers_avx2.c); elsewhere
 * the call above as it is (the Cortex-M builds compile the same call). */
#ifdef AP_FAST_X86
#define AP_FAST_MULTIPLIERS(x, ...)                                                                \
  ((x)->level->level >= AP_SIMD_AVX2 ? ap_fast_avx2_channel_multipliers(__VA_ARGS__)               \
                                     : ap_fast_channel_multipliers(__VA_ARGS__))
#else
#define AP_FAST_MULTIPLIERS(x, ...) ap_fast_channel_multipliers(__VA_ARGS__)
#endif

/* Hooks for the registry's adapters. *_scratch: after the reference prepare succeeded, the
 * scratch bytes the fast path needs (false, scratch untouched: the reference kernel runs).
 * *_eval: true when the fast path ran (its status in *s). */
bool ap_fast_conv_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                          const ap_ktensor *f, size_t *scratch);
bool ap_fast_conv_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                       const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                       ap_status *s);
bool ap_fast_dw_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                        const ap_ktensor *f, size_t *scratch);
bool ap_fast_dw_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                     const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                     ap_status *s);
bool ap_fast_add_eval(const ap_kexec *x, const ap_binary_params *p, const ap_ktensor *a,
                      const ap_ktensor *b, ap_ktensor *out, ap_status *s);
bool ap_fast_fconv_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                           const ap_ktensor *f, size_t *scratch);
bool ap_fast_fconv_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                        const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                        ap_status *s);
bool ap_fast_fadd_eval(const ap_kexec *x, const ap_binary_params *p, const ap_ktensor *a,
                       const ap_ktensor *b, ap_ktensor *out, ap_status *s);
bool ap_fast_pad_eval(const ap_kexec *x, const ap_pad_params *p, const ap_ktensor *input,
                      ap_ktensor *output, ap_status *s);
bool ap_fast_fc_scratch(const ap_kexec *x, const ap_fc_params *p, size_t *scratch);
/* Float DEPTHWISE_CONV_2D (no scratch). */
bool ap_fast_fdw_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                      const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, ap_status *s);
/* Float AVERAGE_POOL_2D and MAX_POOL_2D of whole maps (no scratch). */
bool ap_fast_fpool_eval(const ap_kexec *x, const ap_pool_params *p, const ap_ktensor *in,
                        ap_ktensor *out, ap_status *s);
/* Float ADD, SUB and MUL with any broadcast, by rows of the innermost dimensions. */
bool ap_fast_fbin_eval(const ap_kexec *x, const ap_binary_params *p, const ap_ktensor *a,
                       const ap_ktensor *b, ap_ktensor *out, ap_status *s);
/* Float FULLY_CONNECTED: with many batches, packed weights in scratch (ap_fast_ffc_scratch:
 * true when it raised *scratch); otherwise none. */
bool ap_fast_ffc_scratch(const ap_kexec *x, const ap_fc_params *p, size_t *scratch);
bool ap_fast_ffc_eval(const ap_kexec *x, const ap_fc_params *p, const ap_ktensor *in,
                      const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                      ap_status *s);
bool ap_fast_fc_eval(const ap_kexec *x, const ap_fc_params *p, const ap_ktensor *in,
                     const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                     ap_status *s);

#endif
