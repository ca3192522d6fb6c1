/* arenaplan diff: two models (a float model and its int8 twin) run on the same real-valued
 * inputs; per output the error after dequantization, top-1 agreement for classifiers, and
 * detections matched by IoU. */
#include "commands.h"
#include "diff.h"
#include "real.h"
#include "run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int diff(int argc, char **argv);

const ap_command cmd_diff = {
    "diff", "compare two models' outputs on the same inputs (a float model and its int8 twin)",
    diff,
    "usage: arenaplan diff A.tflite B.tflite [options]\n"
    "  --seeds N            run seeds 1..N (default 3)\n"
    "  --max-error X        fail (exit 1) when an output's max absolute error exceeds X\n"
    "  --min-iou Y          fail (exit 1) when detections do not match one to one with mean\n"
    "                       IoU >= Y\n"
    "  --score-threshold X  detections compared: score >= X (default 0: all reported)\n"
    "  --json               machine-readable output\n"
    "\n"
    "Input k of both models gets the same real values: uniform in the range the first\n"
    "quantized one of the two can represent (its scale and zero point), [-1, 1] when both are\n"
    "float, drawn from a generator seeded with S + k; a quantized input gets them quantized\n"
    "(round half away from zero, clamped). Errors are after dequantization, max and mean over\n"
    "every element of every seed. Classifier outputs (one non-batch dim >= 2) also count how\n"
    "often both models' top-1 classes agree. For TFLite_Detection_PostProcess outputs the\n"
    "detections of B are matched to A's (same class, IoU >= 0.5, greedily by IoU): mean IoU,\n"
    "missed (in A only) and extra (in B only); their raw elements, which are sorted by score,\n"
    "are not held to --max-error.\n"
    "exit status: 0 within the limits given; 1 a limit not met; 2 bad usage, unreadable\n"
    "models, or models whose inputs or outputs differ in count or shape\n"};

