/* DEPTHWISE_CONV_2D (depth multiplier 1) shapes of the issue-29 models: the fast kernels against
 * the reference ones through the registry, op by op as the runtime calls them, one thread, the
 * CPU's best level (AP_SIMD caps it): median eval time of each, interleaved rounds (each round
 * runs both, in alternating order), and whether the bytes are equal. Prints Markdown.
 *
 *   bench_dw_bench [ROUNDS]        (default 200)
 *   bench_dw_bench count I N       eval shape I's fast kernel N times and nothing else, for
 *                                  instruction counts (valgrind --tool=callgrind
 *                                  --collect-atstart=no --toggle-collect=ap_fast_dw_eval; the
 *                                  uint8 shapes: ap_fast_u8dw_eval) */
#include "bench_time.h"
#include "kernels/fast/fast.h"
#include "kernels/ktest.h"
#include "kernels/registry.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng = 29;

typedef struct shape {
  const char *model;
  int h, w, c, f, stride, u8;
} shape;

/* input height, width, channels; filter; stride (SAME padding) */
static const shape shapes[] = {
    {"vww op 1", 48, 48, 8, 3, 1, 0},         {"vww op 3", 48, 48, 16, 3, 2, 0},
    {"vww op 5", 24, 24, 32, 3, 1, 0},        {"vww op 7", 24, 24, 32, 3, 2, 0},
    {"vww op 9", 12, 12, 64, 3, 1, 0},        {"vww op 11", 12, 12, 64, 3, 2, 0},
    {"vww op 13", 6, 6, 128, 3, 1, 0},        {"vww op 23", 6, 6, 128, 3, 2, 0},
    {"vww op 25", 3, 3, 256, 3, 1, 0},        {"kws op 1", 25, 5, 64, 3, 1, 0},
    {"mnv2 32ch 112", 112, 112, 32, 3, 1, 0}, {"mnv2 96ch s2", 112, 112, 96, 3, 2, 0},
    {"mnv2 144ch 56", 56, 56, 144, 3, 1, 0},  {"mnv2 384ch 14", 14, 14, 384, 3, 1, 0},
    {"mnv1 u8 8ch 64", 64, 64, 8, 3, 1, 1},   {"mnv1 u8 16ch s2", 64, 64, 16, 3, 2, 1},
    {"mnv1 u8 64ch 16", 16, 16, 64, 3, 1, 1}, {"mnv1 u8 128ch 8", 8, 8, 128, 3, 1, 1},
};
enum { NSHAPES = sizeof shapes / sizeof shapes[0] };

typedef struct prepared {
  const ap_kernel *k;
  _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
  ap_kop_options run;
  ap_ktensor out, *outs[1];
  void *scratch;
  ap_kctx c;
} prepared;

typedef struct op {
  void *in, *flt;
  int32_t *bias;
  float *scales;
  ap_ktensor ti, tf, tb, to;
  const ap_ktensor *ins[3];
  ap_kop_options o;
} op;

static void make_op(const shape *s, op *p) {
  int32_t c = s->c, taps = s->f * s->f;
  size_t nin = (size_t)s->h * s->w * c;
  uint8_t *in = malloc(nin), *flt = malloc((size_t)taps * c);
  for (size_t i = 0; i < nin; i++)
    in[i] = (uint8_t)ap_test_rand(&rng);
  for (size_t i = 0; i < (size_t)taps * c; i++)
    flt[i] = (uint8_t)ap_test_rand(&rng);
  p->in = in, p->flt = flt;
  p->bias = malloc((size_t)c * 4);
  p->scales = malloc((size_t)c * sizeof(float));
  for (int32_t i = 0; i < c; i++) {
    p->bias[i] = (int32_t)(ap_test_rand(&rng) % 20001) - 10000;
    p->scales[i] = 0.002f + 0.00001f * (float)(ap_test_rand(&rng) % 1000);
  }
  int type = s->u8 ? AP_UINT8 : AP_INT8;
  p->ti = ktq(type, in, 4, 1, s->h, s->w, c, 0.02f, s->u8 ? 128 : -5);
  p->tf = ktq(type, flt, 4, 1, s->f, s->f, c, 0.004f, s->u8 ? 120 : 0);
  if (!s->u8) {
    p->tf.channel_scales = p->scales;
    p->tf.n_channels = c;
    p->tf.quantized_dimension = 3;
  }
  p->tb = kt(AP_INT32, p->bias, 1, c, 0, 0, 0);
  p->to = kout(type, NULL, 0.05f, s->u8 ? 128 : 3);
  p->ins[0] = &p->ti, p->ins[1] = &p->tf, p->ins[2] = &p->tb;
  memset(&p->o, 0, sizeof p->o);
  p->o.conv = (ap_conv_options){AP_KPAD_SAME, s->stride, s->stride, 1, 1, AP_KACT_RELU6, 1, 0};
}

