/* Per-kernel allocation rules of TFLite Micro 90b983c2's reference kernels: the builtin
 * options struct its parser allocates, the OpData its init allocates, and the data-dependent
 * buffers and scratch requests of its prepare, derived from the op's tensors and options.
 *
 * Sizes are the structs as compiled for each target (x86-64, i386). An op not in the table is
 * not modelled: the estimator names it and adds an allowance, never a silent guess. */
#include "model/flexbuf.h"
#include "tflm/tflm_internal.h"

#include <stdio.h>
#include <string.h>

static bool op_tensor(const tflm_op_ctx *c, bool input, size_t k, ap_tensor_info *t) {
  const ap_ivec *v = input ? &c->info.inputs : &c->info.outputs;
  if (k >= v->n || v->v[k] < 0) return false;
  return ap_model_tensor(c->m, c->sg, (size_t)v->v[k], t) == AP_OK;
}

/* The tensor's element count times `per` (bytes per element); false on overflow. */
static bool scaled(const ap_tensor_info *t, uint64_t per, uint64_t *out) {
  uint64_t n = per;
  for (size_t i = 0; i < t->shape.n; i++)
    if (t->shape.v[i] < 0 || !ap_mul_u64(n, (uint64_t)t->shape.v[i], &n)) return false;
  *out = n;
  return true;
}

static ap_status push(tflm_needs *n, uint64_t *list, size_t *count, uint64_t bytes) {
  (void)n;
  if (*count >= TFLM_MAX_REQUESTS) return AP_ERR_UNSUPPORTED;
  list[(*count)++] = bytes;
  return AP_OK;
}
#define PREPARE(n, b) push((n), (n)->prepare, &(n)->prepare_count, (b))
#define INIT(n, b) push((n), (n)->init, &(n)->init_count, (b))
#define SCRATCH(n, b) push((n), (n)->scratch, &(n)->scratch_count, (b))

/* TfLiteIntArrayGetSizeInBytes(rank): the writable dims copies kernels make. */
static uint64_t int_array_bytes(size_t rank) {
  return 4 + 4 * (uint64_t)rank;
}

/* The type pairs the convolution kernels accept; any other is TFLite Micro's "Hybrid models
 * are not supported on TFLite Micro." */
static bool conv_types_ok(int in, int filter) {
  return (in == AP_FLOAT32 && filter == AP_FLOAT32) || (in == AP_INT16 && filter == AP_INT8) ||
         (in == AP_INT8 && (filter == AP_INT8 || filter == AP_INT4));
}

static void reject_hybrid(const tflm_op_ctx *c, tflm_needs *n, int in, int filter) {
  snprintf(n->reject, sizeof n->reject,
           "op %zu (%s) of subgraph %zu: input %s, filter %s: \"Hybrid models are not "
           "supported on TFLite Micro.\"",
           c->op, ap_builtin_name(c->info.builtin), c->sg, ap_dtype_name(in),
           ap_dtype_name(filter));
}

/* INT4 filters are unpacked into an int8 scratch copy at every eval. */
static ap_status int4_unpacked(tflm_needs *n, const ap_tensor_info *filter) {
  uint64_t bytes;
  if (filter->type != AP_INT4) return AP_OK;
  if (!scaled(filter, 1, &bytes)) return AP_ERR_OVERFLOW;
  return SCRATCH(n, bytes);
}

/* ConvPrepare / DepthwiseConvPrepare: per-channel output multiplier and shift (int32 each),
 * allocated for every input type; channels = the filter's quantized dimension. */
static ap_status conv_channels(const tflm_op_ctx *c, tflm_needs *n, size_t dim) {
  ap_tensor_info in, filter;
  if (!op_tensor(c, true, 0, &in) || !op_tensor(c, true, 1, &filter) || filter.shape.n != 4)
    return AP_ERR_FORMAT;
  if (!conv_types_ok(in.type, filter.type)) {
    reject_hybrid(c, n, in.type, filter.type);
    return AP_OK;
  }
  uint64_t ch = (uint64_t)(filter.shape.v[dim] < 0 ? 0 : filter.shape.v[dim]);
  ap_status s = PREPARE(n, 4 * ch);
  if (!s) s = PREPARE(n, 4 * ch);
  return s ? s : int4_unpacked(n, &filter);
}
static ap_status conv_extra(const tflm_op_ctx *c, tflm_needs *n) {
  return conv_channels(c, n, 0);
}
static ap_status depthwise_extra(const tflm_op_ctx *c, tflm_needs *n) {
  return conv_channels(c, n, 3);
}

