/* SVDF: two invokes of a small int8 SVDF with an int16 state, worked out by hand from TFLite
 * Micro's EvalIntegerSvdfReference (comments), a float one, and what prepare refuses. */
#include "kernels/kops.h"
#include "ktest.h"

#include <string.h>

typedef struct svdf_case {
  _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
  _Alignas(16) unsigned char scratch[256];
  ap_ktensor t[5], out;
  const ap_ktensor *in[5];
  ap_ktensor *outs[1];
  ap_kop_options opt;
  ap_errbuf err;
  ap_kctx c;
} svdf_case;

static ap_status run(svdf_case *k) {
  for (int i = 0; i < 5; i++)
    k->in[i] = k->t[i].data ? &k->t[i] : NULL;
  k->outs[0] = &k->out;
  k->c = (ap_kctx){k->in, 5, k->outs, 1, &k->opt, k->params, NULL, &k->err};
  const ap_kernel *kern = ap_kernel_find(27);
  if (!kern) return AP_ERR_UNSUPPORTED;
  size_t scratch = 0;
  ap_status s = kern->prepare(&k->c, &scratch);
  if (s != AP_OK) return s;
  if (scratch > sizeof k->scratch) return AP_ERR_INVALID_PLAN;
  static const ap_kop_options none;
  k->c.options = &none;
  k->c.scratch = k->scratch;
  return kern->eval(&k->c);
}

/* Input [1,2] scale 2^-4 zp -1; weights_feature [[127,127],[1,-2]] scale 2^-4; weights_time
 * [[0,2],[3,-1]] (memory 2, oldest first) scale 2^-4; bias [5,-7] scale 2^-13 (= state x
 * time); state [1,4] int16 scale 2^-9; output scale 2^-6 zp 3; rank 1. Feature multiplier
 * 2^-8 / 2^-9 = 2, output multiplier 2^-13 / 2^-6 = 2^-7.
 * Invoke 1, x = [127,127] (x - zp = 128, 128): features 2 (127 * 256) = 65024 -> 32767 and
 * 2 (128 - 256) = -256; state [0,32767, 0,-256]; time sums 2 * 32767 = 65534 and 256; plus bias
 * 65539 and 249; x 2^-7: 512.0 -> 127 after + 3, and 249 -> SRDHM 125 -> 125 / 64 = 1.95 -> 2
 * + 3 = 5. Invoke 2, x = [-1,0] (0, 1): features 2 * 127 = 254 and 2 * -2 = -4; the state
 * shifts left by one element over the whole buffer, [32767,0, -256,-256], and takes the new
 * slots: [32767,254, -256,-4]; time sums 0 * 32767 + 2 * 254 = 508 and 3 * -256 + -1 * -4 =
 * -764; plus bias 513 and -771; 513 -> SRDHM 257 -> 4.02 -> 4 + 3 = 7; -771 -> SRDHM -385
 * (-385.5 rounds toward zero) -> -6.02 -> -6 + 3 = -3. */
static void test_int8(void) {
  static svdf_case k;
  memset(&k, 0, sizeof k);
  int8_t x[2] = {127, 127}, wf[4] = {127, 127, 1, -2}, out[2];
  int16_t wt[4] = {0, 2, 3, -1}, state[4] = {0};
  int32_t bias[2] = {5, -7};
  k.t[0] = ktq(AP_INT8, x, 2, 1, 2, 0, 0, 1.0f / 16, -1);
  k.t[1] = ktq(AP_INT8, wf, 2, 2, 2, 0, 0, 1.0f / 16, 0);
  k.t[2] = ktq(AP_INT16, wt, 2, 2, 2, 0, 0, 1.0f / 16, 0);
  k.t[3] = ktq(AP_INT32, bias, 1, 2, 0, 0, 0, 1.0f / 8192, 0);
  k.t[4] = ktq(AP_INT16, state, 2, 1, 4, 0, 0, 1.0f / 512, 0);
  k.t[4].is_variable = true;
  k.out = kout(AP_INT8, out, 1.0f / 64, 3);
  k.opt.svdf_rank = 1;
  k.opt.activation = AP_KACT_RELU; /* TFLite Micro applies none on the int8 path */
  CHECK_MSG(run(&k) == AP_OK, "%s", k.err.msg);
  int16_t s1[4] = {0, 32767, 0, -256};
  int8_t o1[2] = {127, 5};
  CHECK_ARRAY(state, s1, 4);
  CHECK_ARRAY(out, o1, 2);
  CHECK(k.out.rank == 2 && k.out.dims[0] == 1 && k.out.dims[1] == 2);
  x[0] = -1;
  x[1] = 0;
  CHECK_EQ(ap_kernel_find(27)->eval(&k.c), AP_OK);
  int16_t s2[4] = {32767, 254, -256, -4};
  int8_t o2[2] = {7, -3};
  CHECK_ARRAY(state, s2, 4);
  CHECK_ARRAY(out, o2, 2);
}

