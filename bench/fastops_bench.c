/* The fastops paths (uint8 conv/depthwise/fully connected, int8/uint8/int16 pools, 16x8 conv
 * and fully connected) against the reference kernels, op by op through the registry as the
 * runtime calls them: median eval time of each, measured interleaved (each round runs both,
 * in alternating order), one thread, the CPU's best level (AP_SIMD caps it), and whether the
 * bytes are equal. Prints Markdown.
 *
 *   bench_fastops_bench [ROUNDS]   (default 50) */
#include "bench_time.h"
#include "kernels/fast/fastops.h"
#include "kernels/ktest.h"
#include "kernels/registry.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng = 5;

static void *rand_data(size_t n) {
  uint8_t *p = malloc(n ? n : 1);
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)ap_test_rand(&rng);
  return p;
}

typedef struct prepared {
  const ap_kernel *k;
  _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
  ap_kop_options run;
  ap_ktensor out, *outs[1];
  void *scratch;
  ap_kctx c;
} prepared;

static bool prepare(prepared *p, int32_t builtin, const ap_kop_options *o,
                    const ap_ktensor *const *ins, int n, const ap_ktensor *out_view,
                    const ap_kexec *x) {
  memset(p, 0, sizeof *p);
  p->k = ap_kernel_find(builtin);
  ap_kop_options opt = *o;
  opt.exec = x;
  ap_errbuf err = {{0}};
  p->out = *out_view;
  p->outs[0] = &p->out;
  p->c = (ap_kctx){ins, n, p->outs, 1, &opt, p->params, NULL, &err};
  size_t scratch = 0, count;
  if (p->k->prepare(&p->c, &scratch) != AP_OK) return false;
  ap_ktensor_count(&p->out, &count);
  p->out.data = calloc(count * ap_ktype_size(p->out.type) + 1, 1);
  p->scratch = scratch ? aligned_alloc(16, ap_kscratch_round(scratch)) : NULL;
  p->c.scratch = p->scratch;
  p->run.exec = x;
  p->c.options = &p->run;
  return true;
}

static void bench(const char *what, int32_t builtin, const ap_kop_options *o,
                  const ap_ktensor *const *ins, int n, const ap_ktensor *out_view,
                  const ap_kexec *x, int rounds) {
  static prepared pr[2];
  if (!prepare(&pr[0], builtin, o, ins, n, out_view, NULL) ||
      !prepare(&pr[1], builtin, o, ins, n, out_view, x)) {
    printf("| %s | cannot prepare |\n", what);
    return;
  }
  double *t[2] = {malloc((size_t)rounds * sizeof(double)), malloc((size_t)rounds * sizeof(double))};
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < 2; i++) {
      int w = (r + i) % 2;
      double t0 = bench_now_us();
      pr[w].k->eval(&pr[w].c);
      t[w][r] = bench_now_us() - t0;
    }
  size_t count;
  ap_ktensor_count(&pr[0].out, &count);
  bool same = memcmp(pr[0].out.data, pr[1].out.data, count * ap_ktype_size(pr[0].out.type)) == 0;
  qsort(t[0], (size_t)rounds, sizeof(double), bench_cmp_double);
  qsort(t[1], (size_t)rounds, sizeof(double), bench_cmp_double);
  double a = t[0][rounds / 2], b = t[1][rounds / 2];
  printf("| %s | %.1f | %.1f | %.1fx | %s |\n", what, a, b, a / b, same ? "yes" : "NO");
  for (int i = 0; i < 2; i++) {
    free(pr[i].out.data);
    free(pr[i].scratch);
    free(t[i]);
  }
}

static void conv(const char *what, int type, bool dw, int h, int w, int cin, int cout, int f,
                 int stride, const ap_kexec *x, int rounds) {
  bool s16 = type == AP_INT16;
  size_t esz = s16 ? 2 : 1;
  void *in = rand_data((size_t)h * w * cin * esz);
  void *flt = rand_data((size_t)cout * f * f * (dw ? 1 : cin));
  void *bias = calloc((size_t)cout, 8);
  int ft = type == AP_UINT8 ? AP_UINT8 : AP_INT8;
  ap_ktensor ti = ktq(type, in, 4, 1, h, w, cin, 0.02f, type == AP_UINT8 ? 128 : 0);
  ap_ktensor tf = dw ? ktq(ft, flt, 4, 1, f, f, cout, 0.01f, ft == AP_UINT8 ? 120 : 0)
                     : ktq(ft, flt, 4, cout, f, f, cin, 0.01f, ft == AP_UINT8 ? 120 : 0);
  ap_ktensor tb = kt(s16 ? AP_INT64 : AP_INT32, bias, 1, cout, 0, 0, 0);
  ap_ktensor to = kout(type, NULL, 0.5f, type == AP_UINT8 ? 128 : 0);
  const ap_ktensor *ins[3] = {&ti, &tf, &tb};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){AP_KPAD_SAME, stride, stride, 1, 1, AP_KACT_RELU6, dw ? 1 : 0, 0};
  bench(what, dw ? 4 : 3, &o, ins, 3, &to, x, rounds);
  free(in), free(flt), free(bias);
}

