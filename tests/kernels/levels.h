/* The fast kernels' SIMD levels this CPU has, generic first: the list every kernel test that
 * compares levels walks. */
#ifndef AP_TESTS_KERNELS_LEVELS_H
#define AP_TESTS_KERNELS_LEVELS_H

#include "kernels/fast/dsp.h"
#include "kernels/fast/fast.h"
#include "port/port.h"

#define AP_TEST_MAX_LEVELS 7

/* Fills out (AP_TEST_MAX_LEVELS entries) and returns how many. */
static int ap_test_levels(const ap_fast_level **out) {
  int n = 0;
  out[n++] = &ap_fast_generic;
  /* The Cortex-M DSP level's two families: native on such a core, their C form of the
   * instructions elsewhere. */
  out[n++] = &ap_fast_dsp_level;
  out[n++] = &ap_fast_dsp_small_level;
#ifdef AP_FAST_X86
  uint32_t f = ap_port_cpu_features();
  if (f & AP_CPU_SSE41) out[n++] = &ap_fast_sse41;
  if (f & AP_CPU_AVX2) out[n++] = &ap_fast_avx2;
  if ((f & AP_CPU_AVX512BW) && (f & AP_CPU_AVX512VNNI)) out[n++] = &ap_fast_avx512;
#endif
#ifdef AP_FAST_NEON
  uint32_t fa = ap_port_cpu_features();
  if (fa & AP_CPU_NEON) out[n++] = &ap_fast_neon;
  if ((fa & AP_CPU_NEON) && (fa & AP_CPU_NEON_DOT)) out[n++] = &ap_fast_neondot;
#endif
  return n;
}

#endif
