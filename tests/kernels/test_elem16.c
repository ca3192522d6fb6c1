/* The int16 element-wise and activation paths, QUANTIZE from int32, CAST with UINT32, and
 * HARD_SWISH, ELU, LOG_SOFTMAX: worked by hand from TFLite Micro's reference formulas, with
 * scales chosen so that multipliers are powers of two (QuantizeMultiplier(2^k) = (2^30, k + 1);
 * SRDHM(x, 2^30) = x / 2 rounded, ties away from zero above 0 and toward zero below). */
#include "kernels/kops_elem16.h"
#include "kxtest.h"

#include <float.h>

/* Runs a builtin like kx_do, with the scratch prepare asks for (int16 SOFTMAX, LOGISTIC,
 * TANH build their tables there). */
static ap_status run_scratch(kx_run *r, int32_t builtin, size_t *scratch_bytes) {
  const ap_kernel *k = ap_kernel_find(builtin);
  if (!k) return AP_ERR_UNSUPPORTED;
  static _Alignas(16) unsigned char scratch[4096];
  size_t n = 0;
  r->err.msg[0] = 0;
  ap_status s = k->prepare(&r->c, &n);
  if (scratch_bytes) *scratch_bytes = n;
  if (s != AP_OK) return s;
  if (n > sizeof scratch) return AP_ERR_INVALID_PLAN;
  r->c.scratch = n ? scratch : NULL;
  s = k->eval(&r->c);
  r->c.scratch = NULL;
  return s;
}

typedef struct bin16 {
  int16_t a[8], b[8], out[8];
  ap_ktensor ta, tb, to;
  const ap_ktensor *ins[2];
  ap_ktensor *outs[1];
  kx_run r;
} bin16;

static void bin16_setup(bin16 *q, int type, int na, int nb, float sa, float sb, float so,
                        int32_t zo) {
  q->ta = ktq(type, q->a, 1, na, 0, 0, 0, sa, 0);
  q->tb = ktq(type, q->b, nb ? 1 : 0, nb, 0, 0, 0, sb, 0);
  q->to = kout(type, q->out, so, zo);
  q->ins[0] = &q->ta, q->ins[1] = &q->tb;
  q->outs[0] = &q->to;
  kx_setup(&q->r, q->ins, 2, q->outs, 1);
}

