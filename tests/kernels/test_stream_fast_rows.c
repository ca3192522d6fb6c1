/* The fast kernels' row ranges (kernels/fast/rows.h) at every SIMD level this CPU has: a
 * segment's pull simulated by hand (input rows fed into a ring as the windows reach them,
 * output rows written to a ring that wraps), batches of 1 and 3 rows, every output row equal to
 * the reference kernel's whole-map eval byte for byte; windows that wrap around the input ring
 * (the staging copy), padding at both borders, stride 2, dilation, 1x1 direct rows. */
#include "arenaplan/graph.h"
#include "kernels/fast/rows.h"
#include "ktest.h"
#include "levels.h"

#include <string.h>

static uint64_t rng = 777;
static int32_t rnd(int32_t lo, int32_t hi) {
  return lo + (int32_t)(ap_test_rand(&rng) % (uint64_t)(hi - lo + 1));
}

static const ap_fast_level *levels[AP_TEST_MAX_LEVELS];
static int nlevels;

enum { CONV, DW, FCONV, FDW };

/* Which row kernels: rows.c's, or rows_win.c's direct kits with weights packed once or at each
 * call (levels with direct kits only), their call scratch shared or their own (AP_FAST_WIN_OWN:
 * window rows kept over calls, EACH's weights packed once into it). */
enum { ROWS, WIN_ONCE, WIN_EACH, WIN_OWN_ONCE, WIN_OWN_EACH, READY };

/* READY: the float kinds' rows laid out once (ap_fast_*_rows_ready, ap_fast_block_rows_run). */
static unsigned win_how(int kind, int path) {
  return (kind == DW ? AP_FAST_WIN_DW : 0u) |
         (path == WIN_EACH || path == WIN_OWN_EACH ? AP_FAST_WIN_EACH : 0u);
}

static unsigned win_begin_how(int kind, int path) {
  return win_how(kind, path) | (path >= WIN_OWN_ONCE ? AP_FAST_WIN_OWN : 0u);
}

static bool scratch_of(int kind, int path, const ap_kexec *x, const ap_conv_params *p,
                       const ap_ktensor *ti, const ap_ktensor *tf, int32_t ring, size_t *keep,
                       size_t *temp) {
  if (path != ROWS && path != READY)
    return ap_fast_win_rows_scratch(x, p, ti, tf, win_how(kind, path), keep, temp);
  if (kind == FDW) return ap_fast_fdw_rows_scratch(x, p, ti, tf, ring, temp);
  return kind == DW ? ap_fast_dw_rows_scratch(x, p, ti, tf, ring, keep, temp)
                    : ap_fast_conv_rows_scratch(x, p, ti, tf, ring, keep, temp);
}

static ap_status begin_of(int kind, int path, const ap_kexec *x, const ap_conv_params *p,
                          const ap_ktensor *ti, const ap_ktensor *tf, const ap_ktensor *tb,
                          int32_t ring, void *kb, void *tmp) {
  if (path != ROWS && path != READY)
    return ap_fast_win_rows_begin(x, p, ti, tf, tb, win_begin_how(kind, path), kb, tmp);
  if (kind == FDW) return AP_OK;
  return kind == DW ? ap_fast_dw_rows_begin(x, p, ti, tf, ring, kb)
                    : ap_fast_conv_rows_begin(x, p, ti, tf, tb, ring, kb);
}

static ap_status rows_of(int kind, int path, const ap_kexec *x, const ap_conv_params *p,
                         const ap_ktensor *ri, const ap_ktensor *tf, const ap_ktensor *tb,
                         ap_ktensor *ro, void *kb, void *tmp, const ap_krows *r,
                         const ap_fast_block_rows *blk) {
  ap_status s = AP_ERR_KERNEL;
  if (path == READY) return ap_fast_block_rows_run(blk, tmp, r);
  if (path != ROWS) return ap_fast_win_rows(p, ri, tf, ro, kb, tmp, r, &s) ? s : AP_ERR_KERNEL;
  if (kind == FDW) return ap_fast_fdw_rows(x, p, ri, tf, tb, ro, tmp, r);
  return kind == DW ? ap_fast_dw_rows(x, p, ri, tf, tb, ro, kb, tmp, r)
                    : ap_fast_conv_rows(x, p, ri, tf, tb, ro, kb, tmp, r);
}

typedef struct rcase {
  int kind, h, w, cin, cout, fh, fw, stride, dil, padding;
} rcase;