static int parse(int argc, char **argv, diff_args *a) {
  a->seeds = 3;
  size_t paths = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    if (strcmp(arg, "--seeds") == 0) {
      if (!(v = cli_value(&cmd_diff, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_uint(v, MAX_SEEDS, &a->seeds) || a->seeds == 0)
        return cli_usage_error(&cmd_diff, "--seeds \"%s\": expected 1 to %d", v, MAX_SEEDS);
    } else if (strcmp(arg, "--max-error") == 0) {
      if (!(v = cli_value(&cmd_diff, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_real(v, 0, 1e30, &a->max_error))
        return cli_usage_error(&cmd_diff, "--max-error \"%s\": expected a number >= 0", v);
      a->has_max_error = true;
    } else if (strcmp(arg, "--min-iou") == 0) {
      if (!(v = cli_value(&cmd_diff, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_real(v, 0, 1, &a->min_iou))
        return cli_usage_error(&cmd_diff, "--min-iou \"%s\": expected a number from 0 to 1", v);
      a->has_min_iou = true;
    } else if (strcmp(arg, "--score-threshold") == 0) {
      if (!(v = cli_value(&cmd_diff, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_real(v, 0, 1, &a->score_threshold))
        return cli_usage_error(&cmd_diff, "--score-threshold \"%s\": expected a number from 0 to 1",
                               v);
    } else if (strcmp(arg, "--json") == 0) {
      a->json = true;
    } else if (arg[0] == '-' && arg[1]) {
      return cli_usage_error(&cmd_diff, "unknown option %s", arg);
    } else if (paths < 2) {
      a->path[paths++] = arg;
    } else {
      return cli_usage_error(&cmd_diff, "two models (got \"%s\" too)", arg);
    }
  }
  if (paths < 2) return cli_usage_error(&cmd_diff, "two models needed (A.tflite B.tflite)");
  return AP_EXIT_OK;
}

/* What is accumulated for one output over every seed. */
static void cleanup(diff_state *s) {
  for (int i = 0; i < 2; i++) {
    ap_interpreter_destroy(s->it[i]);
    ap_model_destroy(s->m[i]);
  }
  free(s->lo);
  free(s->st);
}

bool diff_quantized(const ap_tensor *t) {
  return (t->type == AP_INT8 || t->type == AP_UINT8 || t->type == AP_INT16) && t->scale > 0 &&
         isfinite(t->scale);
}

static void type_range(int type, double *lo, double *hi) {
  *lo = type == AP_INT8 ? -128 : type == AP_UINT8 ? 0 : -32768;
  *hi = type == AP_INT8 ? 127 : type == AP_UINT8 ? 255 : 32767;
}

static bool same_dims(const ap_tensor *x, const ap_tensor *y) {
  if (x->rank != y->rank) return false;
  for (int d = 0; d < x->rank; d++)
    if (x->dims[d] != y->dims[d]) return false;
  return true;
}

static size_t elements(const ap_tensor *t) {
  size_t n = 1;
  for (int d = 0; d < t->rank; d++)
    n *= t->dims[d] > 0 ? (size_t)t->dims[d] : 0;
  return n;
}

static int open_models(const diff_args *a, diff_state *s) {
  for (int i = 0; i < 2; i++) {
    if (!(s->m[i] = cli_open_model(a->path[i]))) return AP_EXIT_USAGE;
    ap_interpreter_options o = ap_interpreter_defaults();
    ap_status st = ap_interpreter_create(s->m[i], &o, &s->it[i]);
    if (st == AP_OK) st = ap_interpreter_allocate(s->it[i]);
    if (st != AP_OK)
      return cli_fail(a->path[i], "%s",
                      s->it[i] ? cli_unprefixed(a->path[i], ap_interpreter_error(s->it[i]))
                               : "out of memory");
    s->det[i] = det_find_outputs(s->m[i]);
  }
  size_t ni[2], no[2];
  for (int i = 0; i < 2; i++) {
    ni[i] = ap_interpreter_input_count(s->it[i]);
    no[i] = ap_interpreter_output_count(s->it[i]);
  }
  if (ni[0] != ni[1])
    return cli_fail("diff", "%s has %zu input%s, %s has %zu", a->path[0], ni[0],
                    ni[0] == 1 ? "" : "s", a->path[1], ni[1]);
  if (no[0] != no[1])
    return cli_fail("diff", "%s has %zu output%s, %s has %zu", a->path[0], no[0],
                    no[0] == 1 ? "" : "s", a->path[1], no[1]);
  s->inputs = ni[0];
  s->outputs = no[0];
  char b0[128], b1[128];
  for (size_t k = 0; k < s->inputs; k++) {
    ap_tensor x, y;
    if (ap_interpreter_input(s->it[0], k, &x) != AP_OK ||
        ap_interpreter_input(s->it[1], k, &y) != AP_OK)
      return cli_fail("diff", "input %zu is missing", k);
    if (!same_dims(&x, &y))
      return cli_fail("diff", "input %zu is %s in %s, %s in %s", k, run_shape(b0, sizeof b0, &x),
                      a->path[0], run_shape(b1, sizeof b1, &y), a->path[1]);
  }
  for (size_t k = 0; k < s->outputs; k++) {
    ap_tensor x, y;
    if (ap_interpreter_output(s->it[0], k, &x) != AP_OK ||
        ap_interpreter_output(s->it[1], k, &y) != AP_OK)
      return cli_fail("diff", "output %zu is missing", k);
    /* Shapes set while running (detections) are compared after each invoke instead. */
    if (!x.is_dynamic && !y.is_dynamic && !same_dims(&x, &y))
      return cli_fail("diff", "output %zu is %s in %s, %s in %s", k, run_shape(b0, sizeof b0, &x),
                      a->path[0], run_shape(b1, sizeof b1, &y), a->path[1]);
  }
  s->lo = calloc(2 * (s->inputs ? s->inputs : 1), sizeof *s->lo);
  s->st = calloc(s->outputs ? s->outputs : 1, sizeof *s->st);
  if (!s->lo || !s->st) return cli_fail("diff", "out of memory");
  s->hi = s->lo + (s->inputs ? s->inputs : 1);
  for (size_t k = 0; k < s->inputs; k++) {
    s->lo[k] = -1;
    s->hi[k] = 1;
    for (int i = 1; i >= 0; i--) { /* A's range wins when both are quantized */
      ap_tensor t;
      if (ap_interpreter_input(s->it[i], k, &t) != AP_OK || !diff_quantized(&t)) continue;
      double qlo, qhi;
      type_range(t.type, &qlo, &qhi);
      s->lo[k] = (qlo - t.zero_point) * t.scale;
      s->hi[k] = (qhi - t.zero_point) * t.scale;
    }
  }
  bool both_det = s->det[0].found && s->det[1].found;
  for (size_t k = 0; k < s->outputs && both_det; k++)
    s->st[k].detection = k == s->det[0].boxes || k == s->det[0].classes || k == s->det[0].scores ||
                         k == s->det[0].count;
  return AP_EXIT_OK;
}

/* xorshift64*, seeded as `run`'s rule seeds input k (S + k). */
static uint64_t draw(uint64_t *x) {
  *x ^= *x >> 12;
  *x ^= *x << 25;
  *x ^= *x >> 27;
  return *x * 0x2545F4914F6CDD1DULL;
}

static void fill(ap_tensor *t, uint64_t seed, size_t k, double lo, double hi) {
  if (!t->data || !t->bytes) return;
  bool q = diff_quantized(t);
  if (t->type != AP_FLOAT32 && !q) {
    run_fill_random(t, seed, k); /* integers that are not real numbers: the same bytes */
    return;
  }
  uint64_t x = (seed + k) * 0x9E3779B97F4A7C15ULL + 1;
  size_t n = elements(t);
  double qlo = 0, qhi = 0;
  if (q) type_range(t->type, &qlo, &qhi);
  unsigned char *p = t->data;
  for (size_t i = 0; i < n; i++) {
    double u = (double)(draw(&x) >> 11) / 9007199254740992.0; /* [0, 1), 53 bits */
    double r = lo + u * (hi - lo);
    if (t->type == AP_FLOAT32) {
      float f = (float)r;
      memcpy(p + 4 * i, &f, 4);
      continue;
    }
    double v = round(r / t->scale) + t->zero_point;
    v = v < qlo ? qlo : v > qhi ? qhi : v;
    if (t->type == AP_INT16) {
      int16_t w = (int16_t)v;
      memcpy(p + 2 * i, &w, 2);
    } else if (t->type == AP_INT8) {
      p[i] = (unsigned char)(int8_t)v;
    } else {
      p[i] = (unsigned char)v;
    }
  }
}

/* Element i as a real number (dequantized when quantized). */
static double value(const ap_tensor *t, size_t i) {
  const unsigned char *p = t->data;
  double v;
  switch (t->type) {
  case AP_FLOAT32: {
    float f;
    memcpy(&f, p + 4 * i, 4);
    v = f;
    break;
  }
  case AP_INT8: v = (int8_t)p[i]; break;
  case AP_UINT8:
  case AP_BOOL: v = p[i]; break;
  case AP_INT16: {
    int16_t w;
    memcpy(&w, p + 2 * i, 2);
    v = w;
    break;
  }
  case AP_INT32: {
    int32_t w;
    memcpy(&w, p + 4 * i, 4);
    v = w;
    break;
  }
  case AP_INT64: {
    int64_t w;
    memcpy(&w, p + 8 * i, 8);
    v = (double)w;
    break;
  }
  default: return 0;
  }
  return diff_quantized(t) ? (v - t->zero_point) * t->scale : v;
}

static bool readable(int type) {
  return type == AP_FLOAT32 || type == AP_INT8 || type == AP_UINT8 || type == AP_BOOL ||
         type == AP_INT16 || type == AP_INT32 || type == AP_INT64;
}

static int compare_output(const diff_args *a, diff_state *s, size_t k) {
  ap_tensor x, y;
  char b0[128], b1[128];
  if (ap_interpreter_output(s->it[0], k, &x) != AP_OK ||
      ap_interpreter_output(s->it[1], k, &y) != AP_OK)
    return cli_fail("diff", "output %zu is missing", k);
  out_stats *o = &s->st[k];
  if (!same_dims(&x, &y) && !o->detection)
    return cli_fail("diff", "output %zu is %s in %s, %s in %s", k, run_shape(b0, sizeof b0, &x),
                    a->path[0], run_shape(b1, sizeof b1, &y), a->path[1]);
  if (!readable(x.type) || !readable(y.type))
    return cli_fail("diff", "output %zu is %s in %s, %s in %s: not numbers", k,
                    ap_dtype_name(x.type), a->path[0], ap_dtype_name(y.type), a->path[1]);
  size_t n = elements(&x), ny = elements(&y);
  n = n < ny ? n : ny;
  if (!x.data || !y.data) n = 0;
  for (size_t i = 0; i < n; i++) {
    double u = value(&x, i), w = value(&y, i);
    if (!isfinite(u) || !isfinite(w)) {
      s->nonfinite = true;
      continue;
    }
    double e = fabs(u - w);
    o->max_abs = e > o->max_abs ? e : o->max_abs;
    o->sum_abs += e;
    o->elements++;
  }
  if (o->detection) return AP_EXIT_OK;
  run_summary sx, sy;
  run_summarize(&x, &sx);
  run_summarize(&y, &sy);
  if (sx.top_n && sy.top_n) {
    o->top1_total++;
    o->top1_agree += sx.top_class[0] == sy.top_class[0];
  }
  return AP_EXIT_OK;
}

static int run_seed(const diff_args *a, diff_state *s, uint64_t seed) {
  for (int i = 0; i < 2; i++) {
    for (size_t k = 0; k < s->inputs; k++) {
      ap_tensor t;
      if (ap_interpreter_input(s->it[i], k, &t) == AP_OK) fill(&t, seed, k, s->lo[k], s->hi[k]);
    }
    ap_interpreter_reset_variables(s->it[i]);
    if (ap_interpreter_invoke(s->it[i]) != AP_OK)
      return cli_fail(a->path[i], "%s", cli_unprefixed(a->path[i], ap_interpreter_error(s->it[i])));
  }
  for (size_t k = 0; k < s->outputs; k++) {
    int rc = compare_output(a, s, k);
    if (rc != AP_EXIT_OK) return rc;
  }
  if (s->det[0].found && s->det[1].found) {
    size_t total;
    size_t na = det_read(s->it[0], &s->det[0], a->score_threshold, s->box[0], DET_MAX, &total);
    size_t nb = det_read(s->it[1], &s->det[1], a->score_threshold, s->box[1], DET_MAX, &total);
    det_match m;
    if (!det_match_boxes(s->box[0], na, s->box[1], nb, PAIR_IOU, &m))
      return cli_fail("diff", "out of memory");
    s->boxes[0] += na;
    s->boxes[1] += nb;
    s->total.matched += m.matched;
    s->total.missed += m.missed;
    s->total.extra += m.extra;
    s->total.mean_iou += m.mean_iou * (double)m.matched;
  }
  return AP_EXIT_OK;
}

static int diff(int argc, char **argv) {
  if (cli_wants_help(&cmd_diff, argc, argv)) return AP_EXIT_OK;
  diff_args a = {0};
  int rc = parse(argc, argv, &a);
  if (rc != AP_EXIT_OK) return rc;
  diff_state *s = calloc(1, sizeof *s);
  if (!s) return cli_fail("diff", "out of memory");
  rc = open_models(&a, s);
  for (uint64_t seed = 1; rc == AP_EXIT_OK && seed <= a.seeds; seed++)
    rc = run_seed(&a, s, seed);
  if (rc == AP_EXIT_OK) {
    bool ok = diff_verdict(&a, s, false);
    if (a.json) {
      diff_print_json(&a, s, ok);
    } else {
      diff_print_human(&a, s);
      if (a.has_max_error || a.has_min_iou) {
        printf("verdict: %s\n", ok ? "within the limits" : "a limit is not met");
        diff_verdict(&a, s, true);
      }
    }
    rc = ok ? AP_EXIT_OK : AP_EXIT_CHECK;
  }
  cleanup(s);
  free(s);
  return rc;
}
