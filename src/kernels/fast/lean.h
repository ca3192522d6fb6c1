/* Lean fast kernels: the same bytes as the reference, at SIMD speed, in the reference's
 * scratch. The kernel choice (src/runtime/kchoice.c) weighs them as an op's smallest fast
 * candidate (ap_kexec.lean, the in-place choice): where a model's peak step leaves no room for
 * patch rows or packed weights, they keep the plan within the reference's total without the
 * reference's time. What they hold beyond the reference's scratch lives on the stack, bounded
 * and the same for every model (at most 24 KiB a thread, and 4 KiB more on the calling thread
 * for the lean CONV_2D's deferred rows below), as the kernels' other temporaries do: these
 * files are x86-64 only (AVX2 and AVX-512 hosts, whose threads' stacks are hundreds of KiB or
 * more; no microcontroller links them), and the level's own kernels hold as much there already
 * (the multiplier depthwise's expanded taps, 32 KiB; the AVX-512 in-place product's tile, 16
 * KiB). 24 KiB holds what the shared models' 3x3 convolutions of 32 channels or fewer that take
 * the lean kernel pack (32 to 32: 18 KiB of weights, 20.4 KiB with its patches; at 12 KiB it
 * read them in place, mlperf_ic_resnet_int8's op 5 13 % slower; 32 to 64, 36 KiB, packed gained
 * 3 %: not worth the stack).
 * Being on the stack, they split over the threads (pixels or output rows cut into pieces, each
 * thread's temporaries on its own stack) even where the choice gave the op one workspace
 * (ap_fast_shared), an output over its input band by band (ap_fast_overlap_band) when it
 * splits at all (on one thread, pixel order); the lean CONV_2D's in one piece of rows a thread,
 * each piece's first rows held on the calling thread's stack until all are done where they
 * overwrite input rows the pieces before it read (lean_conv_avx2.c's split_plan).
 *
 * CONV_2D int8 (lean_conv_avx2.c, the AVX2 and AVX-512 levels): no patch rows and no packing
 * in scratch. Patches of up to 640 taps are widened to int16 on the stack, four pixels at a
 * time (5 KiB at most; zeros for taps outside the input, which the reference skips), for the
 * AVX2 level's own products: the outer product over weights packed on the stack where all the
 * output channels' fit (the fast kernel's speed), else two channels against the four pixels
 * with the weights read in place. Longer patches are read where they lie, one run of bytes per
 * filter row (per tap when dilated), a pixel with taps outside summing those inside alone.
 * Sums of (input + offset) x weight in int32 lanes (vpmaddwd: exact, wrapping as the
 * reference's). Scratch: the per-channel multipliers, as the reference's.
 *
 * DEPTHWISE_CONV_2D int8 (lean_dw_avx2.c): the level's own depthwise kernel with its workspace
 * on the stack where it is at most 4 KiB, else each pixel's channels eight to a vector over the
 * taps inside, read in place (depth multiplier 1 or a multiple of 8; others are declined).
 * Scratch: the reference's. */
#ifndef AP_KERNELS_FAST_LEAN_H
#define AP_KERNELS_FAST_LEAN_H

#include "kernels/fast/fast.h"

/* The longest patch the lean CONV_2D widens on the stack for the level's own products (the
 * kernel choice estimates those at near the packed kernel's time). */
#define AP_FAST_LEAN_WIDE_K 640
/* The stack the lean float CONV_2D transposes its input rows into (float_lean_avx2.c): fh rows
 * of every input channel over 8 output pixels' columns at least, else it declines. */
#define AP_FAST_LEAN_FSTACK_BYTES 16384

/* An output over its own input (the lean CONV_2D, int8 and float) split into pieces of rows
 * for threads: piece i runs output rows [row[i], row[i + 1]), and its first defer[i] rows go to
 * a buffer at element at[i], copied into place once every piece is done, because written in
 * place they would overwrite input rows a piece before it still reads. Elements are the
 * tensors' (bytes for int8, floats for float). */
typedef struct ap_lean_rows {
  int64_t rows, out_h, in_h; /* output rows over the batches; output and input rows a batch */
  int64_t stride, pad, dilation, f_h;
  int64_t in_row, out_row; /* elements a row */
  int64_t gap;             /* the input's first element less the output's */
} ap_lean_rows;

/* The input rows (counted over batches) output row r reads: [*lo, *hi] (clamped to its map,
 * so hi never falls below the batch's first row - 1: both grow with r). */