static void *zalloc(size_t n) {
  void *p = aligned_alloc(16, ap_kscratch_round(n ? n : 1));
  memset(p, 0, ap_kscratch_round(n ? n : 1));
  return p;
}

/* Rows of output computed from rings, batch rows per call, at level l; compared row by row. */
static void rows_case(const rcase *c, const ap_fast_level *l, int batch, int path) {
  bool fl = c->kind == FCONV || c->kind == FDW, dwk = c->kind == DW || c->kind == FDW;
  if (path != ROWS && path != READY && fl) return;
  if (path == READY && !fl) return;
  size_t es = fl ? 4 : 1, nin = (size_t)c->h * c->w * c->cin;
  size_t nf = (size_t)c->cout * c->fh * c->fw * (dwk ? 1 : c->cin);
  void *in = zalloc(nin * es), *f = zalloc(nf * es), *bias = zalloc((size_t)c->cout * 4);
  float scales[64];
  for (size_t i = 0; i < nin; i++)
    fl ? (void)(((float *)in)[i] = (float)rnd(-300, 300) / 100.0f)
       : (void)(((int8_t *)in)[i] = (int8_t)rnd(-128, 127));
  for (size_t i = 0; i < nf; i++)
    fl ? (void)(((float *)f)[i] = (float)rnd(-300, 300) / 100.0f)
       : (void)(((int8_t *)f)[i] = (int8_t)rnd(-127, 127));
  for (int i = 0; i < c->cout; i++) {
    fl ? (void)(((float *)bias)[i] = (float)rnd(-100, 100) / 50.0f)
       : (void)(((int32_t *)bias)[i] = rnd(-5000, 5000));
    scales[i] = 0.002f + 0.0003f * (float)i;
  }
  int type = fl ? AP_FLOAT32 : AP_INT8;
  ap_ktensor ti = fl ? kt(type, in, 4, 1, c->h, c->w, c->cin)
                     : ktq(type, in, 4, 1, c->h, c->w, c->cin, 0.05f, 7);
  ap_ktensor tf = dwk ? kt(type, f, 4, 1, c->fh, c->fw, c->cout)
                      : kt(type, f, 4, c->cout, c->fh, c->fw, c->cin);
  if (!fl) {
    tf.scale = scales[0];
    tf.channel_scales = scales;
    tf.n_channels = c->cout;
    tf.quantized_dimension = c->kind == DW ? 3 : 0;
  }
  ap_ktensor tb = kt(fl ? AP_FLOAT32 : AP_INT32, bias, 1, c->cout, 0, 0, 0);
  ap_ktensor to = kout(type, NULL, fl ? 0.0f : 0.3f, fl ? 0 : -3);
  ap_conv_options o = {
      c->padding, c->stride, c->stride, c->dil, c->dil, AP_KACT_NONE, dwk ? c->cout / c->cin : 0,
      0};
  ap_conv_params p;
  ap_status s = dwk ? ap_depthwise_prepare(&o, &ti, &tf, &tb, &to, &p, NULL)
                    : ap_conv_prepare(&o, &ti, &tf, &tb, &to, &p, NULL);
  CHECK_EQ(s, AP_OK);
  int32_t oh = to.dims[1];
  size_t out_row = (size_t)to.dims[2] * to.dims[3] * es, in_row = (size_t)c->w * c->cin * es;
  void *want = zalloc(out_row * (size_t)oh), *rs = zalloc(p.scratch_bytes);
  to.data = want;
  s = dwk ? ap_depthwise_eval(&p, &ti, &tf, &tb, &to, rs)
          : ap_conv_eval(&p, &ti, &tf, &tb, &to, rs);
  CHECK_EQ(s, AP_OK);
  ap_kexec x = {.level = l, .threads = 1};
  int32_t eff = (c->fh - 1) * c->dil + 1;
  /* The ring a segment plans for one row's window, or the span of a batch's windows. */
  int32_t ring = (int32_t)ap_segment_ring_rows(c->h, oh, c->fh, c->stride, c->dil);
  if (batch > 1 && (batch - 1) * c->stride + eff > ring) ring = (batch - 1) * c->stride + eff;
  if (ring > c->h) ring = c->h;
  int32_t oring = batch + 1 < oh ? batch + 1 : 0;
  size_t keep = 0, temp = 0;
  bool ok = scratch_of(c->kind, path, &x, &p, &ti, &tf, ring, &keep, &temp);
  if (!ok) { /* this level has no such kernel (the generic level's float convolution, direct
              * kits off avx512, packing once over its budget) */
    CHECK((fl && !l->fconv) || path != ROWS);
    free(in), free(f), free(bias), free(want), free(rs);
    return;
  }
  void *kb = zalloc(keep), *tb2 = zalloc(ap_kscratch_round(temp) + AP_FAST_WIN_OWN_BYTES),
       *rin = zalloc(in_row * (size_t)ring);
  void *rout = zalloc(out_row * (size_t)(oring ? oring : oh));
  ap_ktensor ri = ti, ro = to;
  ri.data = rin;
  ro.data = rout;
  bool same = true;
  ap_fast_block_rows blk = {0};
  ap_krows rings = {0, 0, ring, oring};
  /* Two segment runs, the second on another input: nothing a run keeps (window rows kept over
   * calls) may outlive its *_begin. */
  for (int run = 0; run < 2; run++) {
    if (run == 1) {
      for (size_t i = 0; i < nin; i++)
        fl ? (void)(((float *)in)[i] = -((float *)in)[i] * 0.5f)
           : (void)(((int8_t *)in)[i] = (int8_t)(((int8_t *)in)[i] * 5 + 3));
      to.data = want;
      s = dwk ? ap_depthwise_eval(&p, &ti, &tf, &tb, &to, rs)
              : ap_conv_eval(&p, &ti, &tf, &tb, &to, rs);
      CHECK_EQ(s, AP_OK);
    }
    s = begin_of(c->kind, path, &x, &p, &ti, &tf, &tb, ring, kb, tb2);
    CHECK_EQ(s, AP_OK);
    if (path == READY)
      CHECK(c->kind == FDW
                ? ap_fast_fdw_rows_ready(&x, &p, &ri, &tf, &tb, &ro, &rings, &blk)
                : ap_fast_fconv_rows_ready(&x, &p, &ri, &tf, &tb, &ro, kb, &rings, &blk));
    int32_t have = 0;
    for (int32_t y0 = 0; y0 < oh; y0 += batch) {
      int32_t y1 = y0 + batch < oh ? y0 + batch : oh;
      int64_t hi = (int64_t)(y1 - 1) * c->stride - p.pad.pad_h + eff;
      hi = hi > c->h ? c->h : hi;
      for (; have < hi; have++)
        memcpy((uint8_t *)rin + (size_t)(have % ring) * in_row,
               (uint8_t *)in + (size_t)have * in_row, in_row);
      ap_krows r = {y0, y1, ring, oring};
      /* A shared call scratch holds other members' bytes between calls. */
      if ((path < WIN_OWN_ONCE || path == READY) && temp) memset(tb2, 0x5a, temp);
      s = rows_of(c->kind, path, &x, &p, &ri, &tf, &tb, &ro, kb, tb2, &r, &blk);
      CHECK_EQ(s, AP_OK);
      for (int32_t y = y0; y < y1; y++)
        same &= memcmp((uint8_t *)rout + (size_t)(oring ? y % oring : y) * out_row,
                       (uint8_t *)want + (size_t)y * out_row, out_row) == 0;
    }
  }
  CHECK_MSG(same, "%s %s %dx%dx%d -> %d, %dx%d s%d d%d, batch %d, path %d: rows differ",
            c->kind == DW    ? "DEPTHWISE"
            : c->kind == FDW ? "float DEPTHWISE"
            : fl             ? "float CONV"
                             : "CONV",
            l->name, c->h, c->w, c->cin, c->cout, c->fh, c->fw, c->stride, c->dil, batch, path);
  /* A ring that cannot hold one row's window, and a range past the map: refused. */
  if (ring > 1 && eff > 1) {
    ap_krows small = {0, 1, 1, 0};
    s = rows_of(c->kind, path, &x, &p, &ri, &tf, &tb, &ro, kb, tb2, &small, &blk);
    CHECK_EQ(s, AP_ERR_ARG);
  }
  ap_krows past = {0, oh + 1, ring, oring};
  s = rows_of(c->kind, path, &x, &p, &ri, &tf, &tb, &ro, kb, tb2, &past, &blk);
  CHECK_EQ(s, AP_ERR_ARG);
  free(in), free(f), free(bias), free(want), free(rs), free(kb), free(tb2), free(rin), free(rout);
}

