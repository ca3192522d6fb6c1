/* The report's kernels section: each kernel choice's scratch, arena and total side by side,
 * and the ops whose scratch differs between them, so the fast kernels' memory stays visible. */
#include "report_kernels.h"

#include <string.h>

static const int order[3] = {AP_KERNELS_REFERENCE, AP_KERNELS_SMALL, AP_KERNELS_FAST};

/* Op (sg, op)'s scratch under k: 0 when it asked for none. */
static uint64_t op_scratch(const ap_report_kernels *k, size_t sg, size_t op) {
  for (size_t j = 0; j < k->scratch_count; j++)
    if (k->scratch_ops[j].subgraph == sg && k->scratch_ops[j].op == op)
      return k->scratch_ops[j].bytes;
  return 0;
}

void report_print_kernels(const ap_report *r, const cli_kernels *planned) {
  const ap_report_kernels *k[3];
  char b[4][32], label[64];
  for (int i = 0; i < 3; i++)
    k[i] = ap_report_kernel_costs(r, order[i]);
  printf("\nkernels (one thread each)            scratch, all ops   largest op         arena"
         "         total\n");
  /* auto (the choice per op within the budget) between small and fast. */
  static const int rows[4] = {AP_KERNELS_REFERENCE, AP_KERNELS_SMALL, AP_KERNELS_AUTO,
                              AP_KERNELS_FAST};
  for (int i = 0; i < 4; i++) {
    const char *name = cli_kernels_name(rows[i]);
    const ap_report_kernels *x = ap_report_kernel_costs(r, rows[i]);
    if (rows[i] == AP_KERNELS_REFERENCE)
      snprintf(label, sizeof label, "%s", name);
    else if (rows[i] == AP_KERNELS_SMALL)
      snprintf(label, sizeof label, "%s (%s, +%s B budget)", name, x->level,
               cli_thousands(b[0], sizeof b[0],
                             planned->small ? planned->small : AP_SMALL_SCRATCH_DEFAULT));
    else if (rows[i] == AP_KERNELS_AUTO && planned->budget)
      snprintf(label, sizeof label, "%s (%s, %s B budget)", name, x->level,
               cli_thousands(b[0], sizeof b[0], planned->budget));
    else if (rows[i] == AP_KERNELS_AUTO)
      snprintf(label, sizeof label, "%s (%s, 1.02 x reference)", name, x->level);
    else
      snprintf(label, sizeof label, "%s (%s)", name, x->level);
    if (rows[i] == planned->kernels) strcat(label, " *");
    if (!x->ok) {
      printf("  %-34s cannot allocate\n", label);
      continue;
    }
    printf("  %-34s %16s %12s %13s %13s\n", label, cli_thousands(b[0], sizeof b[0], x->scratch),
           cli_thousands(b[1], sizeof b[1], x->scratch_max),
           cli_thousands(b[2], sizeof b[2], x->arena), cli_thousands(b[3], sizeof b[3], x->total));
  }
  printf("  (* the kernels this plan is for: --kernels; bytes)\n");
  for (int i = 0; i < 3; i++)
    if (!k[i]->ok) return;
  const ap_model *m = ap_report_model(r);
  size_t differ = 0;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    for (size_t op = 0; op < ap_model_op_count(m, sg); op++) {
      uint64_t v[3];
      for (int i = 0; i < 3; i++)
        v[i] = op_scratch(k[i], sg, op);
      if (v[0] == v[1] && v[0] == v[2]) continue;
      if (!differ++)
        printf("\nscratch per op where the kernels differ          reference        small"
               "         fast\n");
      if (sg)
        snprintf(label, sizeof label, "subgraph %zu op %zu %s", sg, op,
                 ap_report_op_name(r, sg, (int32_t)op));
      else
        snprintf(label, sizeof label, "op %zu %s", op, ap_report_op_name(r, sg, (int32_t)op));
      printf("  %-44s %13s %12s %12s\n", label, cli_thousands(b[0], sizeof b[0], v[0]),
             cli_thousands(b[1], sizeof b[1], v[1]), cli_thousands(b[2], sizeof b[2], v[2]));
    }
}

/* "in place: ops 3, 5; reference: op 11" for the ops of point p whose kernel is not the fast
 * one ("every op fast" when none), from column `col`, wrapped before column 100. */