static inline void ap_lean_row_reads(const ap_lean_rows *g, int64_t r, int64_t *lo, int64_t *hi) {
  int64_t b = r / g->out_h, y0 = r % g->out_h * g->stride - g->pad;
  int64_t e = y0 + g->dilation * (g->f_h - 1);
  y0 = y0 < 0 ? 0 : y0 > g->in_h ? g->in_h : y0;
  e = e < -1 ? -1 : e >= g->in_h ? g->in_h - 1 : e;
  *lo = b * g->in_h + y0;
  *hi = b * g->in_h + e;
}

/* The pieces (at most max_pieces) into row, defer and at; false where a piece's rows before it
 * would reach its reads or all deferred rows would pass max_defer elements. */
static inline bool ap_lean_split(const ap_lean_rows *g, int pieces, int max_pieces,
                                 size_t max_defer, int32_t *row, int32_t *defer, size_t *at,
                                 int *count) {
  size_t used = 0;
  if (pieces > max_pieces) pieces = max_pieces;
  if (pieces < 2 || g->rows < pieces || g->out_row <= 0) return false;
  *count = pieces;
  for (int i = 0; i <= pieces; i++)
    row[i] = (int32_t)(g->rows * i / pieces);
  for (int i = 0; i < pieces; i++) {
    defer[i] = 0;
    at[i] = used;
    if (i == 0) continue;
    int64_t r = row[i], lo, hi, lo_before, hi_before;
    ap_lean_row_reads(g, r, &lo, &hi);
    ap_lean_row_reads(g, r - 1, &lo_before, &hi_before);
    if (r * g->out_row > g->gap + lo * g->in_row) return false; /* the rows before reach it */
    /* its rows from r + d on start at or past the end of the last input row read before it */
    int64_t need = g->gap + (hi_before + 1) * g->in_row - r * g->out_row;
    int64_t d = need <= 0 ? 0 : (need + g->out_row - 1) / g->out_row;
    int64_t len = row[i + 1] - r;
    defer[i] = (int32_t)(d < len ? d : len);
    used += (size_t)defer[i] * (size_t)g->out_row;
    if (used > max_defer) return false;
  }
  return true;
}

#ifdef AP_FAST_X86
/* As ap_fast_conv_scratch/eval; false unless x->lean and the level runs AVX2. */
bool ap_fast_lean_conv_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                               const ap_ktensor *f, size_t *scratch);
bool ap_fast_lean_conv_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                            const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                            void *scratch, ap_status *s);
bool ap_fast_lean_dw_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                             const ap_ktensor *f, size_t *scratch);
bool ap_fast_lean_dw_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                          const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                          void *scratch, ap_status *s);
/* CONV_2D int8 or uint8 with at most 32 taps per output and 8 or 16 output channels at the AVX2
 * level, fast or lean alike (smallk_avx2.c): the reference's scratch. */
bool ap_fast_smallk_conv_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                                 const ap_ktensor *f, size_t *scratch);
bool ap_fast_smallk_conv_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                              const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                              void *scratch, ap_status *s);
/* CONV_2D float (float_lean_avx2.c): no scratch; false unless x->lean and the level runs AVX2. */
bool ap_fast_lean_fconv_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                                const ap_ktensor *f, size_t *scratch);
bool ap_fast_lean_fconv_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                             const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                             void *scratch, ap_status *s);
#else
#define ap_fast_lean_fconv_scratch ap_fast_lean_conv_scratch /* (never applies) */
#define ap_fast_lean_fconv_eval ap_fast_lean_conv_eval
#define ap_fast_lean_dw_scratch ap_fast_lean_conv_scratch /* (never applies) */
#define ap_fast_lean_dw_eval ap_fast_lean_conv_eval
#define ap_fast_smallk_conv_scratch ap_fast_lean_conv_scratch
#define ap_fast_smallk_conv_eval ap_fast_lean_conv_eval
static inline bool ap_fast_lean_conv_scratch(const ap_kexec *x, const ap_conv_params *p,
                                             const ap_ktensor *in, const ap_ktensor *f,
                                             size_t *scratch) {
  (void)x, (void)p, (void)in, (void)f, (void)scratch;
  return false;
}
static inline bool ap_fast_lean_conv_eval(const ap_kexec *x, const ap_conv_params *p,
                                          const ap_ktensor *in, const ap_ktensor *f,
                                          const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                                          ap_status *s) {
  (void)x, (void)p, (void)in, (void)f, (void)bias, (void)out, (void)scratch, (void)s;
  return false;
}
#endif

#endif
