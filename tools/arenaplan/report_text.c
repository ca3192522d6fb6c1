/* `arenaplan report` as text: at most 100 columns unless --wide. */
#include "report_cli.h"
#include "report_kernels.h"

#include <stdlib.h>
#include <string.h>

const char *report_step_label(const ap_report *r, int32_t step, char *buf, size_t size) {
  uint32_t sg;
  int32_t op;
  const char *name = step >= 0 ? ap_report_step_op(r, (size_t)step, &sg, &op) : "";
  if (step < 0 || op < 0)
    snprintf(buf, size, "-");
  else if (sg)
    snprintf(buf, size, "subgraph %u op %d %s", sg, op, name);
  else
    snprintf(buf, size, "op %d %s", op, name);
  return buf;
}

static int by_size_desc(const void *a, const void *b, void *ctx) {
  const ap_report_request *q = ctx;
  uint64_t x = q[*(const size_t *)a].bytes, y = q[*(const size_t *)b].bytes;
  if (x != y) return x < y ? 1 : -1;
  return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

size_t report_live_at(const ap_report *r, size_t step, size_t *idx, size_t max) {
  const ap_report_request *q = ap_report_requests(r);
  size_t n = 0;
  for (size_t i = 0; i < ap_report_request_count(r) && n < max; i++)
    if (q[i].first <= (int32_t)step && (int32_t)step <= q[i].last) idx[n++] = i;
  qsort_r(idx, n, sizeof *idx, by_size_desc, (void *)q);
  return n;
}

/* Prints text in lines of at most `width` columns, broken at spaces: the first line indented
 * by `first`, the others by `rest`. A word longer than a line stays whole. */
static void wrap(const char *text, int first, int rest, int width) {
  int indent = first;
  while (*text) {
    int room = width - indent, n = (int)strlen(text), cut = n;
    if (n > room) {
      cut = room;
      while (cut > 0 && text[cut] != ' ')
        cut--;
      if (cut == 0) cut = (int)strcspn(text, " ");
    }
    printf("%*s%.*s\n", indent, "", cut, text);
    text += cut;
    while (*text == ' ')
      text++;
    indent = rest;
  }
}

static double share(uint64_t part, uint64_t total) {
  return total ? 100.0 * (double)part / (double)total : 0.0;
}

static void line(const char *what, uint64_t bytes, uint64_t total, const char *note) {
  char s[48];
  printf("  %-30s %24s", what, cli_size(s, sizeof s, bytes));
  if (total)
    printf(" %6.1f%%", share(bytes, total));
  else if (*note)
    printf(" %7s", "");
  printf("%s%s\n", *note ? "  " : "", note);
}

static void estimate(const ap_report *r) {
  const ap_estimate *e = ap_report_estimate(r);
  char note[96], s[48];
  printf("\nestimate (total = W + IO + M + persistent + tables)      bytes    share\n");
  snprintf(note, sizeof note, "constant data %s B", cli_thousands(s, sizeof s, e->weights_data));
  line("weights W (the model file)", e->weights, e->total, note);
  line("inputs and outputs IO", e->io, e->total, "in the arena");
  if (e->scratch_requests)
    snprintf(note, sizeof note, "arena - IO; scratch %s B", cli_thousands(s, sizeof s, e->scratch));
  else
    snprintf(note, sizeof note, "arena - IO");
  line("intermediates and scratch M", e->intermediates, e->total, note);
  line("persistent", e->persistent, e->total,
       e->from_runtime ? "measured" : "variable tensors (from the model)");
  line("interpreter tables", e->tables, e->total, e->from_runtime ? "measured" : "unknown");
  line("total", e->total, e->total, "");
  line("arena (IO + M)", e->arena, 0, "");
  line("device total", e->device, 0, "arena + persistent + tables");
  if (e->buffer) {
    char note2[96];
    snprintf(note2, sizeof note2, "one block, %llu-byte aligned",
             (unsigned long long)e->buffer_alignment);
    line("caller-owned buffer", e->buffer, 0, note2);
  }
  if (e->weights)
    printf("  %-30s %24.3f\n", "M / W", (double)e->intermediates / (double)e->weights);
  if (!e->from_runtime) {
    char msg[1024];
    snprintf(msg, sizeof msg,
             "note: the runtime could not allocate this model (%s): persistent is its variable "
             "tensors only and the tables are not counted.",
             e->runtime_error);
    wrap(msg, 2, 8, 100);
  }
}

static void name_cell(char *buf, size_t size, const ap_report *r, const ap_report_request *q,
                      size_t width, bool kind_shown) {
  /* Scratch has no name: say whose it is ("for" where a kind column already says scratch). */
  const char *lead = kind_shown ? "for" : "scratch:";
  if (q->kind == AP_REQ_SCRATCH && q->subgraph)
    snprintf(buf, size, "%s subgraph %u op %d %s", lead, q->subgraph, q->op,
             ap_report_op_name(r, q->subgraph, q->op));
  else if (q->kind == AP_REQ_SCRATCH)
    snprintf(buf, size, "%s op %d %s", lead, q->op, ap_report_op_name(r, q->subgraph, q->op));
  else if (q->subgraph)
    /* Names repeat across subgraphs (every body has its "arg0"): say whose. */
    snprintf(buf, size, "%s [subgraph %u]", q->name[0] ? q->name : "(unnamed)", q->subgraph);
  else
    snprintf(buf, size, "%s", q->name[0] ? q->name : "(unnamed)");
  /* Long names keep their end, where converters put the distinctive part. */
  size_t n = strlen(buf);
  if (width && n > width && width > 3) {
    memmove(buf + 3, buf + n - (width - 3), width - 3 + 1);
    memcpy(buf, "...", 3);
  }
}

static void peak(const ap_report *r, const report_args *a) {
  size_t steps = ap_report_step_count(r);
  if (!steps) return;
  const ap_report_request *q = ap_report_requests(r);
  const uint64_t *live = ap_report_live_bytes(r);
  size_t p = ap_report_peak_step(r);
  char s[48], l1[96], l2[96], name[512];
  printf("\npeak: step %zu (%s), %s live\n", p, report_step_label(r, (int32_t)p, l1, sizeof l1),
         cli_size(s, sizeof s, live[p]));
  size_t *idx = malloc(ap_report_request_count(r) * sizeof *idx + 1);
  if (!idx) return;
  size_t n = report_live_at(r, p, idx, ap_report_request_count(r));
  size_t w = a->wide ? 0 : 32;
  printf("  %-32s %10s  %-26s %s\n", "tensor live there", "bytes", "producer", "last reader");
  for (size_t k = 0; k < n; k++) {
    const ap_report_request *x = &q[idx[k]];
    name_cell(name, sizeof name, r, x, w, false);
    char b[32];
    report_step_label(r, x->producer, l1, sizeof l1);
    report_step_label(r, x->last_reader, l2, sizeof l2);
    if (!a->wide) {
      l1[26] = '\0';
      l2[26] = '\0';
    }
    printf("  %-32s %10s  %-26s %s\n", name, cli_thousands(b, sizeof b, x->bytes), l1, l2);
  }
  free(idx);
  size_t top[5];
  size_t nt = ap_report_top_steps(r, top, 5);
  printf("\ntop %zu steps by live bytes\n  %5s  %-40s %24s\n", nt, "step", "op", "live");
  for (size_t k = 0; k < nt; k++)
    printf("  %5zu  %-40s %24s\n", top[k], report_step_label(r, (int32_t)top[k], l1, sizeof l1),
           cli_size(s, sizeof s, live[top[k]]));
}

static void plans(const ap_report *r) {
  const ap_model_plan *mp = ap_report_plan(r);
  uint64_t ours = ap_model_plan_arena(mp);
  char s[48], label[48];
  printf("\nplans beside ours            lifetimes  align                    arena  vs ours\n");
  snprintf(label, sizeof label, "arenaplan %s", ap_report_strategy(r));
  printf("  %-26s %-10s %5llu %24s\n", label, "arenaplan",
         (unsigned long long)ap_report_alignment(r), cli_size(s, sizeof s, ours));
  const ap_report_alt *alt = ap_report_alts(r);
  for (size_t i = 0; i < ap_report_alt_count(r); i++) {
    /* Without scratch the model-only plan is ours: no second row. */
    if (i == AP_REPORT_ALT_MODEL && !ap_report_estimate(r)->scratch_requests) continue;
    if (!alt[i].ok) {
      printf("  %-26s %-10s %5llu %24s\n", alt[i].name, alt[i].rules,
             (unsigned long long)alt[i].alignment, "cannot plan");
      continue;
    }
    printf("  %-26s %-10s %5llu %24s", alt[i].name, alt[i].rules,
           (unsigned long long)alt[i].alignment, cli_size(s, sizeof s, alt[i].arena));
    if (ours) printf("  %+.1f%%", 100.0 * ((double)alt[i].arena - (double)ours) / (double)ours);
    printf("\n");
  }
  printf("  %-26s %-10s %5s %24s\n", "lower bound", "arenaplan", "",
         cli_size(s, sizeof s, ap_model_plan_lower_bound(mp)));
  if (ap_report_estimate(r)->scratch_requests)
    printf("  (%s, tflite, tflm: the model's shapes without kernel scratch; tflite and tflm\n"
           "   with their own lifetimes and alignment)\n",
           alt[AP_REPORT_ALT_MODEL].name);
}

static void table(const ap_report *r, const report_args *a) {
  const ap_report_request *q = ap_report_requests(r);
  size_t n = ap_report_request_count(r), w = 28;
  char name[512], shape[64], b1[32], b2[32];
  if (a->wide)
    for (size_t i = 0; i < n; i++) {
      name_cell(name, sizeof name, r, &q[i], 0, true);
      if (strlen(name) > w) w = strlen(name);
    }
  printf("\nrequests\n%6s %-12s %-*s %-16s %10s %5s %5s %10s\n", "id", "kind", (int)w, "name",
         "shape", "bytes", "first", "last", "offset");
  for (size_t i = 0; i < n; i++) {
    name_cell(name, sizeof name, r, &q[i], a->wide ? 0 : w, true);
    shape[0] = '\0';
    if (q[i].tensor >= 0) {
      ap_tensor_info ti;
      if (ap_model_tensor(ap_report_model(r), q[i].subgraph, (size_t)q[i].tensor, &ti) == AP_OK)
        cli_shape(shape, sizeof shape, ti.shape);
    }
    if (!a->wide && strlen(shape) > 16) strcpy(shape + 13, "...");
    printf("%6llu %-12s %-*s %-16s %10s %5d %5d %10s\n", (unsigned long long)q[i].id,
           ap_request_kind_name(q[i].kind), (int)w, name, shape,
           cli_thousands(b1, sizeof b1, q[i].bytes), q[i].first, q[i].last,
           cli_thousands(b2, sizeof b2, q[i].offset));
  }
}

/* Tensors outside the arena: their shapes are known only while running. */
static void dynamic(const ap_report *r, const report_args *a) {
  size_t n = ap_report_dynamic_count(r);
  if (!n) return;
  printf("\ndynamic tensors (shape known only while running: blocks of the allocator during "
         "invoke,\nnot in the arena)\n%6s %-*s %-16s %s\n",
         "tensor", a->wide ? 40 : 32, "name", "signature", "written by");
  for (size_t i = 0; i < n; i++) {
    const ap_report_dynamic *d = &ap_report_dynamics(r)[i];
    char name[512], shape[64] = "", op[96];
    ap_tensor_info ti;
    if (ap_model_tensor(ap_report_model(r), d->subgraph, (size_t)d->tensor, &ti) == AP_OK)
      cli_shape(shape, sizeof shape, ti.shape_signature.v ? ti.shape_signature : ti.shape);
    snprintf(name, sizeof name, "%s", d->name[0] ? d->name : "(unnamed)");
    size_t len = strlen(name);
    if (!a->wide && len > 32) {
      memmove(name + 3, name + len - 29, 30);
      memcpy(name, "...", 3);
    }
    if (d->op < 0)
      snprintf(op, sizeof op, "-");
    else if (d->subgraph)
      snprintf(op, sizeof op, "subgraph %u op %d %s", d->subgraph, d->op,
               ap_report_op_name(r, d->subgraph, d->op));
    else
      snprintf(op, sizeof op, "op %d %s", d->op, ap_report_op_name(r, d->subgraph, d->op));
    printf("%6d %-*s %-16s %s\n", d->tensor, a->wide ? 40 : 32, name, shape, op);
  }
}

void report_print_text(const ap_report *r, const report_args *a) {
  const ap_model *m = ap_report_model(r);
  const ap_model_plan *mp = ap_report_plan(r);
  size_t ops = 0, tensors = 0;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++) {
    ops += ap_model_op_count(m, sg);
    tensors += ap_model_tensor_count(m, sg);
  }
  printf("model:    %s (%zu subgraph%s, %zu ops, %zu tensors)\n", a->model,
         ap_model_subgraph_count(m), ap_model_subgraph_count(m) == 1 ? "" : "s", ops, tensors);
  printf("plan:     %s, %llu-byte alignment, arenaplan lifetimes, %s\n", ap_report_strategy(r),
         (unsigned long long)ap_report_alignment(r),
         ap_report_estimate(r)->from_runtime ? "shapes and scratch from the runtime"
                                             : "shapes from the model");
  estimate(r);
  peak(r, a);
  plans(r);
  report_print_kernels(r, &a->kernels);
  report_print_curve(r);
  table(r, a);
  dynamic(r, a);
  printf("\narena: %llu bytes, %zu requests, %zu reused\n",
         (unsigned long long)ap_model_plan_arena(mp), ap_model_plan_requests(mp),
         ap_model_plan_reused(mp));
  if (a->html) printf("wrote %s\n", a->html);
  if (a->svg) printf("wrote %s\n", a->svg);
  if (a->has_budget)
    cli_budget_line(stdout, ap_report_estimate(r)->device, a->budget, "the device total");
}