static void test_add_sub_int16(void) {
  /* Equal scales s: each input rescales by s / 2s = 1/2 (2^30, 0) after the shift by 15, to
   * x << 14 exactly; the output multiplier 2s / (2^15 s) = 2^-14 (2^30, -13) brings the sum
   * back: x + y, saturated to int16. */
  bin16 q;
  bin16_setup(&q, AP_INT16, 4, 4, 0.5f, 0.5f, 0.5f, 0);
  int16_t a[4] = {1, 30000, -30000, -32768}, b[4] = {2, 10000, -10000, 32767};
  memcpy(q.a, a, sizeof a);
  memcpy(q.b, b, sizeof b);
  CHECK_EQ(kx_do(&q.r, 0 /* ADD */), AP_OK);
  int16_t w1[4] = {3, 32767, -32768, -1};
  CHECK_ARRAY(q.out, w1, 4);
  CHECK_EQ(kx_do(&q.r, 41 /* SUB */), AP_OK);
  int16_t w2[4] = {-1, 20000, -20000, -32768};
  CHECK_ARRAY(q.out, w2, 4);
  /* Output scale 2s: the sum halves, ties away from zero (RoundingDivideByPOT): 3 -> 2,
   * -3 -> -2; 1 -> 1 (0.5), -1 -> -1. */
  bin16_setup(&q, AP_INT16, 4, 4, 0.5f, 0.5f, 1.0f, 0);
  int16_t a3[4] = {1, -1, 1, -1}, b3[4] = {2, -2, 0, 0};
  memcpy(q.a, a3, sizeof a3);
  memcpy(q.b, b3, sizeof b3);
  CHECK_EQ(kx_do(&q.r, 0), AP_OK);
  int16_t w3[4] = {2, -2, 1, -1};
  CHECK_ARRAY(q.out, w3, 4);
  /* A fused RELU clamps at the output zero point; a one-element b broadcasts. */
  bin16_setup(&q, AP_INT16, 4, 1, 0.5f, 0.5f, 0.5f, 0);
  int16_t a4[4] = {-5, 5, 0, 100};
  memcpy(q.a, a4, sizeof a4);
  q.b[0] = -1;
  q.r.opt.activation = AP_KACT_RELU;
  CHECK_EQ(kx_do(&q.r, 0), AP_OK);
  CHECK(q.to.rank == 1 && q.to.dims[0] == 4);
  int16_t w4[4] = {0, 4, 0, 99};
  CHECK_ARRAY(q.out, w4, 4);
  /* Mixed types refuse in one line. */
  bin16_setup(&q, AP_INT16, 1, 1, 0.5f, 0.5f, 0.5f, 0);
  q.tb.type = AP_INT8;
  CHECK_EQ(kx_do(&q.r, 0), AP_ERR_UNSUPPORTED);
  CHECK_STR(q.r.err.msg, "ADD: unsupported types INT16, INT8 -> INT16");
  bin16_setup(&q, AP_INT8, 1, 1, 0.5f, 0.5f, 0.5f, 0);
  q.to.type = AP_FLOAT32;
  CHECK_EQ(kx_do(&q.r, 0), AP_ERR_UNSUPPORTED);
  CHECK_STR(q.r.err.msg, "ADD: INT8 inputs with a FLOAT32 output (TFLite Micro reads them as "
                         "floats, past their end: undefined)");
}

static void test_add_empty(void) {
  /* test_min_runtime: [0] + [1] -> [0]; the empty tensors have no bytes at all. */
  float b = 1.0f;
  ap_ktensor ta = kt(AP_FLOAT32, NULL, 1, 0, 0, 0, 0), tb = kt(AP_FLOAT32, &b, 1, 1, 0, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, NULL, 0, 0);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, 0), AP_OK);
  CHECK(to.rank == 1 && to.dims[0] == 0);
}

static void test_mul_int16(void) {
  /* Scales 2^-7, 2^-7 -> 2^-15: the multiplier is 2 (2^30, 2): out = 2 x y, saturated. */
  bin16 q;
  bin16_setup(&q, AP_INT16, 4, 4, 1.0f / 128, 1.0f / 128, 1.0f / 32768, 0);
  int16_t a[4] = {100, 200, -200, 0}, b[4] = {100, 100, 100, 5};
  memcpy(q.a, a, sizeof a);
  memcpy(q.b, b, sizeof b);
  CHECK_EQ(kx_do(&q.r, 18 /* MUL */), AP_OK);
  int16_t w1[4] = {20000, 32767, -32768, 0};
  CHECK_ARRAY(q.out, w1, 4);
  /* Output 2^-13: the multiplier 1/2 (2^30, 0); SRDHM's ties: 3 / 2 -> 2, -3 / 2 -> -1,
   * -5 / 2 -> -2, 1 / 2 -> 1. */
  bin16_setup(&q, AP_INT16, 4, 4, 1.0f / 128, 1.0f / 128, 1.0f / 8192, 0);
  int16_t a2[4] = {1, -1, -5, 1}, b2[4] = {3, 3, 1, 1};
  memcpy(q.a, a2, sizeof a2);
  memcpy(q.b, b2, sizeof b2);
  CHECK_EQ(kx_do(&q.r, 18), AP_OK);
  int16_t w2[4] = {2, -1, -2, 1};
  CHECK_ARRAY(q.out, w2, 4);
  /* TFLite Micro's int16 MUL needs zero points 0. */
  bin16_setup(&q, AP_INT16, 1, 1, 1.0f, 1.0f, 1.0f, 3);
  CHECK_EQ(kx_do(&q.r, 18), AP_ERR_UNSUPPORTED);
  CHECK_STR(q.r.err.msg, "MUL: int16 tensors need zero points 0 (TFLite Micro's), got 0, 0 -> 3");
}