/* FullyConnectedPrepare: the same per-channel arrays, for per-channel int8 or 16x8 weights (one
 * entry per scale); INT4 weights' unpacked copy. */
static ap_status fully_connected_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_tensor_info in, filter;
  if (!op_tensor(c, true, 0, &in) || !op_tensor(c, true, 1, &filter)) return AP_ERR_FORMAT;
  if (in.type != filter.type && !(in.type == AP_INT8 && filter.type == AP_INT4) &&
      !(in.type == AP_INT16 && filter.type == AP_INT8)) {
    reject_hybrid(c, n, in.type, filter.type);
    return AP_OK;
  }
  ap_status s = int4_unpacked(n, &filter);
  if (!s && (in.type == AP_INT8 || in.type == AP_INT16) && filter.scale_count > 1) {
    s = PREPARE(n, 4 * (uint64_t)filter.scale_count);
    if (!s) s = PREPARE(n, 4 * (uint64_t)filter.scale_count);
  }
  return s;
}

/* BatchMatMulPrepare: quantized inputs get a quantization record (seven int32s); each
 * operand it must transpose (LHS when adj_x, RHS unless adj_y: constant or not) gets a
 * persistent transposed copy (a TfLiteEvalTensor, its dims, its data); then the output's
 * dims become a writable copy. */
static ap_status transposed_copy(const tflm_op_ctx *c, tflm_needs *n, const ap_tensor_info *t) {
  ap_status s = PREPARE(n, tflm_sizes_for(c->target)->eval_tensor.size);
  if (!s) s = PREPARE(n, int_array_bytes(t->shape.n));
  return s ? s : PREPARE(n, t->bytes);
}
static ap_status batch_matmul_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_op_options o;
  ap_tensor_info lhs, rhs, out;
  if (ap_model_op_options(c->m, c->sg, c->op, &o) != AP_OK || !op_tensor(c, true, 0, &lhs) ||
      !op_tensor(c, true, 1, &rhs) || !op_tensor(c, false, 0, &out))
    return AP_ERR_FORMAT;
  ap_status s = AP_OK;
  if (lhs.type == AP_INT8 || lhs.type == AP_INT16) s = PREPARE(n, 28);
  if (!s && o.batch_matmul.adj_x) s = transposed_copy(c, n, &lhs);
  if (!s && !o.batch_matmul.adj_y) s = transposed_copy(c, n, &rhs);
  return s ? s : PREPARE(n, int_array_bytes(out.shape.n));
}

/* GATHER, GATHER_ND: the output's dims become a writable copy in prepare. */
static ap_status output_dims_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_tensor_info out;
  if (!op_tensor(c, false, 0, &out)) return AP_ERR_FORMAT;
  return PREPARE(n, int_array_bytes(out.shape.n));
}

/* PrepareMeanOrSum: quantized inputs need an int32 accumulator per output element; every
 * input type then needs a temp index (int per input dim) and the resolved axes (int each). */
static ap_status mean_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_tensor_info in, axis, out;
  if (!op_tensor(c, true, 0, &in) || !op_tensor(c, true, 1, &axis) || !op_tensor(c, false, 0, &out))
    return AP_ERR_FORMAT;
  uint64_t acc, axes;
  if (!scaled(&out, 4, &acc) || !scaled(&axis, 4, &axes)) return AP_ERR_OVERFLOW;
  ap_status s = AP_OK;
  if (in.type == AP_INT8 || in.type == AP_UINT8 || in.type == AP_INT16) s = SCRATCH(n, acc);
  if (!s) s = SCRATCH(n, 4 * (uint64_t)in.shape.n);
  return s ? s : SCRATCH(n, axes);
}

