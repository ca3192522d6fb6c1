/* `arenaplan report --json`: everything the text shows, and the per-step curve. */
#include "report_cli.h"
#include "report_kernels.h"
#include "whatif.h"

#include <stdlib.h>

#define U(x) ((unsigned long long)(x))

static void step_json(const ap_report *r, int32_t step) {
  uint32_t sg = 0;
  int32_t op = -1;
  const char *name = step >= 0 ? ap_report_step_op(r, (size_t)step, &sg, &op) : "";
  printf("{\"step\": %d, \"subgraph\": %u, \"op\": %d, \"op_name\": ", step, sg, op);
  cli_json_string(stdout, name);
  printf("}");
}

static void request_json(const ap_report *r, const ap_report_request *q) {
  char shape[256] = "[]";
  if (q->tensor >= 0) {
    ap_tensor_info ti;
    if (ap_model_tensor(ap_report_model(r), q->subgraph, (size_t)q->tensor, &ti) == AP_OK)
      cli_shape(shape, sizeof shape, ti.shape);
  }
  printf("{\"id\": %llu, \"kind\": \"%s\", \"subgraph\": %u, \"tensor\": %d, \"op\": %d, "
         "\"name\": ",
         U(q->id), ap_request_kind_name(q->kind), q->subgraph, q->tensor, q->op);
  cli_json_string(stdout, q->name);
  printf(", \"shape\": %s, \"bytes\": %llu, \"first\": %d, \"last\": %d, \"offset\": %llu, "
         "\"producer\": ",
         shape, U(q->bytes), q->first, q->last, U(q->offset));
  step_json(r, q->producer);
  printf(", \"last_reader\": ");
  step_json(r, q->last_reader);
  printf("}");
}

static void estimate_json(const ap_estimate *e) {
  printf(",\n  \"estimate\": {\"weights_bytes\": %llu, \"weights_data_bytes\": %llu, "
         "\"io_bytes\": %llu, \"intermediates_bytes\": %llu, \"persistent_bytes\": %llu, "
         "\"tables_bytes\": %llu, \"total_bytes\": %llu, \"arena_bytes\": %llu, "
         "\"device_bytes\": %llu, \"buffer_bytes\": %llu, \"buffer_alignment\": %llu, "
         "\"scratch_bytes\": %llu, \"scratch_requests\": %zu, "
         "\"m_over_w\": %.6f, \"from_runtime\": %s, \"runtime_error\": ",
         U(e->weights), U(e->weights_data), U(e->io), U(e->intermediates), U(e->persistent),
         U(e->tables), U(e->total), U(e->arena), U(e->device), U(e->buffer), U(e->buffer_alignment),
         U(e->scratch), e->scratch_requests,
         e->weights ? (double)e->intermediates / (double)e->weights : 0.0,
         e->from_runtime ? "true" : "false");
  cli_json_string(stdout, e->runtime_error);
  double t = e->total ? (double)e->total : 1.0;
  printf(",\n    \"shares\": {\"weights\": %.6f, \"io\": %.6f, \"intermediates\": %.6f, "
         "\"persistent\": %.6f, \"tables\": %.6f}}",
         (double)e->weights / t, (double)e->io / t, (double)e->intermediates / t,
         (double)e->persistent / t, (double)e->tables / t);
}

static void peak_json(const ap_report *r) {
  const uint64_t *live = ap_report_live_bytes(r);
  size_t steps = ap_report_step_count(r), p = ap_report_peak_step(r);
  size_t n = ap_report_request_count(r);
  size_t *idx = malloc(n * sizeof *idx + 1);
  printf(",\n  \"peak\": {\"step\": ");
  step_json(r, (int32_t)p);
  printf(", \"live_bytes\": %llu, \"requests\": [", U(steps ? live[p] : 0));
  size_t k = idx && steps ? report_live_at(r, p, idx, n) : 0;
  for (size_t i = 0; i < k; i++)
    printf("%s%llu", i ? ", " : "", U(ap_report_requests(r)[idx[i]].id));
  free(idx);
  printf("]},\n  \"top_steps\": [");
  size_t top[5], nt = ap_report_top_steps(r, top, 5);
  for (size_t i = 0; i < nt; i++) {
    printf("%s{\"live_bytes\": %llu, \"at\": ", i ? ", " : "", U(live[top[i]]));
    step_json(r, (int32_t)top[i]);
    printf("}");
  }
  printf("],\n  \"live_bytes\": [");
  for (size_t s = 0; s < steps; s++)
    printf("%s%llu", s ? ", " : "", U(live[s]));
  printf("]");
}

void report_print_json(const ap_report *r, const report_args *a) {
  const ap_estimate *e = ap_report_estimate(r);
  const ap_model_plan *mp = ap_report_plan(r);
  printf("{\n  \"schema_version\": 1,\n  \"model\": ");
  cli_json_string(stdout, a->model);
  printf(",\n  \"strategy\": \"%s\",\n  \"rules\": \"arenaplan\",\n  \"alignment\": %llu,\n"
         "  \"arena_bytes\": %llu,\n  \"lower_bound_bytes\": %llu,\n  \"requests_count\": %zu,\n"
         "  \"reused\": %zu",
         ap_report_strategy(r), U(ap_report_alignment(r)), U(ap_model_plan_arena(mp)),
         U(ap_model_plan_lower_bound(mp)), ap_model_plan_requests(mp), ap_model_plan_reused(mp));
  estimate_json(e);
  peak_json(r);
  printf(",\n  \"plans\": [");
  const ap_report_alt *alt = ap_report_alts(r);
  for (size_t i = 0; i < ap_report_alt_count(r); i++) {
    printf("%s\n    {\"name\": \"%s\", \"rules\": \"%s\", \"alignment\": %llu, \"ok\": %s, "
           "\"arena_bytes\": %llu}",
           i ? "," : "", alt[i].name, alt[i].rules, U(alt[i].alignment),
           alt[i].ok ? "true" : "false", U(alt[i].arena));
  }
  printf("\n  ]");
  report_json_kernels(r, &a->kernels);
  printf(",\n  \"requests\": [");
  for (size_t i = 0; i < ap_report_request_count(r); i++) {
    printf("%s\n    ", i ? "," : "");
    request_json(r, &ap_report_requests(r)[i]);
  }
  printf("\n  ],\n  \"dynamic_tensors\": [");
  for (size_t i = 0; i < ap_report_dynamic_count(r); i++) {
    const ap_report_dynamic *d = &ap_report_dynamics(r)[i];
    printf("%s\n    {\"subgraph\": %u, \"tensor\": %d, \"name\": ", i ? "," : "", d->subgraph,
           d->tensor);
    cli_json_string(stdout, d->name);
    printf(", \"op\": %d}", d->op);
  }
  printf("\n  ]");
  if (a->has_budget)
    printf(",\n  \"budget_bytes\": %llu,\n  \"budget_compared_with\": \"device_bytes\",\n"
           "  \"fits\": %s",
           U(a->budget), e->device <= a->budget ? "true" : "false");
  if (a->what_if) {
    printf(",\n  \"what_if_int8\": ");
    whatif_json(a->what_if, a->what_if_extra, "  ");
  }
  printf("\n}\n");
}
