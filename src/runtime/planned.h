/* The plan's words (include/arenaplan/planned.h), shared by the host's writer
 * (planned_export.c) and the device's reader (planned.c). */
#ifndef AP_SRC_RUNTIME_PLANNED_H
#define AP_SRC_RUNTIME_PLANNED_H

#include "arenaplan/planned.h"
#include "runtime_internal.h"

#include <stdbool.h>

enum {
  PL_MAGIC,       /* AP_PLAN_MAGIC */
  PL_WORDS,       /* the plan's length in words */
  PL_MODEL_BYTES, /* the model's size */
  PL_FINGERPRINT, /* ap_model_fingerprint of its bytes */
  PL_FLAGS,       /* PL_REFERENCE, PL_SEGMENTS */
  PL_ARENA,       /* arena bytes */
  PL_ALIGN,       /* the arena base's alignment */
  PL_TENSORS,     /* tensors of subgraph 0 */
  PL_OPS,         /* ops of subgraph 0 */
  PL_HEAD         /* then one word per tensor, two per op (scratch), two per op (segments) */
};
enum { PL_REFERENCE = 1, PL_SEGMENTS = 2 };
/* A tensor's word: 0 (no bytes in the arena), else its offset + 1. PL_KNOWN is reserved (a
 * value prepare folds: such models are not planned, since create runs prepare before any op
 * has computed it). */
#define PL_KNOWN 0x80000000u
/* ... and PL_RING when it is a streamed segment's ring (fewer rows than its shape: the
 * segments' table gives them). */
#define PL_RING 0x40000000u
#define PL_OFFSET(w) (((w) & ~(PL_KNOWN | PL_RING)) - 1)

/* off + bytes within the placed arena. */
static inline bool pl_in_arena(const ap_interpreter *it, uint32_t off, uint64_t bytes) {
  return off <= it->arena_bytes && bytes <= it->arena_bytes - off;
}

/* What a streamed plan needs (planned_stream.c passes it; NULL: the plan must have no
 * segments), so that a firmware without segments links none of stream.c. load: the segments'
 * table from the plan (checked), before anything is placed; member: whether op k runs in a
 * segment; check: after placing, each member's scratch and each ring's rows against the plan. */
typedef struct rt_planned_stream {
  ap_status (*load)(ap_interpreter *it, const uint32_t *plan);
  bool (*member)(const ap_interpreter *it, uint32_t k);
  ap_status (*check)(ap_interpreter *it, const uint32_t *plan);
} rt_planned_stream;

ap_status rt_create_planned(const void *model, size_t model_size, const uint32_t *plan,
                            size_t plan_words, void *buffer, size_t buffer_size,
                            const rt_planned_stream *stream, ap_interpreter **out);

#endif
