/* arenaplan planned: plan on the host, run on the device with only what running needs.
 *
 * On the host (arenaplan header --plan FILE.c, or this API): allocate an interpreter as the
 * device will run it, then write its placement as words: each tensor's offset in the arena,
 * each op's scratch offset and size, the streamed segments, the kernels, and a fingerprint of
 * the model's bytes. On the device:
 *
 *   static uint8_t buffer[MODEL_PLAN_BUFFER_BYTES] __attribute__((aligned(16)));
 *   ap_interpreter *it;
 *   if (ap_interpreter_create_planned(MODEL_DATA, MODEL_MODEL_BYTES, MODEL_PLAN,
 *                                     MODEL_PLAN_WORDS, buffer, sizeof buffer, &it) != AP_OK)
 *     ...  // ap_interpreter_error(it) when it is not NULL
 *   ap_interpreter_input(it, 0, &in); ... ap_interpreter_invoke(it); ...
 *
 * The interpreter, the model's handle and the arena all live in `buffer`: no heap, no
 * planner, no graph, no model verifier (the fingerprint vouches for bytes the host verified),
 * so a firmware links only the runtime's invoke path and the kernels. The fast kernels run at
 * the portable level the plan was made for, or on a core with the DSP extension at the DSP
 * level (the same scratch sizes, the same results). Every op's prepare still
 * runs once at create to check that its scratch fits the planned bytes (a plan made for other
 * kernels is refused, never run). It is an interpreter like any other: inputs, outputs,
 * invoke, destroy; ap_interpreter_allocate() would plan again (and link the planner). */
#ifndef ARENAPLAN_PLANNED_H
#define ARENAPLAN_PLANNED_H

#include "arenaplan/runtime.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The plan's first word ("APP1", little-endian) and its layout version. */
#define AP_PLAN_MAGIC 0x31505041u

/* The placement of an allocated interpreter as words (words NULL: only *count). Refused
 * (AP_ERR_UNSUPPORTED, with the reason in ap_interpreter_error) for what a plan does not
 * carry: more than one subgraph, custom or control-flow ops, variable tensors, kernel state,
 * dynamic tensors, shapes other than the model's, a model bigger than 4 GiB. */
ap_status ap_interpreter_plan_words(ap_interpreter *it, uint32_t *words, size_t capacity,
                                    size_t *count);

/* Buffer bytes the planned interpreter needs besides the arena on a 64-bit host (a 32-bit
 * device needs less): the interpreter's records and the model handle. */
ap_status ap_interpreter_plan_overhead(ap_interpreter *it, uint64_t *bytes);

/* An interpreter placed by `plan` (made for these exact model bytes) inside `buffer`, ready to
 * invoke. The model bytes must be 8-byte aligned and outlive the interpreter, like the
 * buffer. On failure *out is NULL when the arguments or the plan are wrong (AP_ERR_ARG,
 * AP_ERR_INVALID_PLAN: another model, another version) or the buffer cannot hold the
 * interpreter; otherwise it says why and is destroyed as usual. */
ap_status ap_interpreter_create_planned(const void *model, size_t model_size, const uint32_t *plan,
                                        size_t plan_words, void *buffer, size_t buffer_size,
                                        ap_interpreter **out);
/* The same for a plan with streamed segments (the header defines NAME_PLAN_STREAMED; a plan
 * without segments works too): links the runtime's row-by-row streaming, which the function
 * above leaves out, refusing such a plan (AP_ERR_UNSUPPORTED). */
ap_status ap_interpreter_create_planned_streamed(const void *model, size_t model_size,
                                                 const uint32_t *plan, size_t plan_words,
                                                 void *buffer, size_t buffer_size,
                                                 ap_interpreter **out);

#ifdef __cplusplus
}
#endif

#endif
