/* The pools' row ranges on the fast kernels (kernels/fast/rows_block.c) at every SIMD level this
 * CPU has, int8, uint8, int16 and float32, average and max, and TFLite's legacy uint8 CONV_2D
 * and DEPTHWISE_CONV_2D (rows_u8.c, rows_block.c; CONV_2D's weights read in place, packed once
 * or packed at each call): a segment's pull simulated by hand
 * (input rows fed into a ring as the windows reach them, output rows into a ring that wraps),
 * batches of 1 and 3 rows, every output row equal to the reference kernel's whole-map eval
 * byte for byte, windows wrapping around the input ring (the staging copy), padding at both
 * borders, stride 2, a window taller than the map; a ring too small for a window refused. */
#include "arenaplan/graph.h"
#include "kernels/fast/fastops.h"
#include "kernels/fast/rows.h"
#include "ktest.h"
#include "levels.h"

#include <string.h>

static uint64_t rng = 4242;
static int32_t rnd(int32_t lo, int32_t hi) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (int32_t)((rng >> 33) % (uint64_t)(hi - lo + 1));
}

static const ap_fast_level *levels[AP_TEST_MAX_LEVELS];
static int nlevels;

typedef struct pcase {
  int type, kind, h, w, d, fh, fw, stride, padding;
} pcase;

static void *zalloc(size_t n) {
  void *p = aligned_alloc(16, ap_kscratch_round(n ? n : 1));
  memset(p, 0, ap_kscratch_round(n ? n : 1));
  return p;
}

/* ready: the rows laid out once (ap_fast_pool_rows_ready, ap_fast_block_rows_run). */
static void pool_case(const pcase *c, const ap_fast_level *l, int batch, bool ready) {
  size_t es = ap_ktype_size(c->type), nin = (size_t)c->h * c->w * c->d;
  void *in = zalloc(nin * es);
  for (size_t i = 0; i < nin; i++) {
    if (c->type == AP_FLOAT32) ((float *)in)[i] = (float)rnd(-300, 300) / 100.0f;
    if (c->type == AP_INT8) ((int8_t *)in)[i] = (int8_t)rnd(-128, 127);
    if (c->type == AP_UINT8) ((uint8_t *)in)[i] = (uint8_t)rnd(0, 255);
    if (c->type == AP_INT16) ((int16_t *)in)[i] = (int16_t)rnd(-32768, 32767);
  }
  bool q = c->type != AP_FLOAT32;
  ap_ktensor ti = q ? ktq(c->type, in, 4, 1, c->h, c->w, c->d, 0.05f, c->type == AP_INT16 ? 0 : 3)
                    : kt(c->type, in, 4, 1, c->h, c->w, c->d);
  ap_ktensor to = kout(c->type, NULL, q ? 0.05f : 0.0f, q && c->type != AP_INT16 ? 3 : 0);
  ap_pool_options o = {c->padding, c->stride, c->stride, c->fw, c->fh, AP_KACT_NONE};
  ap_pool_params p;
  CHECK_EQ(ap_pool_prepare(c->kind, &o, &ti, &to, &p, NULL), AP_OK);
  int32_t oh = to.dims[1], eff = c->fh;
  size_t out_row = (size_t)to.dims[2] * to.dims[3] * es, in_row = (size_t)c->w * c->d * es;
  void *want = zalloc(out_row * (size_t)oh);
  to.data = want;
  CHECK_EQ(ap_pool_eval(&p, &ti, &to), AP_OK);
  ap_kexec x = {.level = l, .threads = 1};
  int32_t ring = (int32_t)ap_segment_ring_rows(c->h, oh, c->fh, c->stride, 1);
  if (batch > 1 && (batch - 1) * c->stride + eff > ring) ring = (batch - 1) * c->stride + eff;
  if (ring > c->h) ring = c->h;
  int32_t oring = batch + 1 < oh ? batch + 1 : 0;
  size_t temp = 0;
  if (!ap_fast_pool_rows_scratch(&x, &p, &ti, ring, &temp)) { /* no such kernel at this level */
    free(in), free(want);
    return;
  }
  void *tb = zalloc(temp), *rin = zalloc(in_row * (size_t)ring);
  void *rout = zalloc(out_row * (size_t)(oring ? oring : oh));
  ap_ktensor ri = ti, ro = to;
  ri.data = rin;
  ro.data = rout;
  ap_fast_block_rows blk = {0};
  ap_krows rings = {0, 0, ring, oring};
  if (ready) CHECK(ap_fast_pool_rows_ready(&x, &p, &ri, &ro, &rings, &blk));
  int32_t have = 0;
  bool same = true;
  for (int32_t y0 = 0; y0 < oh; y0 += batch) {
    int32_t y1 = y0 + batch < oh ? y0 + batch : oh;
    int64_t hi = (int64_t)(y1 - 1) * c->stride - p.pad.pad_h + eff;
    hi = hi > c->h ? c->h : hi;
    for (; have < hi; have++)
      memcpy((uint8_t *)rin + (size_t)(have % ring) * in_row, (uint8_t *)in + (size_t)have * in_row,
             in_row);
    ap_krows r = {y0, y1, ring, oring};
    memset(tb, 0xa5, ap_kscratch_round(temp)); /* the segment's other members use it between */
    CHECK_EQ(ready ? ap_fast_block_rows_run(&blk, tb, &r)
                   : ap_fast_pool_rows(&x, &p, &ri, &ro, tb, &r),
             AP_OK);
    for (int32_t y = y0; y < y1; y++)
      same &= memcmp((uint8_t *)rout + (size_t)(oring ? y % oring : y) * out_row,
                     (uint8_t *)want + (size_t)y * out_row, out_row) == 0;
  }
  CHECK_MSG(same, "%s pool type %d %s %dx%dx%d, %dx%d s%d, batch %d, ready %d: rows differ",
            c->kind == AP_KPOOL_MAX ? "max" : "average", c->type, l->name, c->h, c->w, c->d, c->fh,
            c->fw, c->stride, batch, (int)ready);
  if (ring > 1 && eff > 1) {
    ap_krows small = {0, 1, 1, 0};
    CHECK_EQ(ap_fast_pool_rows(&x, &p, &ri, &ro, tb, &small), AP_ERR_ARG);
    CHECK_EQ(ap_fast_block_rows_run(&blk, tb, &small), AP_ERR_ARG);
  }
  ap_krows past = {0, oh + 1, ring, oring};
  CHECK_EQ(ap_fast_block_rows_run(&blk, tb, &past), AP_ERR_ARG);
  free(in), free(want), free(tb), free(rin), free(rout);
}