/* Float, rank 2 (two filters per unit), memory 1: out = relu(bias + sum of the filters'
 * x . wf times wt). x = [1,2], wf = [[1,0],[0,1]], wt = [2,-3]: filters 2 * 1 and -3 * 2, unit
 * 0.5 + 2 - 6 = -3.5 -> relu 0; with wt = [2,3]: 0.5 + 2 + 6 = 8.5. */
static void test_float(void) {
  static svdf_case k;
  memset(&k, 0, sizeof k);
  float x[2] = {1, 2}, wf[4] = {1, 0, 0, 1}, wt[2] = {2, -3}, bias[1] = {0.5f}, state[2] = {0},
        out[1];
  k.t[0] = kt(AP_FLOAT32, x, 2, 1, 2, 0, 0);
  k.t[1] = kt(AP_FLOAT32, wf, 2, 2, 2, 0, 0);
  k.t[2] = kt(AP_FLOAT32, wt, 2, 2, 1, 0, 0);
  k.t[3] = kt(AP_FLOAT32, bias, 1, 1, 0, 0, 0);
  k.t[4] = kt(AP_FLOAT32, state, 2, 1, 2, 0, 0);
  k.t[4].is_variable = true;
  k.out = kout(AP_FLOAT32, out, 0, 0);
  k.opt.svdf_rank = 2;
  k.opt.activation = AP_KACT_RELU;
  CHECK_MSG(run(&k) == AP_OK, "%s", k.err.msg);
  CHECK(out[0] == 0.0f && state[0] == 1.0f && state[1] == 2.0f);
  wt[1] = 3;
  CHECK_EQ(ap_kernel_find(27)->eval(&k.c), AP_OK);
  CHECK(out[0] == 8.5f);
}

static void test_refused(void) {
  static svdf_case k;
  memset(&k, 0, sizeof k);
  int8_t x[2] = {0}, wf[4] = {0}, out[2];
  int16_t wt[4] = {0}, state[4] = {0};
  k.t[0] = ktq(AP_INT8, x, 2, 1, 2, 0, 0, 1.0f / 16, -1);
  k.t[1] = ktq(AP_INT8, wf, 2, 2, 2, 0, 0, 1.0f / 16, 0);
  k.t[2] = ktq(AP_INT16, wt, 2, 2, 2, 0, 0, 1.0f / 16, 0);
  k.t[4] = ktq(AP_INT16, state, 2, 1, 4, 0, 0, 1.0f / 512, 0);
  k.out = kout(AP_INT8, out, 1.0f / 64, 3);
  k.opt.svdf_rank = 1;
  CHECK_EQ(run(&k), AP_ERR_FORMAT);
  CHECK_STR(k.err.msg, "SVDF: the state (input 4) must be a variable tensor");
  k.t[4].is_variable = true;
  k.opt.svdf_rank = 3;
  CHECK_EQ(run(&k), AP_ERR_FORMAT);
  CHECK_STR(k.err.msg, "SVDF: rank 3 does not divide 2 filters");
  k.opt.svdf_rank = 1;
  k.t[4].dims[1] = 3;
  CHECK_EQ(run(&k), AP_ERR_FORMAT);
  k.t[4].dims[1] = 4;
  k.t[4].type = AP_INT8; /* the state's type must be the time weights' */
  CHECK_EQ(run(&k), AP_ERR_UNSUPPORTED);
  k.t[4].type = AP_INT16;
  CHECK_EQ(run(&k), AP_OK); /* no bias: allowed */
}

int main(void) {
  test_int8();
  test_float();
  test_refused();
  return ap_test_done();
}
