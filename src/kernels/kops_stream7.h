/* Fast kernels added by work stream 7 (x86-64 only: AP_FAST_DIRECT; elsewhere not built). */
#ifndef AP_KERNELS_KOPS_STREAM7_H
#define AP_KERNELS_KOPS_STREAM7_H

#include "kernels/fast/fast.h"
#include "kernels/kernels.h"

/* SOFTMAX of int8 or uint8 input on a table of the 256 exponentials (softmax_fast.c): false
 * where it does not apply (few values, other types, no fast kernels, or AP_KERNELS_SMALL's
 * bound below its scratch), else the scratch its eval needs (requested at prepare). The eval's
 * outputs are the reference's (ap_softmax_eval) byte for byte; false: not taken, else *s. */
bool ap_fast_softmax_scratch(const ap_kexec *x, const ap_softmax_params *p, const ap_ktensor *in,
                             const ap_ktensor *out, size_t *scratch);
bool ap_fast_softmax_eval(const ap_kexec *x, const ap_softmax_params *p, const ap_ktensor *in,
                          ap_ktensor *out, void *scratch, ap_status *s);

#endif
