/* What each kernel choice costs: one interpreter per choice, allocated with the report's plan
 * options on one thread, read for its arena, total and every op's scratch. The reports show
 * them side by side so the fast kernels' memory is never hidden. */
#include "report_internal.h"

#include <inttypes.h>

static void measure(ap_report *r, int kernels, ap_report_kernels *k) {
  *k = (ap_report_kernels){.kernels = kernels, .level = "reference"};
  ap_interpreter_options io = ap_interpreter_defaults();
  io.strategy = r->strategy;
  io.alignment = r->alignment;
  io.allocator = r->alloc;
  io.inplace = r->inplace;
  io.stream = r->stream;
  io.kernels = kernels;
  io.small_scratch = r->small_scratch;
  io.budget = r->budget;
  ap_interpreter *it = NULL;
  ap_memory_usage mu;
  if (ap_interpreter_create(r->model, &io, &it) != AP_OK || ap_interpreter_allocate(it) != AP_OK ||
      ap_interpreter_memory(it, &mu) != AP_OK) {
    ap_interpreter_destroy(it);
    return;
  }
  size_t n = ap_interpreter_scratch_count(it);
  ap_scratch_info *ops = ap_calloc(r->alloc, n ? n : 1, sizeof *ops);
  bool ok = ops != NULL;
  for (size_t i = 0; ok && i < n; i++) {
    ok = ap_interpreter_scratch(it, i, &ops[i]) == AP_OK;
    if (ok && !ap_add_u64(k->scratch, ops[i].bytes, &k->scratch)) ok = false;
    if (ok && ops[i].bytes > k->scratch_max) k->scratch_max = ops[i].bytes;
  }
  if (ok) {
    k->ok = true;
    k->level = ap_interpreter_kernels(it);
    k->arena = mu.arena;
    k->total = mu.total;
    k->scratch_count = n;
    k->scratch_ops = ops;
  } else {
    ap_free(r->alloc, ops);
    k->scratch = k->scratch_max = 0;
  }
  ap_interpreter_destroy(it);
}

void report_kernel_costs(ap_report *r) {
  static const int choices[] = {AP_KERNELS_FAST, AP_KERNELS_REFERENCE, AP_KERNELS_SMALL,
                                AP_KERNELS_AUTO};
  for (size_t i = 0; i < 4; i++)
    measure(r, choices[i], &r->kc[choices[i]]);
}

void report_kernel_costs_free(ap_report *r) {
  for (size_t i = 0; i < 4; i++) {
    ap_free(r->alloc, (void *)r->kc[i].scratch_ops);
    r->kc[i].scratch_ops = NULL;
  }
}

const ap_report_kernels *ap_report_kernel_costs(const ap_report *r, int kernels) {
  if (!r || kernels < AP_KERNELS_AUTO || kernels > AP_KERNELS_FAST) return NULL;
  return &r->kc[kernels];
}

void report_kernels_macros(const ap_report *r, const char *p, FILE *f) {
  static const char *const names[4] = {"AUTO", "REFERENCE", "SMALL", "FAST"};
  if (r->kernels == AP_KERNELS_REFERENCE || r->kernels == AP_KERNELS_SMALL)
    fprintf(f,
            "/* Planned for ap_interpreter_options.kernels = AP_KERNELS_%s%s, or the buffer is\n"
            " * too small. */\n#define %s_KERNELS AP_KERNELS_%s\n",
            names[r->kernels],
            r->kernels == AP_KERNELS_SMALL && r->small_scratch ? " (with its small_scratch)" : "",
            p, names[r->kernels]);
  if (r->kernels == AP_KERNELS_SMALL)
    fprintf(f, "#define %s_SMALL_SCRATCH %zuu\n", p,
            r->small_scratch ? r->small_scratch : (size_t)AP_SMALL_SCRATCH_DEFAULT);
  if (r->kernels == AP_KERNELS_AUTO && r->budget)
    fprintf(f,
            "/* Planned with ap_interpreter_options.budget = NAME_BUDGET (each op's kernel chosen\n"
            " * by allocate for the fastest estimated invoke within it). */\n"
            "#define %s_BUDGET %" PRIu64 "u\n",
            p, r->budget);
  bool any = false;
  for (int k = 0; k < 4; k++)
    any = any || r->kc[k].ok;
  if (!any) return;
  fprintf(f, "/* The arena with each kernel choice (ap_interpreter_options.kernels, one thread):\n"
             " * the fast kernels' scratch next to the reference kernels'. */\n");
  static const int order[4] = {AP_KERNELS_REFERENCE, AP_KERNELS_SMALL, AP_KERNELS_AUTO,
                               AP_KERNELS_FAST};
  for (int i = 0; i < 4; i++) {
    const ap_report_kernels *k = &r->kc[order[i]];
    if (k->ok)
      fprintf(f, "#define %s_ARENA_BYTES_%s %" PRIu64 "u /* scratch %" PRIu64 " */\n", p,
              names[order[i]], k->arena, k->scratch);
  }
}
