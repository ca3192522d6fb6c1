/* The fast float DEPTHWISE_CONV_2D and CONV_2D with their output over their input, as the
 * planner's in-place overlap places them (src/graph/overlap.c: output row r only over input
 * rows no row from r on reads): every level this CPU has, against the reference on separate
 * buffers. The input starts at the smallest offset that rule allows, and a few floats further
 * on: rows that narrow maps (fewer than 8 pixels a row) group by eight then meet input still to
 * be read, so a group that wrote as it went would overwrite it (magic_wand's shape first). The
 * convolutions run on 1-3 threads, with their packed weights and without (the kernel choice's
 * "in place" candidate: tap passes), and with leads of a few rows more (bands of several rows
 * split over the threads by output channels). */
#include "kernels/fast/fast.h"
#include "kernels/registry.h"
#include "ktest.h"
#include "levels.h"

#include <string.h>

enum { B_CONV = 3, B_DW = 4 };

typedef struct dw_shape {
  int h, w, cin, cout, fh, fw, stride;
  bool conv; /* CONV_2D (filter [cout][fh][fw][cin]), else DEPTHWISE_CONV_2D */
} dw_shape;

static uint64_t rng = 4242;

/* Prepare and eval with exec x (NULL: the reference) over in (copied to buf + in_at floats
 * when buf is given, the output then at buf) or separate buffers; the output's floats in got. */
static bool run(const dw_shape *s, const float *in, const float *f, const float *bias,
                const ap_kexec *x, float *buf, size_t in_at, float *got, size_t n_out) {
  const ap_kernel *k = ap_kernel_find(s->conv ? B_CONV : B_DW);
  size_t n_in = (size_t)s->h * s->w * s->cin;
  float *src = buf ? buf + in_at : malloc(n_in * sizeof *src);
  float *dst = buf ? buf : malloc(n_out * sizeof *dst);
  memmove(src, in, n_in * sizeof *src);
  ap_ktensor ti = kt(AP_FLOAT32, src, 4, 1, s->h, s->w, s->cin);
  ap_ktensor tf = s->conv ? kt(AP_FLOAT32, (void *)f, 4, s->cout, s->fh, s->fw, s->cin)
                          : kt(AP_FLOAT32, (void *)f, 4, 1, s->fh, s->fw, s->cout);
  ap_ktensor tb = kt(AP_FLOAT32, (void *)bias, 1, s->cout, 0, 0, 0);
  const ap_ktensor *ins[3] = {&ti, &tf, &tb};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){AP_KPAD_SAME, s->stride, s->stride, 1, 1, AP_KACT_NONE, 0, 0};
  if (!s->conv) o.conv.depth_multiplier = s->cout / s->cin;
  o.exec = x;
  _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
  memset(params, 0, sizeof params);
  ap_errbuf err = {{0}};
  ap_ktensor out = kout(AP_FLOAT32, NULL, 0.0f, 0), *outs[1] = {&out};
  ap_kctx c = {ins, 3, outs, 1, &o, params, NULL, &err};
  size_t scratch = 0, n = 0;
  bool ok = k->prepare(&c, &scratch) == AP_OK && (s->conv || scratch == 0) &&
            ap_ktensor_count(&out, &n) && n == n_out;
  void *sc = scratch ? malloc(ap_kscratch_round(scratch)) : NULL;
  c.scratch = sc;
  out.data = dst;
  ok = ok && k->eval(&c) == AP_OK;
  free(sc);
  if (ok) memcpy(got, dst, n_out * sizeof *got);
  if (!buf) free(src), free(dst);
  return ok;
}

static void inplace_case(dw_shape s, const ap_kexec *cfgs, int n_cfgs) {
  int32_t pad = ((s.h - 1) / s.stride * s.stride + s.fh - s.h) / 2;
  int32_t out_h = (s.h + s.stride - 1) / s.stride, out_w = (s.w + s.stride - 1) / s.stride;
  size_t in_row = (size_t)s.w * s.cin, out_row = (size_t)out_w * s.cout;
  size_t n_in = (size_t)s.h * in_row, n_out = (size_t)out_h * out_row;
  size_t n_f = (size_t)s.fh * s.fw * s.cout * (s.conv ? (size_t)s.cin : 1);
  float *in = malloc(n_in * sizeof *in), *f = malloc(n_f * sizeof *f);
  float *bias = malloc((size_t)s.cout * sizeof *bias);
  for (size_t i = 0; i < n_in; i++)
    in[i] = (float)((int32_t)(ap_test_rand(&rng) % 2001) - 1000) / 300.0f;
  for (size_t i = 0; i < n_f; i++)
    f[i] = (float)((int32_t)(ap_test_rand(&rng) % 2001) - 1000) / 300.0f;
  for (int i = 0; i < s.cout; i++)
    bias[i] = (float)i / 7.0f;
  float *want = malloc(n_out * sizeof *want), *got = malloc(n_out * sizeof *got);
  CHECK(run(&s, in, f, bias, NULL, NULL, 0, want, n_out));
  /* the smallest input offset (floats) keeping output row r off the input rows r reads on */
  size_t at = 0;
  for (int32_t r = 0; r < out_h; r++) {
    int32_t top = r * s.stride - pad;
    size_t first = (size_t)(top > 0 ? top : 0) * in_row, end = (size_t)(r + 1) * out_row;
    if (end > first && end - first > at) at = end - first;
  }
  /* a few floats past the least lead, then one and three output rows more */
  static const size_t extras[] = {0, 8, 24, 1000000, 3000000};
  for (size_t e = 0; e < sizeof extras / sizeof extras[0]; e++) {
    size_t extra = extras[e] >= 1000000 ? extras[e] / 1000000 * out_row : extras[e];
    size_t in_at = at + extra, total = in_at + n_in > n_out ? in_at + n_in : n_out;
    float *buf = malloc(total * sizeof *buf);
    for (int l = 0; l < n_cfgs; l++) {
      const ap_kexec x = cfgs[l];
      bool ok = run(&s, in, f, bias, &x, buf, in_at, got, n_out);
      size_t i = 0;
      while (ok && i < n_out && memcmp(&got[i], &want[i], sizeof *got) == 0)
        i++;
      CHECK_MSG(ok && i == n_out,
                "%s %dx%dx%d -> %d, %dx%d, stride %d, input at float %zu: %s%s, %d threads: "
                "element %zu of %zu is %a, not %a",
                s.conv ? "CONV" : "DEPTHWISE", s.h, s.w, s.cin, s.cout, s.fh, s.fw, s.stride, in_at,
                x.level->name,
                x.lean                        ? " lean"
                : ap_fast_level_flat(x.level) ? " in place"
                                              : "",
                x.threads, i, n_out, ok && i < n_out ? (double)got[i] : 0.0,
                i < n_out ? (double)want[i] : 0.0);
    }
    free(buf);
  }
  free(in), free(f), free(bias), free(want), free(got);
}

