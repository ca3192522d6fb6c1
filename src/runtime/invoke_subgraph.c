/* Invoking a subgraph other than the entry as if it were one: TFLite's signature runners
 * (src/compat) run a signature's own subgraph. Allocate prepares and places every subgraph,
 * so one that no op calls is ready to run alone after it. */
#include "invoke_subgraph.h"
#include "runtime_internal.h"

ap_status rt_invoke_subgraph(ap_interpreter *it, size_t sg) {
  if (!it || !it->sg) return AP_ERR_ARG;
  if (sg == 0) return ap_interpreter_invoke(it);
  if (sg >= it->sg_count) return rt_fail(it, AP_ERR_RANGE, "no subgraph %zu", sg);
  int expected = 0;
  if (!atomic_compare_exchange_strong(&it->busy, &expected, 1)) return AP_ERR_BUSY;
  ap_status s;
  if (!it->allocated) {
    s = rt_fail(it, AP_ERR_NOT_ALLOCATED,
                "not allocated: call ap_interpreter_allocate() before invoke");
  } else {
    ap_port_workers_wake(it->exec.workers);
    s = rt_run_subgraph(it, (uint32_t)sg, 0);
  }
  atomic_store(&it->busy, 0);
  return s;
}