/* Scratch as a segment leaves it: not zeroed. */
static void *junk(size_t n) {
  void *p = zalloc(n);
  memset(p, 0xa5, ap_kscratch_round(n ? n : 1));
  return p;
}

/* uint8 CONV_2D (rows_u8.c) or DEPTHWISE_CONV_2D (rows_block.c), TFLite's legacy kernels. */
typedef struct ucase {
  bool dw;
  int h, w, cin, cout, fh, fw, stride, padding;
} ucase;

/* how: AP_FAST_PACK_* (CONV_2D only). */
static void u8_case(const ucase *c, const ap_fast_level *l, int batch, unsigned how) {
  size_t nin = (size_t)c->h * c->w * c->cin,
         nf = (size_t)c->cout * c->fh * c->fw * (c->dw ? 1 : c->cin);
  uint8_t *in = zalloc(nin), *f = zalloc(nf);
  int32_t *bias = zalloc((size_t)c->cout * 4);
  for (size_t i = 0; i < nin; i++)
    in[i] = (uint8_t)rnd(0, 255);
  for (size_t i = 0; i < nf; i++)
    f[i] = (uint8_t)rnd(0, 255);
  for (int i = 0; i < c->cout; i++)
    bias[i] = rnd(-3000, 3000);
  ap_ktensor ti = ktq(AP_UINT8, in, 4, 1, c->h, c->w, c->cin, 0.05f, 120);
  ap_ktensor tf = c->dw ? ktq(AP_UINT8, f, 4, 1, c->fh, c->fw, c->cout, 0.02f, 130)
                        : ktq(AP_UINT8, f, 4, c->cout, c->fh, c->fw, c->cin, 0.02f, 130);
  ap_ktensor tb = ktq(AP_INT32, bias, 1, c->cout, 0, 0, 0, 0.05f * 0.02f, 0);
  ap_ktensor to = kout(AP_UINT8, NULL, 0.4f, 128);
  ap_conv_options o = {
      c->padding, c->stride, c->stride, 1, 1, AP_KACT_NONE, c->dw ? c->cout / c->cin : 0, 0};
  ap_conv_params p;
  CHECK_EQ(c->dw ? ap_depthwise_prepare(&o, &ti, &tf, &tb, &to, &p, NULL)
                 : ap_conv_prepare(&o, &ti, &tf, &tb, &to, &p, NULL),
           AP_OK);
  int32_t oh = to.dims[1], eff = c->fh;
  size_t out_row = (size_t)to.dims[2] * to.dims[3], in_row = (size_t)c->w * c->cin;
  void *want = zalloc(out_row * (size_t)oh), *rs = zalloc(p.scratch_bytes);
  to.data = want;
  CHECK_EQ(c->dw ? ap_depthwise_eval(&p, &ti, &tf, &tb, &to, rs)
                 : ap_conv_eval(&p, &ti, &tf, &tb, &to, rs),
           AP_OK);
  ap_kexec x = {.level = l, .threads = 1};
  int32_t ring = (int32_t)ap_segment_ring_rows(c->h, oh, c->fh, c->stride, 1);
  if (batch > 1 && (batch - 1) * c->stride + eff > ring) ring = (batch - 1) * c->stride + eff;
  if (ring > c->h) ring = c->h;
  int32_t oring = batch + 1 < oh ? batch + 1 : 0;
  size_t temp = 0, keep = 0;
  bool ok = c->dw ? ap_fast_u8dw_rows_scratch(&x, &p, &ti, &tf, ring, &temp)
                  : ap_fast_u8conv_rows_scratch(&x, &p, &ti, &tf, how, &keep, &temp);
  if (!ok) {
    free(in), free(f), free(bias), free(want), free(rs);
    return;
  }
  /* Packing where the level has a packed product and the map 128 output pixels. */
  bool packs = !c->dw && l->ops && l->ops->u8gemm_packed && l->outer &&
               (int64_t)oh * to.dims[2] >= 128 && (how & (AP_FAST_PACK_ONCE | AP_FAST_PACK_EACH));
  size_t arows = ap_kscratch_round(
      (size_t)l->ops->mr * 2 *
      (size_t)((c->fh * c->fw * c->cin + l->ops->kalign - 1) / l->ops->kalign * l->ops->kalign));
  if (!c->dw) {
    CHECK_MSG(packs == (keep > 0 || temp > arows), "uint8 CONV %s how %u: packing %d, keep %zu",
              l->name, how, (int)packs, keep);
    CHECK(!(how & AP_FAST_PACK_EACH) || keep == 0);
  }
  void *kb = junk(keep);
  if (!c->dw) CHECK_EQ(ap_fast_u8conv_rows_begin(&x, &p, &ti, &tf, how, kb), AP_OK);
  void *tb2 = junk(temp), *rin = zalloc(in_row * (size_t)ring);
  void *rout = zalloc(out_row * (size_t)(oring ? oring : oh));
  ap_ktensor ri = ti, ro = to;
  ri.data = rin;
  ro.data = rout;
  int32_t have = 0;
  bool same = true;
  for (int32_t y0 = 0; y0 < oh; y0 += batch) {
    int32_t y1 = y0 + batch < oh ? y0 + batch : oh;
    int64_t hi = (int64_t)(y1 - 1) * c->stride - p.pad.pad_h + eff;
    hi = hi > c->h ? c->h : hi;
    for (; have < hi; have++)
      memcpy((uint8_t *)rin + (size_t)(have % ring) * in_row, in + (size_t)have * in_row, in_row);
    memset(tb2, 0xa5, ap_kscratch_round(temp)); /* the segment's other members use it between */
    ap_krows r = {y0, y1, ring, oring};
    CHECK_EQ(c->dw ? ap_fast_u8dw_rows(&x, &p, &ri, &tf, &tb, &ro, tb2, &r)
                   : ap_fast_u8conv_rows(&x, &p, &ri, &tf, &tb, &ro, how, kb, tb2, &r),
             AP_OK);
    for (int32_t y = y0; y < y1; y++)
      same &= memcmp((uint8_t *)rout + (size_t)(oring ? y % oring : y) * out_row,
                     (uint8_t *)want + (size_t)y * out_row, out_row) == 0;
  }
  CHECK_MSG(same, "uint8 %s %s %dx%dx%d -> %d, %dx%d s%d, batch %d, how %u: rows differ",
            c->dw ? "DEPTHWISE" : "CONV", l->name, c->h, c->w, c->cin, c->cout, c->fh, c->fw,
            c->stride, batch, how);
  free(in), free(f), free(bias), free(want), free(rs), free(tb2), free(rin), free(rout), free(kb);
}