/* PrepareMax (REDUCE_MAX, REDUCE_MIN): the temp index and resolved axes only. */
static ap_status reduce_minmax_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_tensor_info in, axis;
  if (!op_tensor(c, true, 0, &in) || !op_tensor(c, true, 1, &axis)) return AP_ERR_FORMAT;
  uint64_t axes;
  if (!scaled(&axis, 4, &axes)) return AP_ERR_OVERFLOW;
  ap_status s = SCRATCH(n, 4 * (uint64_t)in.shape.n);
  return s ? s : SCRATCH(n, axes);
}

/* PrepareSvdf: an int32/float activation state per batch and filter; int8 also an int32
 * output accumulator per batch and unit (units = filters / rank). */
static ap_status svdf_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_op_options o;
  ap_tensor_info in, feature;
  if (ap_model_op_options(c->m, c->sg, c->op, &o) != AP_OK || !op_tensor(c, true, 0, &in) ||
      !op_tensor(c, true, 1, &feature) || in.shape.n < 1 || feature.shape.n < 1 || o.svdf.rank <= 0)
    return AP_ERR_FORMAT;
  uint64_t batch = (uint64_t)(in.shape.v[0] < 0 ? 0 : in.shape.v[0]);
  uint64_t filters = (uint64_t)(feature.shape.v[0] < 0 ? 0 : feature.shape.v[0]);
  uint64_t state, units;
  if (!ap_mul_u64(4 * batch, filters, &state) ||
      !ap_mul_u64(4 * batch, filters / (uint64_t)o.svdf.rank, &units))
    return AP_ERR_OVERFLOW;
  ap_status s = SCRATCH(n, state);
  if (!s && in.type == AP_INT8) s = SCRATCH(n, units);
  return s;
}

/* UnidirectionalSequenceLstmPrepare: four buffers of the cell state's size and type
 * (batch x cell units; float, or int16 for quantized models). */
static ap_status lstm_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_tensor_info cell;
  if (!op_tensor(c, true, 19, &cell)) return AP_ERR_FORMAT;
  ap_status s = AP_OK;
  for (int i = 0; i < 4 && !s; i++)
    s = SCRATCH(n, cell.bytes);
  return s;
}

static ap_status assign_variable_extra(const tflm_op_ctx *c, tflm_needs *n) {
  (void)c;
  n->assign_variable = true;
  return AP_OK;
}

/* Signal library (TFLite Micro's audio front end ops). fft_length comes from the RFFT
 * output: fft_length / 2 + 1 complex values stored as pairs. */
static uint64_t last_dim(const ap_tensor_info *t) {
  return t->shape.n && t->shape.v[t->shape.n - 1] > 0 ? (uint64_t)t->shape.v[t->shape.n - 1] : 0;
}

/* RfftInit keeps a kiss_fftr state for fft_length: the fftr header (three pointers), the
 * complex sub-FFT state of fft_length / 2 points (nfft, inverse, 64 factors, twiddles) and
 * 3/2 x that many complex values; its prepare asks for an input copy of fft_length values. */
static ap_status signal_rfft_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_tensor_info out;
  if (!op_tensor(c, false, 0, &out) || last_dim(&out) < 4) return AP_ERR_FORMAT;
  uint64_t fft_length = last_dim(&out) - 2, half = fft_length / 2;
  uint64_t value = ap_dtype_bits(out.type) / 8, cpx = 2 * value;
  uint64_t pointer = tflm_sizes_for(c->target)->pointer;
  uint64_t sub = 4 + 4 + 4 * 64 + cpx * (half ? half : 1);
  uint64_t sub_aligned;
  if (!ap_align_up(sub, 8, &sub_aligned)) return AP_ERR_OVERFLOW;
  ap_status s = INIT(n, 3 * pointer + sub_aligned + cpx * (half * 3 / 2));
  return s ? s : SCRATCH(n, fft_length * value);
}
/* FilterBankInit: a uint64 accumulator per channel plus one. */
static ap_status signal_filter_bank_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_tensor_info out;
  if (!op_tensor(c, false, 0, &out)) return AP_ERR_FORMAT;
  uint64_t bytes;
  if (!scaled(&out, 8, &bytes) || !ap_add_u64(bytes, 8, &bytes)) return AP_ERR_OVERFLOW;
  return INIT(n, bytes);
}
/* FilterBankSpectralSubtractionInit: a uint32 noise estimate per channel. */
static ap_status signal_spectral_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_tensor_info out;
  if (!op_tensor(c, false, 0, &out)) return AP_ERR_FORMAT;
  uint64_t bytes;
  if (!scaled(&out, 4, &bytes)) return AP_ERR_OVERFLOW;
  return INIT(n, bytes);
}

