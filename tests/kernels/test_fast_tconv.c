/* TRANSPOSE_CONV's fast path against the reference at every SIMD level with 1-3 threads:
 * int8 (zero points at both ends, int32 sums that wrap), 16x8 (int64, int16 and no bias; sums
 * beyond int32), float32 (the reference's summation order: values whose sums depend on it,
 * NaN and inf, -0.0f kept without a bias, fused activations), SAME and VALID, strides 1 to 3,
 * filters larger than the stride (overlapping windows), channel counts off 8 and 16. */
#include "fastcmp.h"

enum { B_TCONV = 67 };

static uint64_t rng = 2718;
static int32_t rnd(int32_t lo, int32_t hi) {
  return lo + (int32_t)(ap_test_rand(&rng) % (uint64_t)(hi - lo + 1));
}

static void *fill(int type, size_t n, bool extreme) {
  size_t es = type == AP_INT8 ? 1 : type == AP_INT16 ? 2 : 4;
  uint8_t *p = malloc(n ? n * es : 4);
  for (size_t i = 0; i < n; i++) {
    if (type == AP_INT8) {
      p[i] = (uint8_t)(extreme ? 0x80 : rnd(0, 255));
    } else if (type == AP_INT16) {
      ((int16_t *)p)[i] = (int16_t)(extreme ? -32768 : rnd(-32768, 32767));
    } else {
      /* Magnitudes far apart: the sum's bits depend on its order. */
      float v = (float)rnd(-1000, 1000) * (i % 3 == 0 ? 1e7f : 1e-3f);
      if (extreme && i % 11 == 4) v = 1.0f / 0.0f;
      if (extreme && i == 7) v = NAN;
      if (extreme && i % 13 == 5) v = -0.0f;
      ((float *)p)[i] = v;
    }
  }
  return p;
}

/* type: input/output type (the filter is int8 unless float); bias_type 0: none. */
static void tc_case(int type, int b, int ih, int iw, int ic, int oc, int fh, int fw, int stride,
                    int padding, int act, int bias_type, bool extreme) {
  int32_t oh = padding == AP_KPAD_SAME ? ih * stride : (ih - 1) * stride + fh;
  int32_t ow = padding == AP_KPAD_SAME ? iw * stride : (iw - 1) * stride + fw;
  int32_t shape[4] = {b, oh, ow, oc};
  int ft = type == AP_FLOAT32 ? AP_FLOAT32 : AP_INT8;
  void *in = fill(type, (size_t)b * ih * iw * ic, extreme);
  void *f = fill(ft, (size_t)oc * fh * fw * ic, extreme);
  void *bias = fill(bias_type ? bias_type : AP_INT8, (size_t)oc * 2, false);
  if (bias_type == AP_INT32)
    for (int i = 0; i < oc; i++)
      ((int32_t *)bias)[i] = rnd(-100000, 100000);
  float *scales = malloc((size_t)oc * sizeof *scales);
  for (int i = 0; i < oc; i++)
    scales[i] = 0.002f + 0.0001f * (float)rnd(0, 100);
  ap_ktensor ts = kt(AP_INT32, shape, 1, 4, 0, 0, 0);
  ap_ktensor tf = kt(ft, f, 4, oc, fh, fw, ic);
  if (ft == AP_INT8) {
    tf.scale = scales[0];
    tf.channel_scales = scales;
    tf.n_channels = oc;
  }
  int zp = type == AP_INT8 ? rnd(-128, 127) : 0;
  ap_ktensor ti = ktq(type, in, 4, b, ih, iw, ic, type == AP_FLOAT32 ? 0.0f : 0.05f, zp);
  ap_ktensor tb = kt(bias_type ? bias_type : AP_INT32, bias, 1, oc, 0, 0, 0);
  ap_ktensor to = kout(type, NULL,
                       type == AP_FLOAT32 ? 0.0f
                       : extreme          ? 300.0f
                                          : 0.1f,
                       type == AP_INT8 ? rnd(-128, 127) : 0);
  to.rank = 4;
  memcpy(to.dims, shape, sizeof shape);
  const ap_ktensor *ins[4] = {&ts, &tf, &ti, &tb};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){padding, stride, stride, 1, 1, act, 0, 0};
  char what[200];
  snprintf(what, sizeof what,
           "TRANSPOSE_CONV %s b%d %dx%dx%d -> %d, filter %dx%d, stride %d, %s, "
           "bias %d, act %d%s",
           ap_ktype_name(type), b, ih, iw, ic, oc, fh, fw, stride,
           padding == AP_KPAD_SAME ? "SAME" : "VALID", bias_type, act, extreme ? ", extremes" : "");
  fc_compare(what, B_TCONV, &o, ins, bias_type ? 4 : 3, &to);
  free(in), free(f), free(bias), free(scales);
}