static void print_choices(const ap_report_kernel_point *p, int col) {
  const int indent = col;
  bool any = false;
  char w[64];
  for (int kind = 1; kind <= 3; kind++) {
    size_t n = 0;
    for (size_t i = 0; i < p->op_count; i++)
      n += p->kernel[i] == kind;
    if (!n) continue;
    for (size_t i = 0, j = 0; i < p->op_count; i++) {
      if (p->kernel[i] != kind) continue;
      int len = j++ ? snprintf(w, sizeof w, ", %zu", i)
                    : snprintf(w, sizeof w, "%s%s: op%s %zu", any ? "; " : "",
                               ap_report_kernel_name(kind), n > 1 ? "s" : "", i);
      if (col + len > 99 && col > indent) {
        printf("\n%*s", indent, "");
        col = indent;
      }
      col += printf("%s", w);
    }
    any = true;
  }
  if (!any) printf("every op fast");
}

void report_print_curve(const ap_report *r) {
  size_t n;
  const ap_report_kernel_point *p = ap_report_kernel_curve(r, &n);
  if (!n) return;
  char b[32], e[32], m[40] = "", t[32];
  bool measured = p[0].measured_ns != 0;
  printf("\nkernels: speed against memory (Pareto points, one thread; each the fastest "
         "estimated plan\nwithin its total: `--budget TOTAL` plans it; op indices model-wide)\n");
  printf("          total   estimated%s   kernels other than the fast ones\n",
         measured ? "    measured" : "");
  for (size_t i = 0; i < n; i++) {
    snprintf(e, sizeof e, "%.1f us", (double)p[i].estimate_ns / 1000.0);
    if (measured) {
      snprintf(t, sizeof t, "%.1f us", (double)p[i].measured_ns / 1000.0);
      snprintf(m, sizeof m, " %11s", t);
    }
    int col = printf("  %13s %11s%s   ", cli_thousands(b, sizeof b, p[i].total), e, m);
    print_choices(&p[i], col);
    printf("\n");
  }
}

void report_json_kernels(const ap_report *r, const cli_kernels *planned) {
  printf(",\n  \"kernels\": \"%s\",\n  \"kernel_choices\": [", cli_kernels_name(planned->kernels));
  for (int i = 0; i < 3; i++) {
    const ap_report_kernels *k = ap_report_kernel_costs(r, order[i]);
    printf("%s\n    {\"kernels\": \"%s\", \"ok\": %s, \"level\": ", i ? "," : "",
           cli_kernels_name(order[i]), k->ok ? "true" : "false");
    cli_json_string(stdout, k->level);
    printf(", \"arena_bytes\": %llu, \"total_bytes\": %llu, \"scratch_bytes\": %llu, "
           "\"scratch_max_bytes\": %llu, \"scratch_per_op\": [",
           (unsigned long long)k->arena, (unsigned long long)k->total,
           (unsigned long long)k->scratch, (unsigned long long)k->scratch_max);
    for (size_t j = 0; j < k->scratch_count; j++)
      printf("%s{\"subgraph\": %zu, \"op\": %zu, \"bytes\": %llu}", j ? ", " : "",
             k->scratch_ops[j].subgraph, k->scratch_ops[j].op,
             (unsigned long long)k->scratch_ops[j].bytes);
    printf("]}");
  }
  printf("\n  ]");
  size_t n;
  const ap_report_kernel_point *p = ap_report_kernel_curve(r, &n);
  printf(",\n  \"kernel_curve\": [");
  for (size_t i = 0; i < n; i++) {
    printf("%s\n    {\"total_bytes\": %llu, \"estimate_ns\": %llu, \"budget_bytes\": ",
           i ? "," : "", (unsigned long long)p[i].total, (unsigned long long)p[i].estimate_ns);
    if (p[i].budget == UINT64_MAX)
      printf("null");
    else
      printf("%llu", (unsigned long long)p[i].budget);
    printf(", \"measured_ns\": ");
    if (p[i].measured_ns)
      printf("%llu", (unsigned long long)p[i].measured_ns);
    else
      printf("null");
    printf(", \"kernels\": [");
    for (size_t k = 0; k < p[i].op_count; k++)
      printf("%s\"%s\"", k ? ", " : "", ap_report_kernel_name(p[i].kernel[k]));
    printf("]}");
  }
  printf("\n  ]");
}