static void test_squared_difference_int16(void) {
  /* Scales 1, 1 -> 1: each input halves (left shift 0, so odd values round: 3 -> 2), the
   * difference squared is scaled by 2^2 / 1 = 4: (x - y)^2 for even inputs. */
  bin16 q;
  bin16_setup(&q, AP_INT16, 4, 4, 1.0f, 1.0f, 1.0f, 0);
  int16_t a[4] = {10, 3, 400, -7}, b[4] = {4, 0, -400, -7};
  memcpy(q.a, a, sizeof a);
  memcpy(q.b, b, sizeof b);
  CHECK_EQ(kx_do(&q.r, AP_KB_SQUARED_DIFFERENCE), AP_OK);
  int16_t w[4] = {36, 16, 32767, 0}; /* 3 -> 2: 16, not 9 (TFLite Micro's precision) */
  CHECK_ARRAY(q.out, w, 4);
  bin16_setup(&q, AP_INT16, 1, 1, 1.0f, 1.0f, 1.0f, 1);
  CHECK_EQ(kx_do(&q.r, AP_KB_SQUARED_DIFFERENCE), AP_ERR_UNSUPPORTED);
  CHECK_STR(q.r.err.msg, "SQUARED_DIFFERENCE: int16 zero points must be 0, got 0, 0 -> 1");
}

typedef struct un16 {
  int16_t in[8], out[8];
  ap_ktensor ti, to;
  const ap_ktensor *ins[1];
  ap_ktensor *outs[1];
  kx_run r;
} un16;

static void un16_setup(un16 *u, int type, int n, float si, int32_t zi, float so, int32_t zo) {
  u->ti = ktq(type, u->in, 1, n, 0, 0, 0, si, zi);
  u->to = kout(type, u->out, so, zo);
  u->ins[0] = &u->ti;
  u->outs[0] = &u->to;
  kx_setup(&u->r, u->ins, 1, u->outs, 1);
}

static void test_leaky_relu_int16(void) {
  /* Scales 1 -> 1, alpha 1/2: values >= 0 pass (multiplier (2^30, 1)); below, v / 2 by SRDHM:
   * -3 -> -1, -5 -> -2, -1 -> 0 (ties toward zero below 0). */
  un16 u;
  un16_setup(&u, AP_INT16, 5, 1.0f, 0, 1.0f, 0);
  int16_t in[5] = {7, -3, -5, -1, -32768};
  memcpy(u.in, in, sizeof in);
  u.r.opt.alpha = 0.5f;
  CHECK_EQ(kx_do(&u.r, AP_KB_LEAKY_RELU), AP_OK);
  int16_t w1[5] = {7, -1, -2, 0, -16384};
  CHECK_ARRAY(u.out, w1, 5);
  /* Alpha -1/2: leaky_relu.h scales by |alpha| and negates: -3 -> -(-1) = 1, where the
   * negative multiplier itself would round -3 * -0.5 = 1.5 to 2. */
  u.r.opt.alpha = -0.5f;
  CHECK_EQ(kx_do(&u.r, AP_KB_LEAKY_RELU), AP_OK);
  int16_t w2[5] = {7, 1, 2, 0, 16384};
  CHECK_ARRAY(u.out, w2, 5);
  /* Output scale 1/16: x16 saturates both ways. */
  un16_setup(&u, AP_INT16, 2, 1.0f, 0, 1.0f / 16, 0);
  u.in[0] = 32767, u.in[1] = -32768;
  u.r.opt.alpha = 0.5f;
  CHECK_EQ(kx_do(&u.r, AP_KB_LEAKY_RELU), AP_OK);
  CHECK(u.out[0] == 32767 && u.out[1] == -32768);
}