/* Each level with a packed-weight kit again without it, as the kernel choice's "in place"
 * candidate runs it (ap_fast_level_flat): float32 then transposes eight output channels of the
 * filter at a time (scratch for a chunk, not the whole filter), on one thread. */
static ap_fast_level flats[AP_TEST_MAX_LEVELS];

static void add_flat_levels(void) {
  int n = fc_ncfg, k = 0;
  for (int i = 0; i < n; i += 3) {
    const ap_fast_level *l = fc_cfgs[i].x.level;
    if (!l->outer || k == AP_TEST_MAX_LEVELS) continue;
    flats[k] = *l;
    flats[k].outer = NULL;
    fc_cfgs[fc_ncfg++] =
        (fc_cfg){{.level = &flats[k], .threads = 1, .parallel_min = 1}, "in place"};
    k++;
  }
}

int main(void) {
  fc_setup();
  add_flat_levels();
  static const int cases[][9] = {
      /* b, ih, iw, ic, oc, fh, fw, stride, padding */
      {1, 3, 3, 1, 1, 3, 3, 1, AP_KPAD_VALID},
      {1, 4, 5, 3, 5, 3, 3, 2, AP_KPAD_SAME},
      {2, 3, 4, 17, 9, 2, 2, 2, AP_KPAD_VALID},
      {1, 5, 5, 8, 16, 5, 5, 3, AP_KPAD_SAME},
      {1, 6, 4, 16, 19, 4, 3, 2, AP_KPAD_SAME},
      {1, 2, 2, 33, 8, 3, 3, 1, AP_KPAD_SAME},
      /* in place: chunks of 8 channels with a tail of 1 and of 7, a lone chunk of 5 */
      {1, 3, 5, 6, 17, 3, 3, 2, AP_KPAD_SAME},
      {2, 4, 3, 9, 23, 2, 3, 1, AP_KPAD_VALID},
      {1, 5, 2, 4, 5, 4, 4, 3, AP_KPAD_SAME},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const int *c = cases[i];
    for (int e = 0; e < 2; e++) {
      tc_case(AP_INT8, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8],
              i % 2 ? AP_KACT_RELU : AP_KACT_NONE, i % 3 ? AP_INT32 : 0, e);
      tc_case(AP_INT16, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], AP_KACT_NONE,
              i % 3 == 0   ? 0
              : i % 3 == 1 ? AP_INT64
                           : AP_INT16,
              e);
      tc_case(AP_FLOAT32, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8],
              i % 2 ? AP_KACT_RELU6 : AP_KACT_NONE, i % 3 ? AP_FLOAT32 : 0, e);
    }
  }
  /* int8 sums wrapping: 255 * 128 * 3x3 taps * 2000 channels. */
  tc_case(AP_INT8, 1, 2, 2, 2000, 3, 3, 3, 1, AP_KPAD_SAME, AP_KACT_NONE, AP_INT32, true);
  tc_case(AP_INT16, 1, 2, 2, 2000, 3, 3, 3, 1, AP_KPAD_SAME, AP_KACT_NONE, AP_INT64, true);
  fc_teardown();
  return ap_test_done();
}
