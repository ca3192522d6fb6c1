/* The registry: every builtin of the list is there, unknown ones are not, and the
 * generic context reaches the family kernels. */
#include "kernels/registry.h"
#include "ktest.h"

#include <string.h>

static void test_lookup(void) {
  static const int32_t wanted[] = {0,  1,  2,  3,  4,   6,  9,   14,  17,  18, 19, 21,  22, 25,
                                   28, 34, 39, 40, 41,  60, 114, 75,  76,  47, 73, 101, 59, 98,
                                   42, 90, 99, 78, 55,  57, 71,  58,  123, 53, 77, 83,  88, 36,
                                   56, 65, 45, 54, 105, 67, 126, 107, 23,  27, 44, 69,  11};
  size_t n = sizeof wanted / sizeof wanted[0];
  CHECK(ap_kernel_count() >= n); /* issue 15's helpers add more; each checks its own */
  for (size_t i = 0; i < n; i++) {
    const ap_kernel *k = ap_kernel_find(wanted[i]);
    CHECK_MSG(k && k->builtin == wanted[i] && k->prepare && k->eval, "builtin %d", wanted[i]);
    CHECK(k && k->params_size <= AP_KPARAMS_SIZE);
  }
  CHECK(ap_kernel_find(3) && strcmp(ap_kernel_find(3)->name, "CONV_2D") == 0);
  CHECK(ap_kernel_find(33) == NULL); /* EMBEDDING_LOOKUP_SPARSE */
  CHECK(ap_kernel_find(-1) == NULL);
  CHECK(ap_kernel_at(ap_kernel_count()) == NULL);
}

/* HARD_SWISH, ELU, LOG_SOFTMAX (kops_elem16.h). */
static void test_lookup_elem16(void) {
  static const int32_t wanted[] = {117, 111, 50};
  for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
    const ap_kernel *k = ap_kernel_find(wanted[i]);
    CHECK_MSG(k && k->builtin == wanted[i] && k->prepare && k->eval, "builtin %d", wanted[i]);
  }
}

/* The data-movement ops (kops_datamove.h), each under its schema name. */
static void test_datamove_ops(void) {
  static const struct {
    int32_t builtin;
    const char *name;
  } ops[] = {{49, "SPLIT"},
             {102, "SPLIT_V"},
             {43, "SQUEEZE"},
             {70, "EXPAND_DIMS"},
             {93, "ZEROS_LIKE"},
             {94, "FILL"},
             {26, "SPACE_TO_DEPTH"},
             {5, "DEPTH_TO_SPACE"},
             {38, "SPACE_TO_BATCH_ND"},
             {37, "BATCH_TO_SPACE_ND"},
             {130, "BROADCAST_TO"},
             {145, "BROADCAST_ARGS"},
             {100, "MIRROR_PAD"},
             {151, "DYNAMIC_UPDATE_SLICE"},
             {7, "EMBEDDING_LOOKUP"},
             {128, "CUMSUM"},
             {106, "ADD_N"},
             {97, "RESIZE_NEAREST_NEIGHBOR"}};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    const ap_kernel *k = ap_kernel_find(ops[i].builtin);
    CHECK_MSG(k && strcmp(k->name, ops[i].name) == 0 && k->prepare && k->eval &&
                  k->params_size <= AP_KPARAMS_SIZE,
              "builtin %d", ops[i].builtin);
  }
}

static void test_dispatch(void) {
  _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
  ap_errbuf e = {""};
  ap_kop_options opt;
  memset(&opt, 0, sizeof opt);
  /* CONV_2D through the context, bias absent (a NULL optional input). */
  float in[4] = {1, 2, 3, 4}, f[4] = {1, 1, 1, 1}, out[1];
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, 1, 2, 2, 1), tf = kt(AP_FLOAT32, f, 4, 1, 2, 2, 1);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[3] = {&ti, &tf, NULL};
  ap_ktensor *outs[1] = {&to};
  opt.conv = (ap_conv_options){AP_KPAD_VALID, 1, 1, 1, 1, AP_KACT_NONE, 0, 0};
  ap_kctx c = {ins, 3, outs, 1, &opt, params, NULL, &e};
  const ap_kernel *k = ap_kernel_find(3);
  size_t scratch = 99;
  CHECK_EQ(k->prepare(&c, &scratch), AP_OK);
  CHECK_EQ(scratch, 0);
  CHECK_DIMS4(to, 1, 1, 1, 1);
  CHECK_EQ(k->eval(&c), AP_OK);
  CHECK(out[0] == 10.0f);
  /* Too few inputs is a format error that names the op. */
  c.n_inputs = 1;
  CHECK_EQ(k->prepare(&c, &scratch), AP_ERR_FORMAT);
  CHECK_STR(e.msg, "CONV_2D: expected 2 to 3 inputs and an output");

  /* RESHAPE: the shape input wins; without one the options; without those the output's own
   * declared shape. */
  int32_t shape[2] = {4, 1};
  ap_ktensor ts = kt(AP_INT32, shape, 1, 2, 0, 0, 0);
  float rout[4];
  ap_ktensor tr = kout(AP_FLOAT32, rout, 0, 0);
  const ap_ktensor *rins[2] = {&ti, &ts};
  ap_ktensor *routs[1] = {&tr};
  ap_kctx r = {rins, 2, routs, 1, &opt, NULL, NULL, &e}; /* RESHAPE keeps no params */
  k = ap_kernel_find(22);
  CHECK_EQ(k->params_size, 0);
  CHECK_EQ(k->prepare(&r, &scratch), AP_OK);
  CHECK(tr.rank == 2 && tr.dims[0] == 4 && tr.dims[1] == 1);
  CHECK_EQ(k->eval(&r), AP_OK);
  CHECK(rout[3] == 4.0f);
  int32_t opt_shape[1] = {-1};
  opt.new_shape = opt_shape;
  opt.new_shape_n = 1;
  r.n_inputs = 1;
  CHECK_EQ(k->prepare(&r, &scratch), AP_OK);
  CHECK(tr.rank == 1 && tr.dims[0] == 4);
  opt.new_shape = NULL;
  tr = kt(AP_FLOAT32, rout, 3, 2, 2, 1, 0);
  CHECK_EQ(k->prepare(&r, &scratch), AP_OK);
  CHECK(tr.rank == 3 && tr.dims[0] == 2 && tr.dims[1] == 2 && tr.dims[2] == 1);

  /* CONCATENATION passes every input. */
  float a[1] = {7}, b[2] = {8, 9}, cout[3];
  ap_ktensor ta = kt(AP_FLOAT32, a, 1, 1, 0, 0, 0), tb = kt(AP_FLOAT32, b, 1, 2, 0, 0, 0);
  ap_ktensor tc = kout(AP_FLOAT32, cout, 0, 0);
  const ap_ktensor *cins[2] = {&ta, &tb};
  ap_ktensor *couts[1] = {&tc};
  opt.axis = 0;
  ap_kctx cc = {cins, 2, couts, 1, &opt, params, NULL, &e};
  k = ap_kernel_find(2);
  CHECK_EQ(k->prepare(&cc, &scratch), AP_OK);
  CHECK_EQ(k->eval(&cc), AP_OK);
  float want[3] = {7, 8, 9};
  CHECK_ARRAY(cout, want, 3);
}

