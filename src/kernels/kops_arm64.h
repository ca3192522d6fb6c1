/* Float functions whose last bit differs between C libraries or architectures (glibc builds
 * its expm1f with fused multiply-adds on AArch64, not on x86-64), computed here with plain
 * float operations so every target gives the bytes TFLite Micro gives on x86-64 glibc. */
#ifndef AP_KOPS_ARM64_H
#define AP_KOPS_ARM64_H

/* exp(x) - 1, bit-identical to x86-64 glibc's expm1f for every float. */
float ap_kexpm1f(float x);
/* tanh(x), bit-identical to x86-64 glibc's tanhf for every float. */
float ap_ktanhf(float x);

#endif