/* SoftmaxPrepare: int16 inputs get two int16 lookup tables of 513 entries (exp and
 * 1 / (1 + x)). */
static ap_status softmax_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_tensor_info in;
  if (!op_tensor(c, true, 0, &in)) return AP_ERR_FORMAT;
  if (in.type != AP_INT16) return AP_OK;
  ap_status s = PREPARE(n, 2 * 513);
  return s ? s : PREPARE(n, 2 * 513);
}

/* TransposeConvPrepare: per-channel multiplier and shift (int32 each) for every type; an int32
 * accumulator per output element for int8, an int64 one for int16 (and an int64 copy of a
 * 16-bit bias). */
static ap_status transpose_conv_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_tensor_info in, filter, out, bias;
  if (!op_tensor(c, true, 2, &in) || !op_tensor(c, true, 1, &filter) ||
      !op_tensor(c, false, 0, &out) || filter.shape.n < 1)
    return AP_ERR_FORMAT;
  if (!(in.type == filter.type || (in.type == AP_INT16 && filter.type == AP_INT8))) {
    reject_hybrid(c, n, in.type, filter.type);
    return AP_OK;
  }
  uint64_t ch = (uint64_t)(filter.shape.v[0] < 0 ? 0 : filter.shape.v[0]), acc;
  ap_status s = PREPARE(n, 4 * ch);
  if (!s) s = PREPARE(n, 4 * ch);
  if (!s && (in.type == AP_INT8 || in.type == AP_INT16)) {
    if (!scaled(&out, in.type == AP_INT8 ? 4 : 8, &acc)) return AP_ERR_OVERFLOW;
    s = SCRATCH(n, acc);
  }
  if (!s && in.type == AP_INT16 && op_tensor(c, true, 3, &bias) && bias.type == AP_INT16) {
    if (!scaled(&bias, 8, &acc)) return AP_ERR_OVERFLOW;
    s = SCRATCH(n, acc);
  }
  return s;
}

/* MirrorPadPrepare: two int per input dim. */
static ap_status mirror_pad_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_tensor_info in;
  if (!op_tensor(c, true, 0, &in)) return AP_ERR_FORMAT;
  ap_status s = SCRATCH(n, 4 * (uint64_t)in.shape.n);
  return s ? s : SCRATCH(n, 4 * (uint64_t)in.shape.n);
}

/* CumSumPrepare: int8 keeps its rescaling (nine int32s) in a persistent OpData. */
static ap_status cumsum_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_tensor_info in;
  if (!op_tensor(c, true, 0, &in)) return AP_ERR_FORMAT;
  return in.type == AP_INT8 ? PREPARE(n, 36) : AP_OK;
}

/* EmbeddingLookUpPrepare: an OpData of a float and a size_t, then the output's dims copy. */
static ap_status embedding_lookup_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_status s = PREPARE(n, 4 + tflm_sizes_for(c->target)->pointer);
  return s ? s : output_dims_extra(c, n);
}

/* LogSoftmaxPrepare: int8 only, five int32s and two size_t. */
static ap_status log_softmax_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_tensor_info in;
  if (!op_tensor(c, true, 0, &in)) return AP_ERR_FORMAT;
  uint64_t p = tflm_sizes_for(c->target)->pointer;
  return in.type == AP_INT8 ? PREPARE(n, (20 + p - 1) / p * p + 2 * p) : AP_OK;
}

