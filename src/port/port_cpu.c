/* The CPU's optional features (cpuid and xgetbv on x86-64, the auxiliary vector on AArch64
 * Linux) and the environment. Features are read once: kernels choose their SIMD level at
 * allocate from this, never per call. */
#ifndef AP_PORT_NONE
#include "port/port.h"

#include <stdatomic.h>
#include <stdlib.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>

/* XCR0: which register states the OS saves on a context switch (bit 1 xmm, 2 ymm, 5-7 the
 * AVX-512 opmask and zmm halves). A feature the OS does not save is unusable. */
static uint64_t xcr0(void) {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((uint64_t)hi << 32) | lo;
}

static uint32_t detect(void) {
  unsigned a, b, c, d;
  uint32_t f = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  bool sse41 = (c >> 19) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, fma = (c >> 12) & 1;
  if (sse41) f |= AP_CPU_SSE41;
  if (!osxsave || !avx) return f;
  uint64_t x = xcr0();
  bool ymm = (x & 0x6) == 0x6, zmm = (x & 0xe6) == 0xe6;
  if (__get_cpuid_max(0, NULL) < 7) return f;
  __cpuid_count(7, 0, a, b, c, d);
  bool avx2 = (b >> 5) & 1, avx512f = (b >> 16) & 1, avx512bw = (b >> 30) & 1,
       avx512vl = (b >> 31) & 1, avx512vnni = (c >> 11) & 1;
  if (ymm && avx2 && fma) f |= AP_CPU_AVX2;
  if (zmm && (f & AP_CPU_AVX2) && avx512f && avx512bw && avx512vl) {
    f |= AP_CPU_AVX512BW;
    if (avx512vnni) f |= AP_CPU_AVX512VNNI;
  }
  __cpuid_count(7, 1, a, b, c, d);
  if (ymm && (f & AP_CPU_AVX2) && ((a >> 4) & 1)) f |= AP_CPU_AVXVNNI;
  return f;
}
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>

/* The kernel's bits (asm/hwcap.h), for C libraries whose sys/auxv.h lacks them. */
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1ul << 1)
#endif
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1ul << 20)
#endif

/* Advanced SIMD is in every AArch64 application core Linux runs on, but the kernel says so
 * (HWCAP_ASIMD); SDOT is armv8.2-a's optional FEAT_DotProd (HWCAP_ASIMDDP). */
static uint32_t detect(void) {
  unsigned long hw = getauxval(AT_HWCAP);
  uint32_t f = 0;
  if (hw & HWCAP_ASIMD) f |= AP_CPU_NEON;
  if ((hw & HWCAP_ASIMD) && (hw & HWCAP_ASIMDDP)) f |= AP_CPU_NEON_DOT;
  return f;
}
#elif defined(__aarch64__)
static uint32_t detect(void) {
  return AP_CPU_NEON;
}
#else
static uint32_t detect(void) {
  return 0;
}
#endif

/* Bit 31 marks "read": features never use it. Threads racing on the first call compute the
 * same value, so a relaxed store is enough. */
static atomic_uint cached;

uint32_t ap_port_cpu_features(void) {
  unsigned v = atomic_load_explicit(&cached, memory_order_relaxed);
  if (v & 0x80000000u) return v & 0x7fffffffu;
  v = detect();
  atomic_store_explicit(&cached, v | 0x80000000u, memory_order_relaxed);
  return v;
}

const char *ap_port_getenv(const char *name) {
  return name ? getenv(name) : NULL;
}
#else
typedef int ap_port_cpu_unused; /* the freestanding port (port_none.c) has these */
#endif
