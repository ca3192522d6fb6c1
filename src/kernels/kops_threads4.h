/* Fast paths of data-movement and reduction ops that otherwise stay serial in front of or behind
 * the split convolutions (transpose_fast.c, mean_fast.c): they run on the interpreter's worker
 * group, so a model's serial share shrinks on more threads. */
#ifndef AP_KERNELS_KOPS_THREADS4_H
#define AP_KERNELS_KOPS_THREADS4_H

#include "kernels/fast/fast.h"

/* TRANSPOSE of elements of 1, 2, 4 or 8 bytes by tiles, split over the threads: the reference's
 * bytes. False: the reference kernel runs. */
bool ap_fast_transpose_eval(const ap_kexec *x, const ap_transpose_params *p,
                            const ap_ktensor *input, ap_ktensor *output, ap_status *s);

/* MEAN of int8, uint8 or int16 over consecutive axes, blocks of the kept inner positions split
 * over the threads; scratch: the reference's (one int32 per output). False: the reference
 * kernel runs. */
bool ap_fast_mean_eval(const ap_kexec *x, const ap_mean_params *p, const ap_ktensor *input,
                       ap_ktensor *output, void *scratch, ap_status *s);

#endif