static void fc(const char *what, int type, int depth, int units, const ap_kexec *x, int rounds) {
  bool s16 = type == AP_INT16;
  void *in = rand_data((size_t)depth * (s16 ? 2 : 1));
  void *wt = rand_data((size_t)depth * units);
  void *bias = calloc((size_t)units, 8);
  int wtype = type == AP_UINT8 ? AP_UINT8 : AP_INT8;
  ap_ktensor ti = ktq(type, in, 2, 1, depth, 0, 0, 0.02f, type == AP_UINT8 ? 128 : 0);
  ap_ktensor tw = ktq(wtype, wt, 2, units, depth, 0, 0, 0.01f, wtype == AP_UINT8 ? 120 : 0);
  ap_ktensor tb = kt(s16 ? AP_INT64 : AP_INT32, bias, 1, units, 0, 0, 0);
  ap_ktensor to = kout(type, NULL, 0.5f, type == AP_UINT8 ? 128 : 0);
  const ap_ktensor *ins[3] = {&ti, &tw, &tb};
  ap_kop_options o = {0};
  bench(what, 9, &o, ins, 3, &to, x, rounds);
  free(in), free(wt), free(bias);
}

static void pool(const char *what, int type, bool max, int h, int w, int c, int f, int stride,
                 const ap_kexec *x, int rounds) {
  void *in = rand_data((size_t)h * w * c * (type == AP_INT16 ? 2 : 1));
  ap_ktensor ti = ktq(type, in, 4, 1, h, w, c, 0.5f, 0);
  ap_ktensor to = kout(type, NULL, 0.5f, 0);
  const ap_ktensor *ins[1] = {&ti};
  ap_kop_options o = {0};
  o.pool = (ap_pool_options){AP_KPAD_SAME, stride, stride, f, f, AP_KACT_NONE};
  bench(what, max ? 17 : 1, &o, ins, 1, &to, x, rounds);
  free(in);
}

static void bmm(const char *what, int type, int m, int k, int n, bool adj_y, const ap_kexec *x,
                int rounds) {
  size_t es = type == AP_FLOAT32 ? 4 : type == AP_INT16 ? 2 : 1;
  void *a = rand_data((size_t)m * k * es), *b = rand_data((size_t)k * n * es);
  if (type == AP_FLOAT32) /* finite values */
    for (size_t i = 0; i < (size_t)m * k; i++)
      ((float *)a)[i] = (float)(i % 13) - 6.0f;
  if (type == AP_FLOAT32)
    for (size_t i = 0; i < (size_t)k * n; i++)
      ((float *)b)[i] = (float)(i % 7) * 0.5f;
  ap_ktensor ta = ktq(type, a, 2, m, k, 0, 0, type == AP_FLOAT32 ? 0.0f : 0.02f, 0);
  ap_ktensor tb = adj_y ? ktq(type, b, 2, n, k, 0, 0, type == AP_FLOAT32 ? 0.0f : 0.02f, 0)
                        : ktq(type, b, 2, k, n, 0, 0, type == AP_FLOAT32 ? 0.0f : 0.02f, 0);
  ap_ktensor to = kout(type, NULL, type == AP_FLOAT32 ? 0.0f : 0.5f, 0);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_kop_options o = {0};
  o.adj_y = adj_y;
  bench(what, 126, &o, ins, 2, &to, x, rounds);
  free(a), free(b);
}

