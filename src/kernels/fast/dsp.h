/* The DSP level (int8_dsp.c) for cores with the Armv7E-M / Armv8-M DSP extension. */
#ifndef AP_KERNELS_FAST_DSP_H
#define AP_KERNELS_FAST_DSP_H

#include "kernels/fast/fast.h"

/* The generic level with its int8 matrix product and fully connected rows on SMLAD; the same
 * scratch sizes, the same results. On a core without the extension (and on a host): the
 * generic level itself. */
const ap_fast_level *ap_fast_dsp(void);

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