/* AddNPrepare: a pointer per input in scratch; int8 also a persistent OpData (ten int32s). */
static ap_status add_n_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_tensor_info out;
  if (!op_tensor(c, false, 0, &out)) return AP_ERR_FORMAT;
  uint64_t p = tflm_sizes_for(c->target)->pointer;
  ap_status s = out.type == AP_INT8 ? PREPARE(n, 40) : AP_OK;
  return s ? s : SCRATCH(n, p * c->info.inputs.n);
}

/* DetectionPostProcessInit/Prepare: an OpData of 112 B (no pointers), then eleven scratch
 * buffers sized by the box count, the class scores and two of its FlexBuffer options. A key
 * the options lack reads as 0, as flexbuffers' AsInt32 of a null. */
static int64_t flex_int(const ap_flex *map, const char *key) {
  ap_flex v;
  int64_t x = 0;
  if (!ap_flex_map_find(map, key, &v) || ap_flex_as_int(&v, &x, NULL) != AP_OK) return 0;
  return x;
}
static ap_status detection_extra(const tflm_op_ctx *c, tflm_needs *n) {
  ap_tensor_info boxes, scores;
  ap_flex root;
  if (!op_tensor(c, true, 0, &boxes) || !op_tensor(c, true, 1, &scores) || boxes.shape.n < 2 ||
      scores.shape.n < 3 || !c->info.custom_options ||
      ap_flex_root(c->info.custom_options, c->info.custom_options_size, &root, NULL) != AP_OK)
    return AP_ERR_FORMAT;
  int64_t det = flex_int(&root, "max_detections"), classes = flex_int(&root, "num_classes");
  int64_t boxes_n = boxes.shape.v[1], per_box = (int64_t)scores.shape.v[1] * scores.shape.v[2];
  if (det < 0 || classes < 0 || boxes_n < 0 || per_box < 0 || det > (1 << 20) ||
      classes > (1 << 20) || boxes_n > (1 << 24))
    return AP_ERR_FORMAT;
  uint64_t b = (uint64_t)boxes_n, d = (uint64_t)det;
  uint64_t wide = (uint64_t)(classes > det ? classes : det), few = b < d ? b : d;
  uint64_t list[11] = {
      b,     16 * b,    4 * (uint64_t)per_box, 4 * b,      4 * b, 4 * d * b, 4 * d * b,
      4 * b, 4 * d * b, 4 * wide * b,          4 * few * b};
  ap_status s = AP_OK;
  for (int i = 0; i < 11 && !s; i++)
    s = SCRATCH(n, list[i]);
  return s;
}

/* name, custom, options {64, 32} size and alignment, OpData {64, 32}, extra. */
#define B(name, ps, pa, od64, od32, extra)                                                         \
  { name, false, {ps, ps}, {pa, pa}, {od64, od32}, extra }
#define C(name, od64, od32, extra)                                                                 \
  { name, true, {0, 0}, {1, 1}, {od64, od32}, extra }
