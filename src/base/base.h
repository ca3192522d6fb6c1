/* Internal helpers every layer may use: checked arithmetic, alignment, allocation through the
 * caller's allocator, and the fixed-size error message each object keeps. */
#ifndef AP_SRC_BASE_H
#define AP_SRC_BASE_H

#include "arenaplan/base.h"

#include <stdarg.h>

/* A microcontroller build may shorten messages (cmake/arm-none-eabi.cmake: 128): several
 * buffers of this size sit on the stack of every op's eval. */
#ifndef AP_ERRMSG_MAX
#define AP_ERRMSG_MAX 512
#endif

/* The message an object keeps about its last failure. Fixed size: reporting an error must
 * not itself allocate. */
typedef struct ap_errbuf {
  char msg[AP_ERRMSG_MAX];
} ap_errbuf;

/* Formats the message into `e` and returns `s`, so a failure is one line:
 *   return ap_fail(&m->err, AP_ERR_FORMAT, "tensor %u: ...", i); */
ap_status ap_fail(ap_errbuf *e, ap_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
ap_status ap_vfail(ap_errbuf *e, ap_status s, const char *fmt, va_list ap);
void ap_err_clear(ap_errbuf *e);

/* AP_NO_MESSAGES (a microcontroller option, cmake/arm-none-eabi.cmake): a failure keeps its
 * status and a constant message (the status's name); the formats, their arguments and
 * vsnprintf are never linked. Inlined, so the compiler drops the unused arguments. */
void ap_fail_code(char *msg, size_t size, ap_status s);
#ifdef AP_NO_MESSAGES
__attribute__((always_inline, format(printf, 3, 4))) static inline ap_status
ap_fail_quiet(ap_errbuf *e, ap_status s, const char *fmt, ...) {
  (void)fmt;
  if (e) ap_fail_code(e->msg, sizeof e->msg, s);
  return s;
}
#define ap_fail(...) ap_fail_quiet(__VA_ARGS__)
#endif

/* An allocator that has nothing to give (alloc NULL, free nothing): for objects that live in
 * a caller's buffer, so that a firmware links no malloc. */
const ap_allocator *ap_no_heap(void);
/* Resolves NULL to the default allocator. */
const ap_allocator *ap_alloc_or_default(const ap_allocator *a);
void *ap_alloc(const ap_allocator *a, size_t size);
/* alloc(n * size), zero-filled; NULL on overflow or failure. */
void *ap_calloc(const ap_allocator *a, size_t n, size_t size);
void ap_free(const ap_allocator *a, void *p);

/* Checked arithmetic: return false (and leave *out unspecified) on overflow. */
static inline bool ap_add_size(size_t a, size_t b, size_t *out) {
  return !__builtin_add_overflow(a, b, out);
}
static inline bool ap_mul_size(size_t a, size_t b, size_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}
static inline bool ap_add_u64(uint64_t a, uint64_t b, uint64_t *out) {
  return !__builtin_add_overflow(a, b, out);
}
static inline bool ap_mul_u64(uint64_t a, uint64_t b, uint64_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}
/* Rounds `v` up to a multiple of `align` (any positive value, not only powers of two). */
static inline bool ap_align_up(uint64_t v, uint64_t align, uint64_t *out) {
  if (align <= 1) {
    *out = v;
    return true;
  }
  uint64_t r = v % align;
  if (r == 0) {
    *out = v;
    return true;
  }
  return ap_add_u64(v, align - r, out);
}
static inline bool ap_is_pow2(uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

#define AP_MIN(a, b) ((a) < (b) ? (a) : (b))
#define AP_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
