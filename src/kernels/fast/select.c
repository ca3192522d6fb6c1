/* Chooses the SIMD level once (at allocate) from the CPU's features and AP_SIMD, and runs
 * parallel regions on the interpreter's workers. */
#include "kernels/fast/dsp.h"
#include "kernels/fast/fast.h"

#include <string.h>

static int cap_from_env(void) {
  const char *v = ap_port_getenv("AP_SIMD");
  static const char *const names[AP_SIMD_LEVELS] = {"generic", "sse41", "avx2", "avx512"};
  for (int i = 0; v && i < AP_SIMD_LEVELS; i++)
    if (strcmp(v, names[i]) == 0) return i;
  return AP_SIMD_LEVELS - 1; /* unset or unknown: no cap */
}

const ap_fast_level *ap_fast_select(void) {
  int cap = cap_from_env();
  uint32_t f = ap_port_cpu_features();
  (void)f;
#ifdef AP_FAST_X86
  if (cap >= AP_SIMD_AVX512 && (f & AP_CPU_AVX512BW) && (f & AP_CPU_AVX512VNNI))
    return &ap_fast_avx512;
  if (cap >= AP_SIMD_AVX2 && (f & AP_CPU_AVX2)) return &ap_fast_avx2;
  if (cap >= AP_SIMD_SSE41 && (f & AP_CPU_SSE41)) return &ap_fast_sse41;
#endif
  (void)cap;
  return ap_fast_dsp(); /* the DSP extension's rows (Cortex-M4/M7/M33/M55), else generic */
}

const char *ap_fast_level_name(const ap_fast_level *l) {
  return l ? l->name : "reference";
}

void ap_fast_parallel(const ap_kexec *x, ap_port_task fn, void *arg, int n) {
  if (x && x->workers && n > 1) {
    ap_port_workers_run(x->workers, fn, arg, n);
    return;
  }
  for (int i = 0; i < n; i++)
    fn(arg, i);
}

int ap_fast_tasks(const ap_kexec *x, uint64_t work, int64_t units) {
  /* Below ~1M multiply-adds (tens of microseconds) waking a worker costs more than it saves. */
  int t = x && x->workers ? x->threads : 1;
  if (work < (x && x->parallel_min ? x->parallel_min : 1000000)) t = 1;
  if (t > units) t = (int)(units > 0 ? units : 1);
  return t < 1 ? 1 : t;
}