static void test_abs(void) {
  /* int8, equal scales: |x - 10| + out zero point -5, clamped to int8. */
  int8_t in[3] = {-118, 127, 10}, out[3];
  ap_ktensor ti = ktq(AP_INT8, in, 1, 3, 0, 0, 0, 0.5f, 10), to = kout(AP_INT8, out, 0.5f, -5);
  const ap_ktensor *ins[1] = {&ti};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_ABS), AP_OK);
  int8_t w1[3] = {123, 112, -5};
  CHECK_ARRAY(out, w1, 3);
  to.zero_point = 100; /* 128 + 100 saturates */
  CHECK_EQ(kx_do(&r, AP_KB_ABS), AP_OK);
  int8_t w2[3] = {127, 127, 100};
  CHECK_ARRAY(out, w2, 3);
  /* Output scale twice the input's: |x - 10| / 2 rounded: 128 / 2 = 64; 117 / 2 = 58.5 -> 59. */
  to.zero_point = 0, to.scale = 1.0f;
  CHECK_EQ(kx_do(&r, AP_KB_ABS), AP_OK);
  int8_t w3[3] = {64, 59, 0};
  CHECK_ARRAY(out, w3, 3);
  /* int16 without quantization: std::abs, -32768 wraps to itself. */
  un16 u;
  un16_setup(&u, AP_INT16, 3, 0, 0, 0, 0);
  u.in[0] = -5, u.in[1] = -32768, u.in[2] = 32767;
  CHECK_EQ(kx_do(&u.r, AP_KB_ABS), AP_OK);
  CHECK(u.out[0] == 5 && u.out[1] == -32768 && u.out[2] == 32767);
  /* Quantized int16 saturates instead, and needs zero points 0. */
  un16_setup(&u, AP_INT16, 1, 1.0f, 0, 1.0f, 0);
  u.in[0] = -32768;
  CHECK_EQ(kx_do(&u.r, AP_KB_ABS), AP_OK);
  CHECK_EQ(u.out[0], 32767);
  un16_setup(&u, AP_INT16, 1, 1.0f, 2, 1.0f, 0);
  CHECK_EQ(kx_do(&u.r, AP_KB_ABS), AP_ERR_UNSUPPORTED);
  CHECK_STR(u.r.err.msg, "ABS: int16 zero points must be 0, got 2 -> 0");
  un16_setup(&u, AP_UINT8, 1, 1.0f, 0, 1.0f, 0);
  CHECK_EQ(kx_do(&u.r, AP_KB_ABS), AP_ERR_UNSUPPORTED);
  CHECK_STR(u.r.err.msg, "ABS: unsupported type UINT8");
}

static void test_prelu_int16(void) {
  /* Input scale 1, alpha (int8) scale 1/64 (32 is 0.5), output scale 1: x >= 0 passes; below,
   * x * alpha / 64, alpha broadcast along the last dim. */
  int16_t in[4] = {-4, -4, 6, -32768}, out[4];
  int8_t alpha[2] = {32, -64};
  ap_ktensor ti = ktq(AP_INT16, in, 2, 2, 2, 0, 0, 1.0f, 0);
  ap_ktensor ta = ktq(AP_INT8, alpha, 1, 2, 0, 0, 0, 1.0f / 64, 0);
  ap_ktensor to = kout(AP_INT16, out, 1.0f, 0);
  const ap_ktensor *ins[2] = {&ti, &ta};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_PRELU), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 2);
  int16_t w[4] = {-2, 4, 6, 32767}; /* -32768 * -1 saturates */
  CHECK_ARRAY(out, w, 4);
  ta.type = AP_INT16;
  CHECK_EQ(kx_do(&r, AP_KB_PRELU), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "PRELU: unsupported types INT16, INT16 -> INT16");
}