static const tflm_rule rules[] = {
    B("ADD", 8, 4, 60, 60, NULL),
    B("SUB", 8, 4, 52, 52, NULL),
    B("MUL", 4, 4, 36, 36, NULL),
    B("DIV", 4, 4, 28, 28, NULL),
    B("SQUARED_DIFFERENCE", 0, 1, 112, 104, NULL),
    B("FLOOR_DIV", 0, 1, 0, 0, NULL),
    B("MAXIMUM", 0, 1, 0, 0, NULL),
    B("MINIMUM", 0, 1, 0, 0, NULL),
    B("RSQRT", 0, 1, 28, 28, NULL),
    B("SQRT", 0, 1, 0, 0, NULL),
    B("LOGISTIC", 0, 1, 16, 16, NULL),
    B("EQUAL", 0, 1, 32, 32, NULL),
    B("NOT_EQUAL", 0, 1, 32, 32, NULL),
    B("LESS", 0, 1, 32, 32, NULL),
    B("LESS_EQUAL", 0, 1, 32, 32, NULL),
    B("GREATER", 0, 1, 32, 32, NULL),
    B("GREATER_EQUAL", 0, 1, 32, 32, NULL),
    B("SELECT_V2", 0, 1, 1, 1, NULL),
    B("ARG_MAX", 4, 4, 0, 0, NULL),
    B("ARG_MIN", 4, 4, 0, 0, NULL),
    B("CAST", 8, 4, 0, 0, NULL),
    B("QUANTIZE", 0, 1, 32, 24, NULL),
    B("DEQUANTIZE", 0, 1, 32, 24, NULL),
    B("CONCATENATION", 8, 4, 40, 24, NULL),
    B("PACK", 8, 4, 0, 0, NULL),
    B("UNPACK", 8, 4, 0, 0, NULL),
    B("RESHAPE", 36, 4, 0, 0, NULL),
    B("TRANSPOSE", 0, 1, 0, 0, NULL),
    B("SLICE", 0, 1, 0, 0, NULL),
    B("STRIDED_SLICE", 24, 4, 84, 84, NULL),
    B("PAD", 0, 1, 56, 56, NULL),
    B("RESIZE_BILINEAR", 2, 1, 0, 0, NULL),
    B("GATHER", 8, 4, 0, 0, output_dims_extra),
    B("GATHER_ND", 0, 1, 0, 0, output_dims_extra),
    B("AVERAGE_POOL_2D", 40, 4, 32, 32, NULL),
    B("MAX_POOL_2D", 40, 4, 32, 32, NULL),
    B("SOFTMAX", 4, 4, 80, 56, softmax_extra),
    B("CONV_2D", 28, 4, 72, 56, conv_extra),
    B("DEPTHWISE_CONV_2D", 28, 4, 72, 56, depthwise_extra),
    B("FULLY_CONNECTED", 16, 4, 64, 48, fully_connected_extra),
    B("BATCH_MATMUL", 3, 1, 32, 16, batch_matmul_extra),
    B("MEAN", 1, 1, 44, 44, mean_extra),
    B("SUM", 1, 1, 44, 44, mean_extra),
    B("REDUCE_MAX", 1, 1, 44, 44, reduce_minmax_extra),
    B("REDUCE_MIN", 1, 1, 44, 44, reduce_minmax_extra),
    B("SVDF", 12, 4, 36, 36, svdf_extra),
    B("UNIDIRECTIONAL_SEQUENCE_LSTM", 16, 4, 688, 672, lstm_extra),
    B("WHILE", 8, 4, 8, 8, NULL),
    B("CALL_ONCE", 4, 4, 8, 8, NULL),
    /* VAR_HANDLE's options hold two string pointers: the only target-dependent struct. */
    {"VAR_HANDLE", false, {16, 8}, {8, 4}, {4, 4}, NULL},
    B("READ_VARIABLE", 0, 1, 0, 0, NULL),
    B("ASSIGN_VARIABLE", 0, 1, 0, 0, assign_variable_extra),
    B("TRANSPOSE_CONV", 20, 4, 80, 72, transpose_conv_extra),
    B("RESIZE_NEAREST_NEIGHBOR", 2, 1, 0, 0, NULL),
    B("REVERSE_V2", 0, 1, 0, 0, NULL),
    B("PRELU", 0, 1, 28, 28, NULL),
    B("ZEROS_LIKE", 0, 1, 0, 0, NULL),
    B("SQUEEZE", 36, 4, 0, 0, NULL),
    B("SPLIT_V", 4, 4, 0, 0, NULL),
    B("SPLIT", 4, 4, 0, 0, NULL),
    B("PADV2", 0, 1, 56, 56, NULL),
    B("MIRROR_PAD", 4, 4, 20, 20, mirror_pad_extra),
    B("DYNAMIC_UPDATE_SLICE", 0, 1, 0, 0, NULL),
    B("CUMSUM", 2, 1, 0, 0, cumsum_extra),
    B("BROADCAST_TO", 0, 1, 0, 0, NULL),
    B("ABS", 0, 1, 28, 28, NULL),
    B("TANH", 0, 1, 16, 16, NULL),
    B("RELU6", 0, 1, 8, 8, NULL),
    B("RELU", 0, 1, 36, 36, NULL),
    B("LEAKY_RELU", 4, 4, 24, 24, NULL),
    B("L2_POOL_2D", 40, 4, 0, 0, output_dims_extra),
    B("FILL", 0, 1, 0, 0, NULL),
    B("EXPAND_DIMS", 0, 1, 0, 0, NULL),
    B("EMBEDDING_LOOKUP", 0, 1, 0, 0, embedding_lookup_extra),
    B("SPACE_TO_DEPTH", 4, 4, 0, 0, output_dims_extra),
    B("SPACE_TO_BATCH_ND", 0, 1, 4, 4, NULL),
    B("SHAPE", 4, 4, 0, 0, NULL),
    B("LOG_SOFTMAX", 0, 1, 0, 0, log_softmax_extra),
    B("LOGICAL_OR", 0, 1, 0, 0, NULL),
    B("LOGICAL_AND", 0, 1, 0, 0, NULL),
    B("L2_NORMALIZATION", 4, 4, 4, 4, NULL),
    B("HARD_SWISH", 0, 1, 20, 20, NULL),
    B("FLOOR_MOD", 0, 1, 0, 0, NULL),
    B("ELU", 0, 1, 256, 256, NULL),
    B("DEPTH_TO_SPACE", 4, 4, 0, 0, output_dims_extra),
    B("BROADCAST_ARGS", 0, 1, 0, 0, NULL),
    B("BATCH_TO_SPACE_ND", 0, 1, 0, 0, NULL),
    B("ADD_N", 0, 1, 0, 0, add_n_extra),
    B("SQUARE", 0, 1, 0, 0, NULL),
    B("SIN", 0, 1, 0, 0, NULL),
    B("ROUND", 0, 1, 0, 0, NULL),
    B("REDUCE_ALL", 1, 1, 44, 44, reduce_minmax_extra),
    B("NEG", 0, 1, 0, 0, NULL),
    B("LOGICAL_NOT", 0, 1, 0, 0, NULL),
    B("LOG", 0, 1, 0, 0, NULL),
    B("IF", 8, 4, 8, 8, NULL),
    B("FLOOR", 0, 1, 0, 0, NULL),
    B("EXP", 0, 1, 0, 0, NULL),
    B("COS", 0, 1, 0, 0, NULL),
    B("CEIL", 0, 1, 0, 0, NULL),
    C("TFLite_Detection_PostProcess", 112, 112, detection_extra),
    C("SignalWindow", 8, 8, NULL),
    C("SignalFftAutoScale", 0, 0, NULL),
    C("SignalRfft", 48, 32, signal_rfft_extra),
    C("SignalEnergy", 8, 8, NULL),
    C("SignalFilterBank", 64, 36, signal_filter_bank_extra),
    C("SignalFilterBankSquareRoot", 0, 0, NULL),
    C("SignalFilterBankSpectralSubtraction", 56, 44, signal_spectral_extra),
    C("SignalPCAN", 4, 4, NULL),
    C("SignalFilterBankLog", 8, 8, NULL),
};

/* Builtins TFLite Micro 90b983c2 has no kernel for (its benchmark resolver, 117 ops, fails
 * to find them: measured on dp_net_float and dynamic_shapes). */
static const char *const absent[] = {"POW", "TILE"};

bool tflm_kernel_absent(const ap_op_info *info) {
  if (!info || info->builtin == AP_BUILTIN_CUSTOM) return false;
  for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
    if (strcmp(ap_builtin_name(info->builtin), absent[i]) == 0) return true;
  return false;
}

const tflm_rule *tflm_rule_for(const ap_op_info *info) {
  if (!info) return NULL;
  bool custom = info->builtin == AP_BUILTIN_CUSTOM;
  const char *name = custom ? info->custom : ap_builtin_name(info->builtin);
  if (!name) return NULL;
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    if (rules[i].custom == custom && strcmp(rules[i].name, name) == 0) return &rules[i];
  return NULL;
}

ap_status tflm_op_needs(const tflm_op_ctx *c, const tflm_rule *r, tflm_needs *n) {
  memset(n, 0, sizeof *n);
  if (r->op_data[c->target]) n->init[n->init_count++] = r->op_data[c->target];
  return r->extra ? r->extra(c, n) : AP_OK;
}