static bool prepare(prepared *p, const op *q, const ap_kexec *x) {
  memset(p, 0, sizeof *p);
  p->k = ap_kernel_find(4);
  ap_kop_options opt = q->o;
  opt.exec = x;
  ap_errbuf err = {{0}};
  p->out = q->to;
  p->outs[0] = &p->out;
  p->c = (ap_kctx){q->ins, 3, p->outs, 1, &opt, p->params, NULL, &err};
  size_t scratch = 0, count;
  if (p->k->prepare(&p->c, &scratch) != AP_OK) return false;
  ap_ktensor_count(&p->out, &count);
  p->out.data = calloc(count + 1, 1);
  p->scratch = scratch ? aligned_alloc(64, ap_kscratch_round(scratch) + 64) : NULL;
  p->c.scratch = p->scratch;
  p->run.exec = x;
  p->c.options = &p->run;
  return true;
}

int main(int argc, char **argv) {
  ap_kexec x = {.level = ap_fast_select(), .threads = 1};
  if (argc == 4 && strcmp(argv[1], "count") == 0) {
    int i = atoi(argv[2]), n = atoi(argv[3]);
    if (i < 0 || i >= NSHAPES || n < 1) return 2;
    op q;
    prepared p;
    make_op(&shapes[i], &q);
    if (!prepare(&p, &q, &x)) return 1;
    for (int r = 0; r < n; r++)
      p.k->eval(&p.c);
    return 0;
  }
  int rounds = argc > 1 ? atoi(argv[1]) : 200;
  if (rounds < 1 || rounds > 100000) rounds = 200;
  printf("level %s, one thread, median of %d interleaved rounds\n\n", x.level->name, rounds);
  printf("| op | shape | reference us | fast us | speed-up | same bytes |\n"
         "|---|---|---:|---:|---:|---|\n");
  double *t[2] = {malloc((size_t)rounds * sizeof(double)), malloc((size_t)rounds * sizeof(double))};
  for (int i = 0; i < NSHAPES; i++) {
    const shape *s = &shapes[i];
    op q;
    static prepared pr[2];
    make_op(s, &q);
    if (!prepare(&pr[0], &q, NULL) || !prepare(&pr[1], &q, &x)) {
      printf("| %s | cannot prepare |\n", s->model);
      continue;
    }
    for (int r = 0; r < rounds; r++)
      for (int k = 0; k < 2; k++) {
        int w = (r + k) % 2;
        double t0 = bench_now_us();
        pr[w].k->eval(&pr[w].c);
        t[w][r] = bench_now_us() - t0;
      }
    size_t count;
    ap_ktensor_count(&pr[0].out, &count);
    bool same = memcmp(pr[0].out.data, pr[1].out.data, count) == 0;
    qsort(t[0], (size_t)rounds, sizeof(double), bench_cmp_double);
    qsort(t[1], (size_t)rounds, sizeof(double), bench_cmp_double);
    double a = t[0][rounds / 2], b = t[1][rounds / 2];
    printf("| %s | %s %dx%dx%d %dx%d s%d | %.1f | %.2f | %.1fx | %s |\n", s->model,
           s->u8 ? "uint8" : "int8", s->h, s->w, s->c, s->f, s->f, s->stride, a, b, a / b,
           same ? "yes" : "NO");
    for (int k = 0; k < 2; k++) {
      free(pr[k].out.data);
      free(pr[k].scratch);
    }
    free(q.in), free(q.flt), free(q.bias), free(q.scales);
  }
  free(t[0]), free(t[1]);
  return 0;
}
