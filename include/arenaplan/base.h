/* arenaplan base: status codes, the allocator interface, checked size arithmetic.
 *
 * Every fallible call in arenaplan returns an ap_status (AP_OK is 0). The object that failed
 * keeps a human-readable message (ap_model_error(), ap_problem_error(), ...).
 *
 * All library memory comes from an ap_allocator. Passing NULL wherever an allocator is
 * accepted means the default: malloc/free.
 */
#ifndef ARENAPLAN_BASE_H
#define ARENAPLAN_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ap_status {
  AP_OK = 0,
  AP_ERR_ARG,              /* a NULL handle or pointer, a zero or out-of-range argument */
  AP_ERR_NOMEM,            /* the allocator returned NULL */
  AP_ERR_IO,               /* a file could not be opened, read or mapped */
  AP_ERR_FORMAT,           /* malformed input: model file, CSV problem, ... */
  AP_ERR_UNSUPPORTED,      /* valid input that arenaplan does not handle (yet) */
  AP_ERR_OVERFLOW,         /* a size computation would overflow */
  AP_ERR_RANGE,            /* an index out of range */
  AP_ERR_ARENA_TOO_SMALL,  /* a caller-owned arena cannot hold the plan */
  AP_ERR_NOT_ALLOCATED,    /* invoke before allocate, or after a resize made the plan stale */
  AP_ERR_BUSY,             /* another thread is using the object */
  AP_ERR_BUDGET,           /* a pool budget cannot hold the request */
  AP_ERR_INVALID_PLAN,     /* a plan that breaks the rules (overlap, misalignment) */
  AP_ERR_TIMEOUT,          /* a search or wait ran out of its budget */
  AP_ERR_KERNEL            /* a kernel failed while preparing or running */
} ap_status;

/* A short, constant name for a status ("AP_ERR_FORMAT"). Never NULL. */
const char *ap_status_name(ap_status s);

/* The allocator everything in arenaplan allocates through. `ctx` is passed back unchanged.
 * alloc(ctx, size) returns NULL on failure; free(ctx, NULL) must be harmless. Memory from
 * alloc must be aligned for any C object (like malloc). */
typedef struct ap_allocator {
  void *(*alloc)(void *ctx, size_t size);
  void (*free)(void *ctx, void *ptr);
  void *ctx;
} ap_allocator;

/* The default allocator (malloc/free). */
const ap_allocator *ap_default_allocator(void);

/* Parses a size as people write it: "76800", "75K", "1.5M", "2MiB", "1G" (K = 1024; a
 * fraction only with a unit, rounded down to whole bytes). False, *out untouched, on anything
 * else, negative values, or values that do not fit 64 bits. */
bool ap_parse_size(const char *s, uint64_t *out);

/* Library version, "MAJOR.MINOR.PATCH". */
const char *ap_version(void);

#ifdef __cplusplus
}
#endif
#endif
