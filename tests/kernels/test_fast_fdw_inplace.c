/* The fast float DEPTHWISE_CONV_2D with its output over its input, as the planner's in-place
 * overlap places them (src/graph/overlap.c: output row r only over input rows no row from r on
 * reads): every level this CPU has, one thread, against the reference on separate buffers. The
 * input starts at the smallest offset that rule allows, and a few floats further on: rows that
 * narrow maps (fewer than 8 pixels a row) group by eight then meet input still to be read, so a
 * group that wrote as it went would overwrite it (magic_wand's shape first). */
#include "kernels/fast/fast.h"
#include "kernels/registry.h"
#include "ktest.h"
#include "levels.h"

#include <string.h>

enum { B_DW = 4 };

typedef struct dw_shape {
  int h, w, cin, cout, fh, fw, stride;
} dw_shape;

static uint64_t rng = 4242;

/* Prepare and eval with exec x (NULL: the reference) over in (copied to buf + in_at floats
 * when buf is given, the output then at buf) or separate buffers; the output's floats in got. */
static bool run(const dw_shape *s, const float *in, const float *f, const float *bias,
                const ap_kexec *x, float *buf, size_t in_at, float *got, size_t n_out) {
  const ap_kernel *k = ap_kernel_find(B_DW);
  size_t n_in = (size_t)s->h * s->w * s->cin;
  float *src = buf ? buf + in_at : malloc(n_in * sizeof *src);
  float *dst = buf ? buf : malloc(n_out * sizeof *dst);
  memmove(src, in, n_in * sizeof *src);
  ap_ktensor ti = kt(AP_FLOAT32, src, 4, 1, s->h, s->w, s->cin);
  ap_ktensor tf = kt(AP_FLOAT32, (void *)f, 4, 1, s->fh, s->fw, s->cout);
  ap_ktensor tb = kt(AP_FLOAT32, (void *)bias, 1, s->cout, 0, 0, 0);
  const ap_ktensor *ins[3] = {&ti, &tf, &tb};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){AP_KPAD_SAME, s->stride, s->stride, 1, 1, AP_KACT_NONE, 0, 0};
  o.conv.depth_multiplier = s->cout / s->cin;
  o.exec = x;
  _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
  memset(params, 0, sizeof params);
  ap_errbuf err = {{0}};
  ap_ktensor out = kout(AP_FLOAT32, NULL, 0.0f, 0), *outs[1] = {&out};
  ap_kctx c = {ins, 3, outs, 1, &o, params, NULL, &err};
  size_t scratch = 0, n = 0;
  bool ok =
      k->prepare(&c, &scratch) == AP_OK && scratch == 0 && ap_ktensor_count(&out, &n) && n == n_out;
  out.data = dst;
  ok = ok && k->eval(&c) == AP_OK;
  if (ok) memcpy(got, dst, n_out * sizeof *got);
  if (!buf) free(src), free(dst);
  return ok;
}

static void inplace_case(dw_shape s, const ap_fast_level *const *levels, int n_levels) {
  int32_t pad = ((s.h - 1) / s.stride * s.stride + s.fh - s.h) / 2;
  int32_t out_h = (s.h + s.stride - 1) / s.stride, out_w = (s.w + s.stride - 1) / s.stride;
  size_t in_row = (size_t)s.w * s.cin, out_row = (size_t)out_w * s.cout;
  size_t n_in = (size_t)s.h * in_row, n_out = (size_t)out_h * out_row;
  float *in = malloc(n_in * sizeof *in), *f = malloc((size_t)s.fh * s.fw * s.cout * sizeof *f);
  float *bias = malloc((size_t)s.cout * sizeof *bias);
  for (size_t i = 0; i < n_in; i++)
    in[i] = (float)((int32_t)(ap_test_rand(&rng) % 2001) - 1000) / 300.0f;
  for (int i = 0; i < s.fh * s.fw * s.cout; i++)
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
  for (size_t extra = 0; extra <= 24; extra += 8) {
    size_t in_at = at + extra, total = in_at + n_in > n_out ? in_at + n_in : n_out;
    float *buf = malloc(total * sizeof *buf);
    for (int l = 0; l < n_levels; l++) {
      ap_kexec x = {.level = levels[l], .threads = 1, .parallel_min = 1};
      bool ok = run(&s, in, f, bias, &x, buf, in_at, got, n_out);
      size_t i = 0;
      while (ok && i < n_out && memcmp(&got[i], &want[i], sizeof *got) == 0)
        i++;
      CHECK_MSG(ok && i == n_out,
                "%dx%dx%d -> %d, %dx%d, stride %d, input at float %zu: %s: element %zu of %zu "
                "is %a, not %a",
                s.h, s.w, s.cin, s.cout, s.fh, s.fw, s.stride, in_at, levels[l]->name, i, n_out,
                ok && i < n_out ? (double)got[i] : 0.0, i < n_out ? (double)want[i] : 0.0);
    }
    free(buf);
  }
  free(in), free(f), free(bias), free(want), free(got);
}

int main(void) {
  const ap_fast_level *levels[AP_TEST_MAX_LEVELS];
  int n = ap_test_levels(levels);
  static const dw_shape shapes[] = {
      {128, 3, 1, 8, 4, 3, 1}, /* magic_wand's */
      {40, 5, 8, 8, 3, 3, 1},  /* multiplier 1 */
      {33, 2, 2, 16, 5, 3, 1}, /* multiplier 8, two inputs */
      {30, 3, 8, 24, 3, 3, 2}, /* multiplier 3 (the generic level's), stride 2 */
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    inplace_case(shapes[i], levels, n);
  return ap_test_done();
}