static void test_relu_int16(void) {
  /* RELU: scales 1 -> 2 halve, ties away from zero: 3 -> 2; below 0 clamps to 0. */
  un16 u;
  un16_setup(&u, AP_INT16, 4, 1.0f, 0, 2.0f, 0);
  int16_t in[4] = {3, -3, 32767, 1};
  memcpy(u.in, in, sizeof in);
  CHECK_EQ(kx_do(&u.r, 19 /* RELU */), AP_OK);
  int16_t w1[4] = {2, 0, 16384, 1};
  CHECK_ARRAY(u.out, w1, 4);
  un16_setup(&u, AP_INT16, 1, 1.0f, 1, 1.0f, 0);
  CHECK_EQ(kx_do(&u.r, 19), AP_ERR_UNSUPPORTED);
  CHECK_STR(u.r.err.msg, "RELU: int16 zero points must be 0, got 1 -> 0");
  /* RELU6 at input scale 1/2: [0, 12] in the input's units. */
  un16_setup(&u, AP_INT16, 4, 0.5f, 0, 0.5f, 0);
  int16_t in6[4] = {13, -1, 12, 5};
  memcpy(u.in, in6, sizeof in6);
  CHECK_EQ(kx_do(&u.r, 21 /* RELU6 */), AP_OK);
  int16_t w6[4] = {12, 0, 12, 5};
  CHECK_ARRAY(u.out, w6, 4);
  /* At scale 1e-5, 6.0 is 600000: FloatToQuantizedType clamps it to 32767. */
  un16_setup(&u, AP_INT16, 2, 1e-5f, 0, 1e-5f, 0);
  u.in[0] = 32767, u.in[1] = -32768;
  CHECK_EQ(kx_do(&u.r, 21), AP_OK);
  CHECK(u.out[0] == 32767 && u.out[1] == 0);
}

static void test_logistic_tanh_int16(void) {
  /* Input scale 2^-12 is a power of two: the input is multiplied by exactly 3 (the table's 24
   * steps per unit at 2^9 and 2^8 per step). At 0: sigmoid's table starts at 32768 (0.5 in
   * Q0.16): (32768 << 9 + 2^9) >> 10 = 16384, 0.5 in Q0.15; tanh: (32768 << 8 - 2^23 + 2^7)
   * >> 8 = 0. */
  un16 u;
  un16_setup(&u, AP_INT16, 4, 1.0f / 4096, 0, 1.0f / 32768, 0);
  int16_t in[4] = {0, 4096, -4096, 32767};
  memcpy(u.in, in, sizeof in);
  size_t scratch;
  CHECK_EQ(run_scratch(&u.r, 14 /* LOGISTIC */, &scratch), AP_OK);
  CHECK(scratch >= 512);
  CHECK_EQ(u.out[0], 16384);
  /* sigmoid(1) = 0.731059 (23955 in Q0.15) and sigmoid(-1) its complement, within a step. */
  CHECK(abs(u.out[1] - 23955) <= 1 && abs(u.out[1] + u.out[2] - 32768) <= 1);
  CHECK(u.out[3] >= 32755); /* sigmoid(8) */
  CHECK_EQ(run_scratch(&u.r, 28 /* TANH */, NULL), AP_OK);
  CHECK_EQ(u.out[0], 0);
  /* tanh(1) = 0.761594 (24956 in Q0.15), odd within a step. */
  CHECK(abs(u.out[1] - 24956) <= 2 && abs(u.out[1] + u.out[2]) <= 1);
  /* Input scale 2^-8 is not 2^-12: the general multiplier 48 doubled to 24576 with shift 9;
   * 32767 (128.0) is past the table: sigmoid 32767, and 1 for the most negative input;
   * tanh saturates at 32767 and -32767. */
  un16_setup(&u, AP_INT16, 2, 1.0f / 256, 0, 1.0f / 32768, 0);
  u.in[0] = 32767, u.in[1] = -32768;
  CHECK_EQ(run_scratch(&u.r, 14, NULL), AP_OK);
  CHECK(u.out[0] == 32767 && u.out[1] == 1);
  CHECK_EQ(run_scratch(&u.r, 28, NULL), AP_OK);
  CHECK(u.out[0] == 32767 && u.out[1] == -32767);
  /* The output must be Q0.15. */
  un16_setup(&u, AP_INT16, 1, 1.0f / 256, 0, 1.0f / 256, 0);
  CHECK_EQ(run_scratch(&u.r, 14, NULL), AP_ERR_UNSUPPORTED);
  CHECK_STR(u.r.err.msg, "LOGISTIC: int16 needs zero points 0 and output scale 2^-15, got "
                         "0.00390625, 0 -> 0.00390625, 0");
  /* Without its scratch, eval refuses instead of writing a table nowhere. */
  un16_setup(&u, AP_INT16, 1, 1.0f / 256, 0, 1.0f / 32768, 0);
  CHECK_EQ(kx_do(&u.r, 28), AP_ERR_INVALID_PLAN);
}