static void test_from_info(void) {
  /* A per-channel int8 filter as the model layer describes it. */
  int32_t shape[4] = {2, 3, 3, 1};
  float scales[2] = {0.5f, 0.25f};
  int64_t zps[2] = {0, 0};
  ap_tensor_info info;
  memset(&info, 0, sizeof info);
  info.name = "w";
  info.type = AP_INT8;
  info.shape.v = shape;
  info.shape.n = 4;
  info.scale = scales;
  info.scale_count = 2;
  info.zero_point = zps;
  info.zero_point_count = 2;
  info.quantized_dimension = 0;
  int8_t data[18];
  ap_ktensor t;
  ap_errbuf e = {""};
  CHECK_EQ(ap_ktensor_from_info(&info, data, &t, &e), AP_OK);
  CHECK_DIMS4(t, 2, 3, 3, 1);
  CHECK(t.type == AP_INT8 && t.data == data && t.scale == 0.5f && t.zero_point == 0);
  CHECK(t.channel_scales == scales && t.n_channels == 2 &&
        ap_ktensor_channel_scale(&t, 1) == 0.25f);
  int64_t big = (int64_t)1 << 40;
  info.zero_point = &big;
  info.zero_point_count = 1;
  CHECK_EQ(ap_ktensor_from_info(&info, data, &t, &e), AP_ERR_FORMAT);
  CHECK_STR(e.msg, "tensor \"w\": zero point 1099511627776 out of range");
  int32_t shape7[7] = {1, 1, 1, 1, 1, 1, 1};
  info.shape.v = shape7;
  info.shape.n = 7;
  CHECK_EQ(ap_ktensor_from_info(&info, data, &t, &e), AP_ERR_UNSUPPORTED);
  CHECK_STR(e.msg, "tensor \"w\": rank 7 exceeds 6");
}

/* Issue 15's math, comparison, logic and reduction ops (kops_mathlogic.h). */
static void test_lookup_mathlogic(void) {
  static const int32_t wanted[] = {8,  104, 116, 66, 108, 92, 87, 95,  61, 62,
                                   63, 72,  86,  84, 74,  82, 89, 140, 79, 12};
  for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
    const ap_kernel *k = ap_kernel_find(wanted[i]);
    CHECK_MSG(k && k->builtin == wanted[i] && k->prepare && k->eval, "builtin %d", wanted[i]);
    CHECK(k && k->params_size <= AP_KPARAMS_SIZE);
  }
  CHECK(ap_kernel_find(81) == NULL); /* REDUCE_PROD: not in TFLite Micro */
  CHECK(ap_kernel_find(91) == NULL); /* REDUCE_ANY: not in TFLite Micro */
}

int main(void) {
  test_lookup();
  test_datamove_ops();
  test_lookup_elem16();
  test_from_info();
  test_dispatch();
  test_lookup_mathlogic();
  printf("params bytes: conv %zu, fc %zu, pool %zu, softmax %zu, binary %zu, unary %zu, pad %zu, "
         "mean %zu, transpose %zu, concat %zu, quantize %zu\n",
         sizeof(ap_conv_params), sizeof(ap_fc_params), sizeof(ap_pool_params),
         sizeof(ap_softmax_params), sizeof(ap_binary_params), sizeof(ap_unary_params),
         sizeof(ap_pad_params), sizeof(ap_mean_params), sizeof(ap_transpose_params),
         sizeof(ap_concat_params), sizeof(ap_quantize_params));
  return ap_test_done();
}
