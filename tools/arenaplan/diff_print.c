/* `arenaplan diff`'s output: the verdict of the limits given, text and JSON. */
#include "diff.h"
#include "run.h"

#include <math.h>

static void json_real(double v) {
  if (isfinite(v))
    printf("%.9g", v);
  else
    printf("null");
}

double diff_mean_iou(const diff_state *s) {
  if (s->total.matched) return s->total.mean_iou / (double)s->total.matched;
  return s->boxes[0] == 0 && s->boxes[1] == 0 ? 1 : 0;
}

bool diff_verdict(const diff_args *a, const diff_state *s, bool print) {
  bool ok = true;
  for (size_t k = 0; k < s->outputs && a->has_max_error; k++) {
    const out_stats *o = &s->st[k];
    if (o->detection || o->max_abs <= a->max_error) continue;
    ok = false;
    if (print)
      printf("  output %zu: max error %.6g > --max-error %g\n", k, o->max_abs, a->max_error);
  }
  if (a->has_max_error && s->nonfinite) {
    ok = false;
    if (print) printf("  an output holds NaN or infinity\n");
  }
  if (a->has_min_iou && s->det[0].found && s->det[1].found) {
    double iou = diff_mean_iou(s);
    if (s->total.missed || s->total.extra || iou < a->min_iou) {
      ok = false;
      if (print)
        printf("  detections: mean IoU %.4f, %zu missed, %zu extra (--min-iou %g wants every box "
               "matched and mean IoU >= it)\n",
               iou, s->total.missed, s->total.extra, a->min_iou);
    }
  } else if (a->has_min_iou && print) {
    printf("  --min-iou: no detection outputs in both models, nothing to match\n");
  }
  return ok;
}

void diff_print_json(const diff_args *a, const diff_state *s, bool ok) {
  printf("{\n  \"a\": ");
  cli_json_string(stdout, a->path[0]);
  printf(",\n  \"b\": ");
  cli_json_string(stdout, a->path[1]);
  printf(",\n  \"seeds\": %llu,\n  \"inputs\": [", (unsigned long long)a->seeds);
  for (size_t k = 0; k < s->inputs; k++) {
    printf("%s{\"index\": %zu, \"low\": ", k ? ", " : "", k);
    json_real(s->lo[k]);
    printf(", \"high\": ");
    json_real(s->hi[k]);
    printf("}");
  }
  printf("],\n  \"outputs\": [");
  for (size_t k = 0; k < s->outputs; k++) {
    const out_stats *o = &s->st[k];
    ap_tensor x, y;
    ap_interpreter_output(s->it[0], k, &x);
    ap_interpreter_output(s->it[1], k, &y);
    printf("%s\n    {\"index\": %zu, \"name\": ", k ? "," : "", k);
    cli_json_string(stdout, x.name ? x.name : "");
    printf(", \"type_a\": \"%s\", \"type_b\": \"%s\", \"elements\": %zu, \"max_abs_error\": ",
           ap_dtype_name(x.type), ap_dtype_name(y.type), o->elements);
    json_real(o->max_abs);
    printf(", \"mean_abs_error\": ");
    json_real(o->elements ? o->sum_abs / (double)o->elements : 0);
    printf(", \"detection\": %s, \"top1_agree\": ", o->detection ? "true" : "false");
    if (o->top1_total)
      printf("%zu, \"top1_total\": %zu}", o->top1_agree, o->top1_total);
    else
      printf("null, \"top1_total\": null}");
  }
  printf("\n  ],\n  \"detections\": ");
  if (s->det[0].found && s->det[1].found) {
    printf("{\"score_threshold\": ");
    json_real(a->score_threshold);
    printf(", \"pair_iou\": %g, \"boxes_a\": %zu, \"boxes_b\": %zu, \"matched\": %zu, "
           "\"mean_iou\": ",
           PAIR_IOU, s->boxes[0], s->boxes[1], s->total.matched);
    json_real(diff_mean_iou(s));
    printf(", \"missed\": %zu, \"extra\": %zu}", s->total.missed, s->total.extra);
  } else {
    printf("null");
  }
  printf(",\n  \"max_error\": ");
  if (a->has_max_error)
    json_real(a->max_error);
  else
    printf("null");
  printf(",\n  \"min_iou\": ");
  if (a->has_min_iou)
    json_real(a->min_iou);
  else
    printf("null");
  printf(",\n  \"nonfinite\": %s,\n  \"pass\": %s\n}\n", s->nonfinite ? "true" : "false",
         ok ? "true" : "false");
}

void diff_print_human(const diff_args *a, const diff_state *s) {
  char b0[128], b1[128];
  printf("A  %s\nB  %s\n", a->path[0], a->path[1]);
  printf("inputs: the same real values for both, seeds 1-%llu\n", (unsigned long long)a->seeds);
  for (size_t k = 0; k < s->inputs; k++) {
    ap_tensor x, y;
    ap_interpreter_input(s->it[0], k, &x);
    ap_interpreter_input(s->it[1], k, &y);
    printf("  %zu %s  uniform in [%g, %g]  A %s%s, B %s%s\n", k, run_shape(b0, sizeof b0, &x),
           s->lo[k], s->hi[k], ap_dtype_name(x.type), diff_quantized(&x) ? " (quantized)" : "",
           ap_dtype_name(y.type), diff_quantized(&y) ? " (quantized)" : "");
  }
  printf("outputs (after dequantization)\n");
  for (size_t k = 0; k < s->outputs; k++) {
    const out_stats *o = &s->st[k];
    ap_tensor x, y;
    ap_interpreter_output(s->it[0], k, &x);
    ap_interpreter_output(s->it[1], k, &y);
    printf("  %zu %s  A %s, B %s %s\n", k, x.name ? x.name : "", ap_dtype_name(x.type),
           ap_dtype_name(y.type), run_shape(b1, sizeof b1, &y));
    printf("    max abs error %.6g  mean abs error %.6g", o->max_abs,
           o->elements ? o->sum_abs / (double)o->elements : 0);
    if (o->top1_total) printf("  top-1 agrees %zu/%zu", o->top1_agree, o->top1_total);
    if (o->detection) printf("  (detection output: see below)");
    printf("\n");
  }
  if (s->nonfinite) printf("  NaN or infinity in an output (left out of the errors)\n");
  if (s->det[0].found && s->det[1].found)
    printf("detections (score >= %g; a pair needs the same class and IoU >= %g)\n"
           "  A %zu boxes, B %zu; matched %zu, mean IoU %.4f, missed %zu, extra %zu\n",
           a->score_threshold, PAIR_IOU, s->boxes[0], s->boxes[1], s->total.matched,
           diff_mean_iou(s), s->total.missed, s->total.extra);
}