static void test_softmax_int16(void) {
  /* Two equal values: each 1/2 (16384 in Q0.15) within the tables' interpolation; one value
   * 10 units above the others takes nearly all; rows are independent. */
  un16 u;
  un16_setup(&u, AP_INT16, 4, 1.0f / 1024, 0, 1.0f / 32768, 0);
  u.ti = ktq(AP_INT16, u.in, 2, 2, 2, 0, 0, 1.0f / 1024, 0);
  int16_t in[4] = {100, 100, 10240, 0};
  memcpy(u.in, in, sizeof in);
  u.r.opt.beta = 1.0f;
  size_t scratch;
  CHECK_EQ(run_scratch(&u.r, 25 /* SOFTMAX */, &scratch), AP_OK);
  CHECK(scratch >= 2 * 513 * 2);
  CHECK(abs(u.out[0] - 16384) <= 4 && u.out[0] == u.out[1]);
  CHECK(u.out[2] >= 32760 && u.out[3] <= 4);
  u.to.zero_point = 1;
  CHECK_EQ(run_scratch(&u.r, 25, NULL), AP_ERR_UNSUPPORTED);
  CHECK_STR(u.r.err.msg, "SOFTMAX: int16 needs zero points 0 and output scale 1/32768, got "
                         "0.000976562, 0 -> 3.05176e-05, 1");
}

static void test_quantize_int32(void) {
  /* Scale 1 -> 2 halves (SRDHM: 3 -> 2, -3 -> -1), the int32 zero point 5 first. */
  int32_t in[4] = {8, -1, 100005, 5};
  int16_t out[4];
  ap_ktensor ti = ktq(AP_INT32, in, 1, 4, 0, 0, 0, 1.0f, 5), to = kout(AP_INT16, out, 2.0f, 0);
  ap_quantize_params p;
  ap_errbuf e = {""};
  CHECK_EQ(ap_quantize_prepare(&ti, &to, &p, &e), AP_OK);
  CHECK_EQ(ap_quantize_eval(&p, &ti, &to), AP_OK);
  int16_t w[4] = {2, -3, 32767, 0}; /* 3/2 -> 2; -6/2 = -3; 50000 saturates */
  CHECK_ARRAY(out, w, 4);
  int8_t o8[4];
  to = kout(AP_INT8, o8, 1.0f, -3);
  CHECK_EQ(ap_quantize_prepare(&ti, &to, &p, &e), AP_OK);
  CHECK_EQ(ap_quantize_eval(&p, &ti, &to), AP_OK);
  int8_t w8[4] = {0, -9, 127, -3};
  CHECK_ARRAY(o8, w8, 4);
  /* int32 -> int32 is not a pair TFLite Micro has. */
  int32_t o32[4];
  to = kout(AP_INT32, o32, 1.0f, 0);
  CHECK_EQ(ap_quantize_prepare(&ti, &to, &p, &e), AP_ERR_UNSUPPORTED);
  CHECK_STR(e.msg, "QUANTIZE: unsupported types INT32 -> INT32");
}