int main(void) {
  const ap_fast_level *levels[AP_TEST_MAX_LEVELS];
  int n = ap_test_levels(levels);
  ap_kexec one[AP_TEST_MAX_LEVELS];
  for (int l = 0; l < n; l++)
    one[l] = (ap_kexec){.level = levels[l], .threads = 1, .parallel_min = 1};
  static const dw_shape shapes[] = {
      {128, 3, 1, 8, 4, 3, 1, false}, /* magic_wand's */
      {40, 5, 8, 8, 3, 3, 1, false},  /* multiplier 1 */
      {33, 2, 2, 16, 5, 3, 1, false}, /* multiplier 8, two inputs */
      {30, 3, 8, 24, 3, 3, 2, false}, /* multiplier 3 (the generic level's), stride 2 */
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    inplace_case(shapes[i], one, n);
  /* CONV_2D: every level on 1-3 threads, and the levels with packed-weight kits without them
   * (the tap passes; on two threads with one workspace too, as the runtime runs them). */
  ap_port_workers *w2 = NULL, *w3 = NULL;
  CHECK(ap_port_workers_create(NULL, 2, &w2, NULL) == AP_OK);
  CHECK(ap_port_workers_create(NULL, 3, &w3, NULL) == AP_OK);
  static ap_fast_level flats[AP_TEST_MAX_LEVELS];
  ap_kexec cfgs[AP_TEST_MAX_LEVELS * 9];
  int nc = 0;
  for (int l = 0; l < n; l++) {
    const ap_fast_level *v[2] = {levels[l], NULL};
    if (levels[l]->outer) {
      flats[l] = *levels[l];
      flats[l].outer = NULL;
      v[1] = &flats[l];
    }
    for (int f = 0; f < 2 && v[f]; f++) {
      cfgs[nc++] = (ap_kexec){.level = v[f], .threads = 1, .parallel_min = 1};
      cfgs[nc++] = (ap_kexec){
          .level = v[f], .workers = w2, .threads = 2, .one_workspace = f == 1, .parallel_min = 1};
      cfgs[nc++] = (ap_kexec){.level = v[f], .workers = w3, .threads = 3, .parallel_min = 1};
    }
    if (v[1]) { /* the lean kernels, as the "in place" candidate runs them (lean.h) */
      cfgs[nc++] = (ap_kexec){.level = v[1], .threads = 1, .lean = true, .parallel_min = 1};
      cfgs[nc++] = (ap_kexec){.level = v[1],
                              .workers = w2,
                              .threads = 2,
                              .lean = true,
                              .one_workspace = true,
                              .parallel_min = 1};
      cfgs[nc++] =
          (ap_kexec){.level = v[1], .workers = w3, .threads = 3, .lean = true, .parallel_min = 1};
    }
  }
  static const dw_shape convs[] = {
      {12, 9, 16, 16, 3, 3, 1, true}, /* ic_resnet's first block, smaller */
      {9, 7, 5, 19, 3, 3, 1, true},   /* channels off the panels */
      {8, 6, 32, 40, 3, 3, 1, true},  /* five panels of 8 */
      {11, 8, 8, 33, 3, 3, 2, true},  /* stride 2 */
      {10, 5, 3, 17, 5, 5, 1, true},  /* 5x5 */
      /* mlperf_ic_resnet_float's: on 2 and 3 threads the lean kernel's pieces hold back their
       * first rows (6 KiB for two pieces) */
      {32, 32, 16, 16, 3, 3, 1, true},
      {16, 16, 32, 32, 3, 3, 1, true},
  };
  for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++)
    inplace_case(convs[i], cfgs, nc);
  ap_port_workers_destroy(w2);
  ap_port_workers_destroy(w3);
  return ap_test_done();
}