static void tconv(const char *what, int type, int ih, int iw, int ic, int oc, int f, int stride,
                  const ap_kexec *x, int rounds) {
  int32_t shape[4] = {1, ih * stride, iw * stride, oc};
  int ft = type == AP_FLOAT32 ? AP_FLOAT32 : AP_INT8;
  size_t es = type == AP_FLOAT32 ? 4 : type == AP_INT16 ? 2 : 1;
  void *in = rand_data((size_t)ih * iw * ic * es), *flt = rand_data((size_t)oc * f * f * ic * es);
  if (type == AP_FLOAT32) {
    for (size_t i = 0; i < (size_t)ih * iw * ic; i++)
      ((float *)in)[i] = (float)(i % 11) - 5.0f;
    for (size_t i = 0; i < (size_t)oc * f * f * ic; i++)
      ((float *)flt)[i] = (float)(i % 5) * 0.25f;
  }
  ap_ktensor ts = kt(AP_INT32, shape, 1, 4, 0, 0, 0);
  ap_ktensor tf = ktq(ft, flt, 4, oc, f, f, ic, ft == AP_FLOAT32 ? 0.0f : 0.01f, 0);
  ap_ktensor ti = ktq(type, in, 4, 1, ih, iw, ic, type == AP_FLOAT32 ? 0.0f : 0.05f, 0);
  ap_ktensor to = kout(type, NULL, type == AP_FLOAT32 ? 0.0f : 0.5f, 0);
  to.rank = 4;
  memcpy(to.dims, shape, sizeof shape);
  const ap_ktensor *ins[3] = {&ts, &tf, &ti};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){AP_KPAD_SAME, stride, stride, 1, 1, AP_KACT_NONE, 0, 0};
  bench(what, 67, &o, ins, 3, &to, x, rounds);
  free(in), free(flt);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 50;
  if (rounds < 1 || rounds > 100000) rounds = 50;
  ap_kexec x = {.level = ap_fast_select(), .threads = 1};
  printf("level %s, one thread, median of %d interleaved rounds\n\n", x.level->name, rounds);
  printf("| op | reference us | fast us | speed-up | same bytes |\n|---|---:|---:|---:|---|\n");
  conv("uint8 CONV_2D 1x1, 32x32x64 -> 64", AP_UINT8, false, 32, 32, 64, 64, 1, 1, &x, rounds);
  conv("uint8 CONV_2D 3x3, 32x32x32 -> 32", AP_UINT8, false, 32, 32, 32, 32, 3, 1, &x, rounds);
  conv("uint8 CONV_2D 3x3 s2, 64x64x3 -> 8", AP_UINT8, false, 64, 64, 3, 8, 3, 2, &x, rounds);
  conv("uint8 DEPTHWISE 3x3, 32x32x64", AP_UINT8, true, 32, 32, 64, 64, 3, 1, &x, rounds);
  fc("uint8 FULLY_CONNECTED 1024 -> 1001", AP_UINT8, 1024, 1001, &x, rounds);
  conv("16x8 CONV_2D 3x3, 16x16x32 -> 32", AP_INT16, false, 16, 16, 32, 32, 3, 1, &x, rounds);
  conv("16x8 CONV_2D 1x1, 32x32x64 -> 64", AP_INT16, false, 32, 32, 64, 64, 1, 1, &x, rounds);
  fc("16x8 FULLY_CONNECTED 1024 -> 256", AP_INT16, 1024, 256, &x, rounds);
  pool("int8 AVERAGE_POOL_2D 3x3, 32x32x64", AP_INT8, false, 32, 32, 64, 3, 1, &x, rounds);
  pool("int8 MAX_POOL_2D 2x2 s2, 64x64x32", AP_INT8, true, 64, 64, 32, 2, 2, &x, rounds);
  pool("uint8 AVERAGE_POOL_2D 4x4, 4x4x256", AP_UINT8, false, 4, 4, 256, 4, 4, &x, rounds);
  pool("int16 MAX_POOL_2D 3x3 s2, 32x32x32", AP_INT16, true, 32, 32, 32, 3, 2, &x, rounds);
  pool("int16 AVERAGE_POOL_2D 3x3, 32x32x32", AP_INT16, false, 32, 32, 32, 3, 1, &x, rounds);
  bmm("int8 BATCH_MATMUL 64x256 . 256x64", AP_INT8, 64, 256, 64, false, &x, rounds);
  bmm("int16 BATCH_MATMUL 64x256 . (64x256)T", AP_INT16, 64, 256, 64, true, &x, rounds);
  bmm("float BATCH_MATMUL 64x128 . 128x64", AP_FLOAT32, 64, 128, 64, false, &x, rounds);
  tconv("int8 TRANSPOSE_CONV 3x3 s2, 16x16x32 -> 16", AP_INT8, 16, 16, 32, 16, 3, 2, &x, rounds);
  tconv("16x8 TRANSPOSE_CONV 3x3 s2, 16x16x32 -> 16", AP_INT16, 16, 16, 32, 16, 3, 2, &x, rounds);
  tconv("float TRANSPOSE_CONV 3x3 s2, 16x16x32 -> 16", AP_FLOAT32, 16, 16, 32, 16, 3, 2, &x,
        rounds);
  return 0;
}