static void test_cast_uint32(void) {
  int32_t in[3] = {-1, 7, INT32_MIN};
  uint32_t out[3];
  ap_ktensor ti = kt(AP_INT32, in, 1, 3, 0, 0, 0), to = kout(AP_UINT32, out, 0, 0);
  const ap_ktensor *ins[1] = {&ti};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_CAST), AP_OK);
  CHECK(out[0] == 4294967295u && out[1] == 7 && out[2] == 2147483648u);
  float f[3];
  ti = kt(AP_UINT32, out, 1, 3, 0, 0, 0);
  to = kout(AP_FLOAT32, f, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_CAST), AP_OK);
  CHECK(f[0] == 4294967296.0f && f[1] == 7.0f && f[2] == 2147483648.0f);
  ti.type = AP_UINT16;
  CHECK_EQ(kx_do(&r, AP_KB_CAST), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "CAST: unsupported types UINT16 -> FLOAT32");
}

typedef struct unf {
  float in[8], out[8];
  ap_ktensor ti, to;
  const ap_ktensor *ins[1];
  ap_ktensor *outs[1];
  kx_run r;
} unf;

static void unf_setup(unf *u, int n) {
  u->ti = kt(AP_FLOAT32, u->in, 1, n, 0, 0, 0);
  u->to = kout(AP_FLOAT32, u->out, 0, 0);
  u->ins[0] = &u->ti;
  u->outs[0] = &u->to;
  kx_setup(&u->r, u->ins, 1, u->outs, 1);
}

static void test_hard_swish(void) {
  unf u;
  unf_setup(&u, 6);
  float in[6] = {-4.0f, 1.0f, 4.0f, NAN, INFINITY, -INFINITY};
  memcpy(u.in, in, sizeof in);
  CHECK_EQ(kx_do(&u.r, AP_KB_HARD_SWISH), AP_OK);
  CHECK(u.out[0] == 0.0f && u.out[1] == 1.0f * 4.0f / 6.0f && u.out[2] == 4.0f);
  /* NaN stays NaN; inf * 6 / 6 = inf; -inf gives max(0, -inf) = 0 and -inf * 0 = NaN. */
  CHECK(isnan(u.out[3]) && u.out[4] == INFINITY && isnan(u.out[5]));
  /* int8, scales 1/10: within one step of the float function everywhere, exactly the zero
   * point at 0. */
  int8_t q[256], o[256];
  for (int i = 0; i < 256; i++)
    q[i] = (int8_t)(i - 128);
  ap_ktensor ti = ktq(AP_INT8, q, 1, 256, 0, 0, 0, 0.1f, 0), to = kout(AP_INT8, o, 0.1f, 0);
  const ap_ktensor *ins[1] = {&ti};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_HARD_SWISH), AP_OK);
  for (int i = 0; i < 256; i++) {
    float x = 0.1f * q[i], t = x + 3 < 0 ? 0 : x + 3 > 6 ? 6 : x + 3;
    float want = x * t / 6 / 0.1f;
    CHECK_MSG(fabsf((float)o[i] - want) <= 1.0f, "hard_swish(%d) = %d, float %g", q[i], o[i],
              (double)want);
  }
  CHECK_EQ(o[128], 0);
  ti.type = AP_INT16, to.type = AP_INT16;
  CHECK_EQ(kx_do(&r, AP_KB_HARD_SWISH), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "HARD_SWISH: unsupported types INT16 -> INT16");
}

