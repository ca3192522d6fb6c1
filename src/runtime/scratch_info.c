/* The scratch buffers kernels asked for: read by reports that re-plan exactly the runtime's
 * problem (same tensor sizes, same scratch requests). */
#include "runtime_internal.h"

size_t ap_interpreter_scratch_count(const ap_interpreter *it) {
  if (!it || !it->sg || !it->allocated) return 0;
  size_t n = 0;
  for (size_t sg = 0; sg < it->sg_count; sg++)
    for (size_t k = 0; k < it->sg[sg].op_count; k++)
      n += (size_t)it->sg[sg].ops[k].scratch_count;
  return n;
}

ap_status ap_interpreter_scratch(const ap_interpreter *it, size_t i, ap_scratch_info *out) {
  if (!it || !out) return AP_ERR_ARG;
  if (!it->sg || !it->allocated) return AP_ERR_NOT_ALLOCATED;
  for (size_t sg = 0; sg < it->sg_count; sg++)
    for (size_t k = 0; k < it->sg[sg].op_count; k++)
      for (const ap_scratch_rec *r = it->sg[sg].ops[k].scratch; r; r = r->next, i--)
        if (i == 0) {
          *out = (ap_scratch_info){.subgraph = sg, .op = k, .bytes = r->bytes};
          return AP_OK;
        }
  return AP_ERR_RANGE;
}
