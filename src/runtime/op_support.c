/* What this build runs: the kernel registry's builtins, the runtime's own ops and the built-in
 * custom ops, with the input types the oracle proves (`arenaplan ops`, `info` marking). */
#include "kernels/registry.h"
#include "runtime_internal.h"

#include <stdio.h>
#include <string.h>

/* The runtime's own ops (control_flow.c, hashtable.c, resource_vars.c): builtin codes in schema
 * order. */
static const int32_t runtime_ops[] = {118 /* IF */,
                                      119 /* WHILE */,
                                      129 /* CALL_ONCE */,
                                      136 /* HASHTABLE */,
                                      137 /* HASHTABLE_FIND */,
                                      138 /* HASHTABLE_IMPORT */,
                                      139 /* HASHTABLE_SIZE */,
                                      142 /* VAR_HANDLE */,
                                      143 /* READ_VARIABLE */,
                                      144 /* ASSIGN_VARIABLE */};
#define RUNTIME_OPS (sizeof runtime_ops / sizeof runtime_ops[0])

size_t ap_supported_op_count(void) {
  return ap_kernel_count() + RUNTIME_OPS + ap_kernel_custom_count();
}

ap_status ap_supported_op(size_t i, ap_op_support *out) {
  if (!out) return AP_ERR_ARG;
  if (i < ap_kernel_count()) {
    const ap_kernel *k = ap_kernel_at(i);
    *out = (ap_op_support){k->builtin, k->name, ap_kernel_types(k->name)};
    return AP_OK;
  }
  i -= ap_kernel_count();
  if (i < RUNTIME_OPS) {
    const char *name = ap_builtin_name(runtime_ops[i]);
    *out = (ap_op_support){runtime_ops[i], name, ap_kernel_types(name)};
    return AP_OK;
  }
  i -= RUNTIME_OPS;
  const ap_kernel *k = ap_kernel_custom_at(i);
  if (!k) return AP_ERR_RANGE;
  *out = (ap_op_support){32, k->name, ap_kernel_types(k->name)};
  return AP_OK;
}

ap_status ap_op_supported(const ap_model *m, size_t sg, size_t op, char *why, size_t why_size) {
  char dummy[1];
  if (!why || !why_size) {
    why = dummy;
    why_size = sizeof dummy;
  }
  why[0] = '\0';
  ap_op_info info;
  if (!m) return AP_ERR_ARG;
  ap_status s = ap_model_op(m, sg, op, &info);
  if (s != AP_OK) {
    snprintf(why, why_size, "cannot read the op");
    return s;
  }
  bool runtime_own =
      !info.custom && (rt_control_kernel(info.builtin) || rt_resource_kernel(info.builtin) ||
                       rt_hashtable_kernel(info.builtin));
  const ap_kernel *k =
      info.custom ? ap_kernel_find_custom(info.custom) : ap_kernel_find(info.builtin);
  if (!k && !runtime_own) {
    snprintf(why, why_size, info.custom ? "custom op, not built in" : "no kernel for this op");
    return AP_ERR_UNSUPPORTED;
  }
  return AP_OK;
}