int main(void) {
  nlevels = ap_test_levels(levels);
  static const pcase cases[] = {
      {AP_INT8, AP_KPOOL_AVERAGE, 9, 6, 8, 3, 3, 1, AP_KPAD_SAME},
      {AP_INT8, AP_KPOOL_MAX, 10, 7, 16, 2, 2, 2, AP_KPAD_VALID},
      {AP_INT8, AP_KPOOL_AVERAGE, 11, 5, 4, 3, 3, 2, AP_KPAD_SAME},
      {AP_UINT8, AP_KPOOL_AVERAGE, 9, 6, 8, 3, 3, 1, AP_KPAD_SAME},
      {AP_UINT8, AP_KPOOL_MAX, 8, 4, 3, 3, 2, 1, AP_KPAD_SAME},
      {AP_INT16, AP_KPOOL_MAX, 9, 5, 8, 3, 3, 2, AP_KPAD_SAME},
      {AP_FLOAT32, AP_KPOOL_AVERAGE, 9, 6, 8, 3, 3, 1, AP_KPAD_SAME},
      {AP_FLOAT32, AP_KPOOL_MAX, 12, 5, 3, 3, 1, 3, AP_KPAD_VALID},
      {AP_INT8, AP_KPOOL_AVERAGE, 3, 4, 8, 5, 3, 1, AP_KPAD_SAME}, /* taller than the map */
  };
  for (int l = 0; l < nlevels; l++)
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      for (int batch = 1; batch <= 3; batch += 2)
        for (int ready = 0; ready < 2; ready++)
          pool_case(&cases[i], levels[l], batch, ready);
  static const ucase ucases[] = {
      {false, 9, 6, 3, 8, 3, 3, 1, AP_KPAD_SAME},
      {false, 10, 7, 8, 16, 3, 3, 2, AP_KPAD_SAME},
      {false, 8, 6, 16, 24, 1, 1, 1, AP_KPAD_VALID},
      {true, 9, 6, 16, 16, 3, 3, 1, AP_KPAD_SAME},
      {true, 11, 7, 8, 8, 3, 3, 2, AP_KPAD_SAME},
      {true, 10, 5, 8, 16, 3, 3, 1, AP_KPAD_SAME},
      /* 128 output pixels or more (packed weights); rows of 6 and 10 pixels, so blocks of
       * 4 pixels cross rows and the output ring's wrap; 20 and 24 channels (a block of 16
       * and a tail), odd depths */
      {false, 16, 10, 3, 20, 3, 3, 1, AP_KPAD_SAME},
      {false, 33, 12, 5, 8, 3, 3, 2, AP_KPAD_VALID},
      {false, 22, 6, 5, 24, 1, 1, 1, AP_KPAD_VALID},
      {false, 30, 21, 8, 16, 3, 3, 2, AP_KPAD_SAME},
  };
  static const unsigned hows[] = {0, AP_FAST_PACK_ONCE, AP_FAST_PACK_EACH,
                                  AP_FAST_PACK_ONCE | AP_FAST_PACK_BUDGET};
  for (int l = 0; l < nlevels; l++)
    for (size_t i = 0; i < sizeof ucases / sizeof ucases[0]; i++)
      for (int batch = 1; batch <= 3; batch += 2)
        for (size_t h = 0; h < (ucases[i].dw ? 1 : sizeof hows / sizeof *hows); h++)
          u8_case(&ucases[i], levels[l], batch, hows[h]);
  /* Hostile arguments: no level, a NULL ring. */
  {
    int8_t buf[64] = {0};
    ap_ktensor ti = ktq(AP_INT8, buf, 4, 1, 4, 4, 4, 0.05f, 0);
    ap_ktensor to = kout(AP_INT8, NULL, 0.05f, 0);
    ap_pool_options o = {AP_KPAD_SAME, 1, 1, 3, 3, AP_KACT_NONE};
    ap_pool_params p;
    CHECK_EQ(ap_pool_prepare(AP_KPOOL_MAX, &o, &ti, &to, &p, NULL), AP_OK);
    size_t temp;
    CHECK(!ap_fast_pool_rows_scratch(NULL, &p, &ti, 3, &temp));
    ap_kexec x = {.level = &ap_fast_generic, .threads = 1};
    ap_krows r = {0, 1, 3, 0};
    CHECK_EQ(ap_fast_pool_rows(&x, &p, &ti, &to, NULL, &r), AP_ERR_ARG);
    ap_fast_block_rows b;
    ap_krows rings = {0, 0, 3, 0}, past = {0, 0, 5, 0};
    CHECK(!ap_fast_pool_rows_ready(NULL, &p, &ti, &to, &rings, &b));
    CHECK(!ap_fast_pool_rows_ready(&x, &p, &ti, &to, &rings, &b)); /* no output data */
    CHECK(!ap_fast_pool_rows_ready(&x, &p, &ti, &to, &rings, NULL));
    CHECK(!ap_fast_pool_rows_ready(&x, &p, &ti, &to, NULL, &b));
    to.data = buf + 32;
    CHECK(!ap_fast_pool_rows_ready(&x, &p, &ti, &to, &past, &b)); /* a ring past the map */
    CHECK(ap_fast_pool_rows_ready(&x, &p, &ti, &to, &rings, &b));
    CHECK_EQ(ap_fast_block_rows_run(&b, NULL, &r), AP_ERR_ARG); /* no staging for its ring */
    CHECK_EQ(ap_fast_block_rows_run(NULL, buf, &r), AP_ERR_ARG);
    ap_krows other = {0, 1, 4, 0}, other_out = {0, 1, 3, 2};
    CHECK_EQ(ap_fast_block_rows_run(&b, buf, &other), AP_ERR_ARG); /* not the rings laid out */
    CHECK_EQ(ap_fast_block_rows_run(&b, buf, &other_out), AP_ERR_ARG);
  }
  return ap_test_done();
}
