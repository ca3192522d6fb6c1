/* The DSP level (int8_dsp.c) for cores with the Armv7E-M / Armv8-M DSP extension. */
#ifndef AP_KERNELS_FAST_DSP_H
#define AP_KERNELS_FAST_DSP_H

#include "kernels/fast/fast.h"

/* The generic level with its int8 matrix product and fully connected rows on SMLAD; the same
 * scratch sizes, the same results. On a core without the extension (and on a host): the
 * generic level itself. */
const ap_fast_level *ap_fast_dsp(void);

#endif