static void test_elu(void) {
  unf u;
  unf_setup(&u, 5);
  float in[5] = {NAN, -INFINITY, 0.0f, -1.0f, 2.5f};
  memcpy(u.in, in, sizeof in);
  CHECK_EQ(kx_do(&u.r, AP_KB_ELU), AP_OK);
  CHECK(isnan(u.out[0]) && u.out[1] == -1.0f && u.out[2] == 0.0f);
  CHECK(u.out[3] == expm1f(-1.0f) && u.out[4] == 2.5f);
  /* int8: input scale 0.1, output 0.01: -1.0 -> exp(-1) - 1 = -0.632 -> -63; 2.0 -> 200
   * saturates; the output zero point -20 shifts 0 to -20. */
  int8_t q[3] = {-10, 20, 0}, o[3];
  ap_ktensor ti = ktq(AP_INT8, q, 1, 3, 0, 0, 0, 0.1f, 0), to = kout(AP_INT8, o, 0.01f, 0);
  const ap_ktensor *ins[1] = {&ti};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_ELU), AP_OK);
  CHECK(o[0] == -63 && o[1] == 127 && o[2] == 0);
  to.zero_point = -20;
  CHECK_EQ(kx_do(&r, AP_KB_ELU), AP_OK);
  CHECK(o[0] == -83 && o[1] == 127 && o[2] == -20);
}

static void test_log_softmax(void) {
  /* Float: [0, 0] -> -log 2 each; a row of one value -> 0. */
  unf u;
  unf_setup(&u, 4);
  u.ti = kt(AP_FLOAT32, u.in, 2, 2, 2, 0, 0);
  float in[4] = {0.0f, 0.0f, 3.0f, 3.0f};
  memcpy(u.in, in, sizeof in);
  CHECK_EQ(kx_do(&u.r, AP_KB_LOG_SOFTMAX), AP_OK);
  CHECK(u.out[0] == -logf(2.0f) && u.out[3] == -logf(2.0f));
  /* int8 (output scale 1/16, zero point 127): two equal values, log(1/2) = -0.693 = -11.09
   * steps: 116; a value 10 units below the max: -160 steps, -33 (the max's own log-softmax,
   * -4.5e-5, rounds to 127). */
  int8_t q[4] = {5, 5, 100, 0}, o[4];
  ap_ktensor ti = ktq(AP_INT8, q, 2, 2, 2, 0, 0, 0.1f, 0), to = kout(AP_INT8, o, 1.0f / 16, 127);
  const ap_ktensor *ins[1] = {&ti};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_LOG_SOFTMAX), AP_OK);
  CHECK(o[0] == 116 && o[1] == 116);
  CHECK(o[2] == 127 && o[3] == -33);
  q[3] = -100; /* -20.0 is past the output's [-16, 0) */
  CHECK_EQ(kx_do(&r, AP_KB_LOG_SOFTMAX), AP_OK);
  CHECK(o[2] == 127 && o[3] == -128);
  to.zero_point = 0;
  CHECK_EQ(kx_do(&r, AP_KB_LOG_SOFTMAX), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "LOG_SOFTMAX: int8 output needs scale 1/16 and zero point 127, got 0.0625, "
                       "0");
  /* The fixed-point log itself: log 1 = 0 and log 2^k = k log 2 (Q5: 2^26 per unit). */
  CHECK_EQ(ap_kfp_log_x_ge_1(1 << 19, 12, 5), 0);
  int32_t l8 = ap_kfp_log_x_ge_1(8 << 19, 12, 5);
  CHECK(fabs(l8 / 67108864.0 - 3 * log(2.0)) < 1e-6);
}

int main(void) {
  test_add_sub_int16();
  test_add_empty();
  test_mul_int16();
  test_squared_difference_int16();
  test_leaky_relu_int16();
  test_abs();
  test_prelu_int16();
  test_relu_int16();
  test_logistic_tanh_int16();
  test_softmax_int16();
  test_quantize_int32();
  test_cast_uint32();
  test_hard_swish();
  test_elu();
  test_log_softmax();
  return ap_test_done();
}
