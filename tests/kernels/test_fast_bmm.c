/* BATCH_MATMUL's fast path against the reference at every SIMD level with 1-3 threads: int8
 * (zero points from -128 to 127: factors up to 255 in magnitude, sums wrapping past 2^31),
 * int16 (sums beyond int32, exact in int64), float32 (each output's sum order, NaN and inf,
 * signed zeros), adj_x and adj_y, batch broadcasting of either side (the same operand reused
 * over batches), inner dims off 16 and 0-sized dims; and AP_KERNELS_SMALL's bound on its
 * scratch. */
#include "fastcmp.h"

enum { B_BMM = 126 };

static uint64_t rng = 31337;
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
      static const float special[] = {0.0f, -0.0f, 1e30f, -1e30f, 1.0f / 0.0f};
      float v = (float)rnd(-1000, 1000) / 37.0f;
      if (extreme && i % 7 == 3) v = special[i % 5];
      if (extreme && i == 5) v = NAN;
      ((float *)p)[i] = v;
    }
  }
  return p;
}

/* a: [ab..., m or k, k or m], b: [bb..., k or n, n or k]; ranks 2 to 4. */
static void bmm_case(int type, const int32_t *adims, int arank, const int32_t *bdims, int brank,
                     bool adj_x, bool adj_y, bool extreme) {
  size_t na = 1, nb = 1;
  for (int i = 0; i < arank; i++)
    na *= (size_t)adims[i];
  for (int i = 0; i < brank; i++)
    nb *= (size_t)bdims[i];
  void *a = fill(type, na, extreme), *b = fill(type, nb, extreme);
  ap_ktensor ta = ktq(type, a, arank, adims[0], arank > 1 ? adims[1] : 0, arank > 2 ? adims[2] : 0,
                      arank > 3 ? adims[3] : 0, 0.02f, type == AP_INT8 ? rnd(-128, 127) : 0);
  ap_ktensor tb = ktq(type, b, brank, bdims[0], brank > 1 ? bdims[1] : 0, brank > 2 ? bdims[2] : 0,
                      brank > 3 ? bdims[3] : 0, 0.03f, type == AP_INT8 ? rnd(-128, 127) : 0);
  ap_ktensor to = kout(type, NULL, extreme ? 100.0f : 0.05f, type == AP_INT8 ? rnd(-128, 127) : 0);
  if (type == AP_FLOAT32) ta.scale = tb.scale = to.scale = 0.0f;
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_kop_options o = {0};
  o.adj_x = adj_x;
  o.adj_y = adj_y;
  char what[160];
  snprintf(what, sizeof what, "BATCH_MATMUL %s rank %d x %d, a[..%d,%d] b[..%d,%d]%s%s%s",
           ap_ktype_name(type), arank, brank, adims[arank - 2], adims[arank - 1], bdims[brank - 2],
           bdims[brank - 1], adj_x ? " adj_x" : "", adj_y ? " adj_y" : "",
           extreme ? ", extremes" : "");
  fc_compare(what, B_BMM, &o, ins, 2, &to);
  free(a), free(b);
}

static void shapes(int type) {
  for (int adj = 0; adj < 4; adj++) {
    bool ax = adj & 1, ay = adj & 2;
    int32_t m = 5, k = 19, n = 11;
    int32_t a2[2] = {ax ? k : m, ax ? m : k}, b2[2] = {ay ? n : k, ay ? k : n};
    bmm_case(type, a2, 2, b2, 2, ax, ay, false);
    /* Broadcast: a [2, 3, ..] against b [3, ..]; b [2, 1, ..] against a [1, 3, ..]. */
    int32_t a4[4] = {2, 3, a2[0], a2[1]}, b3[3] = {3, b2[0], b2[1]};
    bmm_case(type, a4, 4, b3, 3, ax, ay, false);
    int32_t a3[3] = {1, a2[0], a2[1]}, b4[4] = {2, 1, b2[0], b2[1]};
    bmm_case(type, a3, 3, b4, 4, ax, ay, false);
    /* k of 1 and 16, n of 1 and 17. */
    int32_t a5[2] = {ax ? 1 : 4, ax ? 4 : 1}, b5[2] = {ay ? 17 : 1, ay ? 1 : 17};
    bmm_case(type, a5, 2, b5, 2, ax, ay, false);
    int32_t a6[3] = {3, ax ? 16 : 9, ax ? 9 : 16}, b6[3] = {3, ay ? 1 : 16, ay ? 16 : 1};
    bmm_case(type, a6, 3, b6, 3, ax, ay, false);
  }
  /* Extremes: int8 (-128 - 127)^2 * 70000 wraps past 2^32; int16 2^30 * 4000 passes 2^31. */
  int32_t ae[2] = {2, type == AP_INT8 ? 70000 : 4000}, be[2] = {ae[1], 3};
  bmm_case(type, ae, 2, be, 2, false, false, true);
  int32_t af[2] = {7, 40}, bf[2] = {40, 9};
  bmm_case(type, af, 2, bf, 2, false, false, true);
  /* 0-sized batch and m. */
  int32_t az[3] = {0, 3, 4}, bz[3] = {1, 4, 5};
  bmm_case(type, az, 3, bz, 3, false, false, false);
  int32_t am[2] = {0, 4}, bm[2] = {4, 5};
  bmm_case(type, am, 2, bm, 2, false, false, false);
}

/* AP_KERNELS_SMALL: a product whose operand rows need more scratch than the budget runs the
 * reference kernel (no scratch); within the budget, the fast path's. */
static void small_bound(void) {
  int32_t ad[2] = {64, 256}, bd[2] = {256, 64};
  void *a = fill(AP_INT8, 64 * 256, false), *b = fill(AP_INT8, 256 * 64, false);
  ap_ktensor ta = ktq(AP_INT8, a, 2, ad[0], ad[1], 0, 0, 0.02f, 3);
  ap_ktensor tb = ktq(AP_INT8, b, 2, bd[0], bd[1], 0, 0, 0.02f, -3);
  ap_ktensor to = kout(AP_INT8, NULL, 0.1f, 0);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_kop_options o = {0};
  for (size_t budget = 4096; budget <= 1u << 20; budget *= 16) {
    ap_kexec x = fc_cfgs[0].x;
    x.small_extra = budget;
    size_t n, sc;
    ap_status s;
    uint8_t *got = fc_run(B_BMM, &o, ins, 2, &to, &x, &n, &sc, &s);
    /* (64 + 64) rows of 256 int16. */
    size_t want = budget >= 65536 ? 65536 : 0;
    CHECK_MSG(got && s == AP_OK && sc == want, "BATCH_MATMUL budget %zu: scratch %zu, want %zu",
              budget, sc, want);
    free(got);
  }
  free(a), free(b);
}

int main(void) {
  fc_setup();
  shapes(AP_INT8);
  shapes(AP_INT16);
  shapes(AP_FLOAT32);
  small_bound();
  fc_teardown();
  return ap_test_done();
}
