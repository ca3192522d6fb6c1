/* Chooses the SIMD level once (at allocate) from the CPU's features and AP_SIMD, and runs
 * parallel regions on the interpreter's workers. */
#include "kernels/fast/dsp.h"
#include "kernels/fast/fast.h"

#include <string.h>

/* This architecture's levels, best first, with the CPU features each needs; AP_SIMD names
 * them by their names. */
typedef struct candidate {
  const ap_fast_level *level;
  uint32_t needs;
} candidate;

static const candidate chain[] = {
#ifdef AP_FAST_X86
    {&ap_fast_avx512, AP_CPU_AVX512BW | AP_CPU_AVX512VNNI},
    {&ap_fast_avx2, AP_CPU_AVX2},
    {&ap_fast_sse41, AP_CPU_SSE41},
#endif
#ifdef AP_FAST_NEON
    {&ap_fast_neondot, AP_CPU_NEON | AP_CPU_NEON_DOT},
    {&ap_fast_neon, AP_CPU_NEON},
#endif
    {&ap_fast_generic, 0},
};

/* AP_SIMD's level number; -1 when unset, unknown or another architecture's (no cap: levels
 * of different architectures are not ordered). */
static int cap_from_env(void) {
  const char *v = ap_port_getenv("AP_SIMD");
  for (size_t i = 0; v && i < sizeof chain / sizeof chain[0]; i++)
    if (strcmp(v, chain[i].level->name) == 0) return chain[i].level->level;
  return -1;
}

const ap_fast_level *ap_fast_select(void) {
  int cap = cap_from_env();
  uint32_t f = ap_port_cpu_features();
  /* Levels above the cap are skipped; the cap itself and those below need the CPU's support. */
  bool open = cap < 0;
  for (size_t i = 0; i < sizeof chain / sizeof chain[0]; i++) {
    if (chain[i].level->level == cap) open = true;
    if (open && (f & chain[i].needs) == chain[i].needs)
      /* generic: with the DSP extension's rows where the core has them (Cortex-M4/M7/M33/M55) */
      return chain[i].level == &ap_fast_generic ? ap_fast_dsp() : chain[i].level;
  }
  return ap_fast_dsp();
}

const char *ap_fast_level_name(const ap_fast_level *l) {
  return l ? l->name : "reference";
}

/* The workers x lends its kernels (none under one_workspace: see ap_fast_shared). A firmware
 * has no threads: none, so that its build folds the splitting away (the flash of the streamed
 * person_detect firmware, which make test-mcu holds under TFLite Micro's, counts its bytes). */
static ap_port_workers *workers(const ap_kexec *x) {
#ifdef AP_PORT_NONE
  (void)x;
  return NULL;
#else
  return x && !x->one_workspace ? x->workers : NULL;
#endif
}

void ap_fast_parallel(const ap_kexec *x, ap_port_task fn, void *arg, int n) {
  if (workers(x) && n > 1) {
    ap_port_workers_run(x->workers, fn, arg, n);
    return;
  }
  for (int i = 0; i < n; i++)
    fn(arg, i);
}

void ap_fast_parallel_slots(const ap_kexec *x, ap_port_slot_task fn, void *arg, int n) {
  if (workers(x) && n > 1) {
    ap_port_workers_run_slots(x->workers, fn, arg, n);
    return;
  }
  for (int i = 0; i < n; i++)
    fn(arg, i, 0);
}

int ap_fast_slots(const ap_kexec *x, int tasks) {
  return tasks > 1 && workers(x) ? ap_port_workers_count(x->workers) : 1;
}

int ap_fast_chunks(int tasks, int per_task, int64_t units) {
  if (tasks <= 1) return 1;
  int64_t c = (int64_t)tasks * per_task;
  return (int)(c < units ? c : units > 0 ? units : 1);
}

int ap_fast_tasks(const ap_kexec *x, uint64_t work, int64_t units) {
  int t = workers(x) ? x->threads : 1;
  if (work < (x && x->parallel_min ? x->parallel_min : AP_FAST_PARALLEL_MIN)) t = 1;
  if (t > units) t = (int)(units > 0 ? units : 1);
  return t < 1 ? 1 : t;
}

int32_t ap_fast_overlap_band(const ap_ktensor *in, const ap_ktensor *out, int32_t stride_h,
                             int32_t pad_h, int32_t r0) {
  int64_t out_h = out->dims[1], rows = (int64_t)out->dims[0] * out_h;
  int64_t in_row = (int64_t)in->dims[2] * in->dims[3] * (int64_t)ap_ktype_size(in->type);
  int64_t out_row = (int64_t)out->dims[2] * out->dims[3] * (int64_t)ap_ktype_size(out->type);
  if (out_row <= 0 || out_h <= 0) return r0 + 1;
  int64_t first = (int64_t)(r0 % out_h) * stride_h - pad_h;
  first = first < 0 ? 0 : first > in->dims[1] ? in->dims[1] : first;
  first += (int64_t)(r0 / out_h) * in->dims[1];
  /* bytes from the output's start to that input row's (signed: either may start first) */
  int64_t gap = (int64_t)((intptr_t)in->data - (intptr_t)out->data) + first * in_row;
  int64_t most = gap > 0 ? gap / out_row : 0;
  most = most < rows ? most : rows;
  return most > r0 ? (int32_t)most : r0 + 1;
}
