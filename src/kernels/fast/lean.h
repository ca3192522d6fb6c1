/* Lean fast kernels: the same bytes as the reference, at SIMD speed, in the reference's
 * scratch. The kernel choice (src/runtime/kchoice.c) weighs them as an op's smallest fast
 * candidate (ap_kexec.lean, the in-place choice): where a model's peak step leaves no room for
 * patch rows or packed weights, they keep the plan within the reference's total without the
 * reference's time. What they hold beyond the reference's scratch lives on the stack, bounded
 * and the same for every model (at most 6 KiB), as the kernels' other temporaries do: so they
 * split over the threads (pixels or output rows cut into pieces, each thread's temporaries on
 * its own stack) even where the choice gave the op one workspace (ap_fast_shared), unless the
 * op's output overlaps its input (then one thread writes the rows in order).
 *
 * CONV_2D int8 (lean_conv_avx2.c, the AVX2 and AVX-512 levels): no patch rows and no packing
 * in scratch; weights read in place, two channels against four output pixels, sums of
 * (input + offset) x weight in int32 lanes (vpmaddwd: exact, wrapping as the reference's).
 * Patches of up to 640 taps are widened to int16 on the stack first (5 KiB at most; zeros for
 * taps outside the input, which the reference skips); longer ones are read where they lie, one
 * run of bytes per filter row (per tap when dilated), a pixel with taps outside summing those
 * inside alone. Scratch: the per-channel multipliers, as the reference's.
 *
 * DEPTHWISE_CONV_2D int8 (lean_dw_avx2.c): the level's own depthwise kernel with its workspace
 * on the stack where it is at most 4 KiB, else each pixel's channels eight to a vector over the
 * taps inside, read in place (depth multiplier 1 or a multiple of 8; others are declined).
 * Scratch: the reference's. */
#ifndef AP_KERNELS_FAST_LEAN_H
#define AP_KERNELS_FAST_LEAN_H

#include "kernels/fast/fast.h"

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
#else
#define ap_fast_lean_dw_scratch ap_fast_lean_conv_scratch /* (never applies) */
#define ap_fast_lean_dw_eval ap_fast_lean_conv_eval
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