/* Hostile arguments: no level, NULL scratch, a batch of 2. */
static void refusals(void) {
  int8_t in[2 * 4 * 2 * 8] = {0}, f[8 * 9] = {0};
  float sc[8] = {0.01f, 0.01f, 0.01f, 0.01f, 0.01f, 0.01f, 0.01f, 0.01f};
  ap_ktensor ti = ktq(AP_INT8, in, 4, 2, 4, 2, 8, 0.05f, 0);
  ap_ktensor tf = kt(AP_INT8, f, 4, 1, 3, 3, 8);
  tf.scale = sc[0];
  tf.channel_scales = sc;
  tf.n_channels = 8;
  tf.quantized_dimension = 3;
  ap_ktensor to = kout(AP_INT8, NULL, 0.1f, 0);
  ap_conv_options o = {AP_KPAD_SAME, 1, 1, 1, 1, AP_KACT_NONE, 1, 0};
  ap_conv_params p;
  CHECK_EQ(ap_depthwise_prepare(&o, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  size_t keep, temp;
  CHECK(!ap_fast_dw_rows_scratch(NULL, &p, &ti, &tf, 3, &keep, &temp));
  ap_kexec x = {.level = &ap_fast_generic, .threads = 1};
  CHECK(!ap_fast_dw_rows_scratch(&x, &p, &ti, &tf, 3, &keep, &temp)); /* batch 2 */
  CHECK_EQ(ap_fast_dw_rows_begin(&x, &p, &ti, &tf, 3, NULL), AP_ERR_UNSUPPORTED);
  ti.dims[0] = 1;
  CHECK_EQ(ap_depthwise_prepare(&o, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  CHECK(ap_fast_dw_rows_scratch(&x, &p, &ti, &tf, 3, &keep, &temp));
  CHECK_EQ(ap_fast_dw_rows_begin(&x, &p, &ti, &tf, 3, NULL), AP_ERR_ARG);
  ap_krows r = {0, 1, 3, 0};
  CHECK_EQ(ap_fast_dw_rows(&x, &p, &ti, &tf, NULL, &to, NULL, NULL, &r), AP_ERR_ARG);
}

int main(void) {
  nlevels = ap_test_levels(levels);
  static const rcase cases[] = {
      {CONV, 9, 5, 3, 8, 3, 3, 1, 1, AP_KPAD_SAME},
      {CONV, 10, 7, 8, 16, 3, 3, 2, 1, AP_KPAD_SAME},
      {CONV, 8, 6, 16, 24, 1, 1, 1, 1, AP_KPAD_VALID},
      {CONV, 9, 6, 5, 9, 3, 3, 1, 2, AP_KPAD_SAME},
      {CONV, 7, 4, 4, 8, 5, 1, 1, 1, AP_KPAD_VALID},
      {DW, 9, 6, 16, 16, 3, 3, 1, 1, AP_KPAD_SAME},
      {DW, 11, 7, 8, 8, 3, 3, 2, 1, AP_KPAD_SAME},
      {DW, 10, 5, 8, 16, 3, 3, 1, 2, AP_KPAD_SAME},
      {DW, 6, 4, 24, 24, 5, 5, 1, 1, AP_KPAD_SAME},
      {FCONV, 9, 5, 3, 8, 3, 3, 1, 1, AP_KPAD_SAME},
      {FCONV, 10, 6, 4, 12, 3, 3, 2, 1, AP_KPAD_SAME},
      {FCONV, 8, 4, 2, 9, 4, 1, 1, 1, AP_KPAD_VALID},
      {FDW, 9, 6, 8, 8, 3, 3, 1, 1, AP_KPAD_SAME},
      {FDW, 10, 5, 4, 8, 3, 3, 2, 1, AP_KPAD_SAME},
      {FDW, 12, 5, 3, 3, 5, 3, 1, 2, AP_KPAD_VALID},
      {CONV, 12, 20, 16, 32, 1, 1, 1, 1, AP_KPAD_VALID},
      {CONV, 12, 9, 32, 16, 3, 3, 1, 1, AP_KPAD_SAME},
      {DW, 12, 9, 64, 64, 3, 3, 2, 1, AP_KPAD_SAME},
      {DW, 10, 12, 1, 8, 3, 3, 2, 1, AP_KPAD_SAME},
      /* Pointwise rows shorter than a kit's tile (mlperf_kws_dscnn_int8's 5 pixels), packed at
       * each call too; input channels off the 4-byte quads, output channels off 16. */
      {CONV, 25, 5, 64, 64, 1, 1, 1, 1, AP_KPAD_VALID},
      {CONV, 13, 3, 21, 40, 1, 1, 1, 1, AP_KPAD_VALID},
  };
  for (int l = 0; l < nlevels; l++)
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      for (int batch = 1; batch <= 3; batch += 2)
        for (int path = ROWS; path <= READY; path++)
          rows_case(&cases[i], levels[l], batch, path);
  refusals();
  return ap_test_done();
}
