/* The DSP level (int8_dsp.c) for cores with the Armv7E-M / Armv8-M DSP extension. */
#ifndef AP_KERNELS_FAST_DSP_H
#define AP_KERNELS_FAST_DSP_H

#include "kernels/fast/fast.h"

/* The generic level with its int8 matrix product and fully connected rows on SMLAD; the same
 * scratch sizes, the same results. On a core without the extension (and on a host): the
 * generic level itself. */
const ap_fast_level *ap_fast_dsp(void);

/* The small family (dsp_small.c): the same results in less flash, slower; the generic level on a
 * core without the extension. */
const ap_fast_level *ap_fast_dsp_small(void);
extern const ap_fast_level ap_fast_dsp_small_level;

/* The level a planned interpreter runs (runtime/planned.c): ap_fast_dsp() or
 * ap_fast_dsp_small(), as the kernel registration chose (kernels/registry.c's
 * AP_REGISTRY_FAMILY; a firmware's generated copy of it, scripts/mcu_kernels.py), so that a
 * firmware links one family only. */
const ap_fast_level *ap_kernels_board_level(void);

/* The DSP level itself, on every build (a host runs it with dsp_acle.h's C forms of the
 * instructions, for its tests). */
extern const ap_fast_level ap_fast_dsp_level;

/* Its kernels (dsp_gemm.c, dsp_dw.c): the gemm kit folds the input offset into col_bias
 * (pack) and keeps rows of a as int8 bytes (arow); rows2 multiplies two int8 rows. */
size_t ap_fast_dsp_packed_bytes(int32_t n, int32_t k);
void ap_fast_dsp_pack(const int8_t *w, int32_t n, int32_t k, const int32_t *bias, int32_t in_off,
                      void *packed, int32_t *col_bias);
size_t ap_fast_dsp_arow_bytes(int32_t k);
void ap_fast_dsp_arow(const int8_t *src, int32_t k, int32_t in_off, void *dst);
void ap_fast_dsp_prep(int32_t n, const int32_t *mult, int32_t *shift);
typedef void (*ap_gemm_prep_fn)(int32_t n, const int32_t *mult, int32_t *shift);
extern const ap_gemm_prep_fn ap_board_gemm_prep;
void ap_fast_dsp_gemm(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc_ws, int8_t *out,
                      size_t out_stride);
void ap_fast_dsp_rows2(const ap_qgemm *g, const int8_t *a0, const int8_t *a1, int8_t *out,
                       size_t out_stride);
void ap_fast_dsp_dw(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws);
void ap_fast_dsp_fc(const ap_qfc *f, int32_t u0, int32_t u1);

/* 1 where the DSP level is the only level a build can choose (select.c: a 32-bit Arm core with
 * the extension): its table has the int8 matrix product, depthwise and fully connected only,
 * so the fast paths through the op table (ap_fast_ops: pools, uint8, 16x8) never apply there
 * and a registration need not link them. */
#if defined(__ARM_FEATURE_SIMD32) && __ARM_FEATURE_SIMD32
#define AP_FAST_DSP_ONLY 1
#else
#define AP_FAST_DSP_ONLY 0
#endif

#endif
