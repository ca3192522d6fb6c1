/* UNIDIRECTIONAL_SEQUENCE_LSTM: the checks and parameters of TFLite Micro's
 * UnidirectionalSequenceLstmPrepare (see lstm.h), and the eval that walks the time steps. */
#include "kernels/fast/fast.h"
#include "kernels/lstm.h"
#include "kernels/quant.h"

#include <math.h>
#include <string.h>

#define OP "UNIDIRECTIONAL_SEQUENCE_LSTM"

_Static_assert(sizeof(ap_lstm_params) <= AP_KPARAMS_SIZE, "lstm params");

/* The gates' scales as TFLite Micro writes them (PrepareGateParametersInteger): the first is
 * 2^-12 exactly, the second two float ulps below 2^-15, which shows in the multipliers. */
#define GATE_IN_SCALE 0.00024414062f
#define GATE_OUT_SCALE 0.00003051757f

static const char *const gate_names[4] = {"input", "forget", "cell", "output"};

/* Rank-2 [d0, d1] (weights) or rank-1 [d0] (d1 < 0: biases). */
static bool dims_are(const ap_ktensor *t, int32_t d0, int32_t d1) {
  if (d1 < 0) return t->rank == 1 && t->dims[0] == d0;
  return t->rank == 2 && t->dims[0] == d0 && t->dims[1] == d1;
}

/* What TFLite Micro's kernel does not support: it runs only the standard LSTM. */
static ap_status check_variant(ap_kctx *c) {
  const ap_ktensor *const *in = c->inputs;
  for (int g = 0; g < 4; g++)
    if (!in[AP_LSTM_W_INPUT + g] || !in[AP_LSTM_R_INPUT + g] || !in[AP_LSTM_BIAS_INPUT + g])
      return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                     OP ": the %s gate's weights or bias are missing (CIFG LSTM is not supported)",
                     gate_names[g]);
  for (int i = 0; i < 3; i++)
    if (in[AP_LSTM_PEEPHOLE + i])
      return ap_fail(c->err, AP_ERR_UNSUPPORTED, OP ": peephole LSTM is not supported");
  if (in[AP_LSTM_PROJECTION] || in[AP_LSTM_PROJECTION_BIAS])
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, OP ": LSTM with projection is not supported");
  for (int i = 0; i < 4; i++)
    if (in[AP_LSTM_LAYER_NORM + i])
      return ap_fail(c->err, AP_ERR_UNSUPPORTED, OP ": layer-norm LSTM is not supported");
  if (c->options->lstm.diagonal_recurrent_tensors)
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, OP ": diagonal recurrent weights are not supported");
  if (c->options->activation != AP_KACT_TANH)
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   OP ": cell activation %d is not supported (only TANH)", c->options->activation);
  if (!in[AP_LSTM_HIDDEN] || !in[AP_LSTM_CELL] || !in[AP_LSTM_HIDDEN]->is_variable ||
      !in[AP_LSTM_CELL]->is_variable)
    return ap_fail(c->err, AP_ERR_FORMAT,
                   OP ": the output state (input 18) and cell state (input 19) must be variable "
                      "tensors");
  return AP_OK;
}

static ap_status check_shapes(ap_kctx *c, ap_lstm_params *p) {
  const ap_ktensor *const *in = c->inputs, *x = in[AP_LSTM_INPUT], *h = in[AP_LSTM_HIDDEN];
  size_t n;
  if (x->rank != 3 || h->rank < 2 || !ap_ktensor_count(x, &n))
    return ap_fail(c->err, AP_ERR_FORMAT,
                   OP ": input needs rank 3 and the output state rank 2, have %d and %d", x->rank,
                   h->rank);
  p->time_major = c->options->lstm.time_major;
  p->batch = x->dims[p->time_major ? 1 : 0];
  p->steps = x->dims[p->time_major ? 0 : 1];
  p->n_input = x->dims[2];
  p->n_state = h->dims[1];
  if (p->batch <= 0 || p->steps <= 0 || p->n_input <= 0 || p->n_state <= 0)
    return ap_fail(c->err, AP_ERR_FORMAT, OP ": empty input or state");
  for (int g = 0; g < 4; g++)
    if (!dims_are(in[AP_LSTM_W_INPUT + g], p->n_state, p->n_input) ||
        !dims_are(in[AP_LSTM_R_INPUT + g], p->n_state, p->n_state) ||
        !dims_are(in[AP_LSTM_BIAS_INPUT + g], p->n_state, -1))
      return ap_fail(c->err, AP_ERR_FORMAT,
                     OP ": %s gate: weights must be [%d,%d] and [%d,%d], the bias [%d]",
                     gate_names[g], (int)p->n_state, (int)p->n_input, (int)p->n_state,
                     (int)p->n_state, (int)p->n_state);
  size_t states = (size_t)p->batch * (size_t)p->n_state, nh, nc;
  if (!ap_ktensor_count(h, &nh) || !ap_ktensor_count(in[AP_LSTM_CELL], &nc) || nh != states ||
      nc != states)
    return ap_fail(c->err, AP_ERR_FORMAT, OP ": output and cell state need %zu elements", states);
  ap_ktensor *out = c->outputs[0];
  out->rank = 3;
  out->dims[0] = x->dims[0];
  out->dims[1] = x->dims[1];
  out->dims[2] = p->n_state;
  p->in_shape = ap_kshape_of(x);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

static ap_status check_types(ap_kctx *c, ap_lstm_params *p) {
  const ap_ktensor *const *in = c->inputs;
  int xt = in[AP_LSTM_INPUT]->type, wt, bt, ht = in[AP_LSTM_HIDDEN]->type,
      ct = in[AP_LSTM_CELL]->type, ot = c->outputs[0]->type;
  if (xt == AP_FLOAT32) {
    p->kind = AP_KLSTM_FLOAT;
    wt = bt = AP_FLOAT32;
  } else if (xt == AP_INT8 && ct == AP_INT16) {
    p->kind = AP_KLSTM_INT8;
    wt = AP_INT8;
    bt = AP_INT32;
  } else {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   OP ": %s input with a %s cell state is not supported (FLOAT32, or INT8 with "
                      "INT16)",
                   ap_ktype_name(xt), ap_ktype_name(ct));
  }
  if (ht != xt || ot != xt || (p->kind == AP_KLSTM_FLOAT && ct != AP_FLOAT32))
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   OP ": output state %s, cell state %s and output %s must match a %s input",
                   ap_ktype_name(ht), ap_ktype_name(ct), ap_ktype_name(ot), ap_ktype_name(xt));
  for (int g = 0; g < 4; g++)
    if (in[AP_LSTM_W_INPUT + g]->type != wt || in[AP_LSTM_R_INPUT + g]->type != wt ||
        in[AP_LSTM_BIAS_INPUT + g]->type != bt)
      return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                     OP ": %s gate: weights must be %s and the bias %s with a %s input",
                     gate_names[g], ap_ktype_name(wt), ap_ktype_name(bt), ap_ktype_name(xt));
  return AP_OK;
}

/* The FC from `x` (input or hidden state) through `w` to Q3.12, as CalculateOpDataFullyConnected
 * computes it: the float product of the scales, then the double quotient. */
static bool fc_multiplier(const ap_ktensor *x, const ap_ktensor *w, int32_t *m, int8_t *shift) {
  if (!ap_kq_scale_ok(x->scale) || !ap_kq_scale_ok(w->scale) || w->n_channels > 1) return false;
  int s;
  ap_kq_multiplier((double)(x->scale * w->scale) / (double)GATE_IN_SCALE, m, &s);
  *shift = (int8_t)AP_MIN(s, 31); /* ap_kq_mul shifts left by at most 31 anyway */
  return true;
}

/* CreateInterGateMulParams: (s1 * s2) / out in double. */
static void mul_multiplier(double s1, double s2, double out, int32_t *m, int8_t *shift) {
  int s;
  ap_kq_multiplier(s1 * s2 / out, m, &s);
  *shift = (int8_t)AP_MIN(s, 31);
}

static ap_status prepare_int8(ap_kctx *c, ap_lstm_params *p) {
  const ap_ktensor *const *in = c->inputs, *x = in[AP_LSTM_INPUT], *h = in[AP_LSTM_HIDDEN],
                          *cell = in[AP_LSTM_CELL];
  if (!ap_kq_zero_point_ok(x) || !ap_kq_zero_point_ok(h) || !ap_kq_scale_ok(cell->scale) ||
      cell->zero_point != 0)
    return ap_fail(c->err, AP_ERR_FORMAT,
                   OP ": bad quantization of the input, output state or cell state");
  for (int g = 0; g < 4; g++)
    if (in[AP_LSTM_W_INPUT + g]->zero_point != 0 || in[AP_LSTM_R_INPUT + g]->zero_point != 0 ||
        !fc_multiplier(x, in[AP_LSTM_W_INPUT + g], &p->in_mult[g], &p->in_shift[g]) ||
        !fc_multiplier(h, in[AP_LSTM_R_INPUT + g], &p->rec_mult[g], &p->rec_shift[g]))
      return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                     OP ": %s gate: weights need one scale and zero point 0", gate_names[g]);
  p->input_offset = -x->zero_point;
  p->hidden_offset = -h->zero_point;
  p->hidden_zp = h->zero_point;
  /* CheckedLog2 as TFLite Micro uses it: the rounded float log2, its check ignored. The tanh
   * of the cell state scales it by 3 * 2^(power + 12) in int32: beyond [-27, 2] that shifts
   * out of range, where TFLite Micro's arithmetic overflows. */
  float power = roundf(logf(cell->scale) * (1.0f / logf(2.0f)));
  if (!(power >= -27.0f && power <= 2.0f))
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   OP ": cell state scale %g is out of range (2^-27 to 2^2)", cell->scale);
  p->cell_scale_power = (int32_t)power;
  double cs = (double)cell->scale, q15 = (double)GATE_OUT_SCALE;
  mul_multiplier(q15, cs, cs, &p->fc_mult, &p->fc_shift);
  mul_multiplier(q15, q15, cs, &p->ic_mult, &p->ic_shift);
  mul_multiplier(q15, q15, (double)h->scale, &p->hid_mult, &p->hid_shift);
  double clip = (double)p->cell_clip / cs;
  p->cell_qclip = (int16_t)(clip < -32768.0 ? -32768.0 : clip > 32767.0 ? 32767.0 : clip);
  return AP_OK;
}

ap_status ap_kx_lstm_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, OP, 1, AP_LSTM_INPUT_COUNT, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  if (c->n_inputs != AP_LSTM_INPUT_COUNT || c->n_outputs != 1)
    return ap_fail(c->err, AP_ERR_FORMAT, OP ": expected 24 inputs and 1 output, have %d and %d",
                   c->n_inputs, c->n_outputs);
  ap_lstm_params *p = c->params;
  memset(p, 0, sizeof *p);
  p->cell_clip = c->options->lstm.cell_clip;
  if ((s = check_variant(c)) != AP_OK || (s = check_types(c, p)) != AP_OK ||
      (s = check_shapes(c, p)) != AP_OK)
    return s;
  if (p->kind == AP_KLSTM_INT8 && (s = prepare_int8(c, p)) != AP_OK) return s;
  /* Four buffers of one step's state rows (the whole batch when time major, as TFLite Micro
   * sizes them: batch x state x the cell state's element size). */
  size_t bytes;
  if (!ap_mul_size((size_t)p->batch, (size_t)p->n_state, &bytes) ||
      !ap_mul_size(bytes, ap_ktype_size(c->inputs[AP_LSTM_CELL]->type), &bytes) ||
      !ap_mul_size(ap_kscratch_round(bytes), 4, scratch))
    return ap_fail(c->err, AP_ERR_OVERFLOW, OP ": state too large");
  p->buffer_bytes = ap_kscratch_round(bytes);
  return AP_OK;
}

ap_status ap_kx_lstm_eval(ap_kctx *c) {
  if (!c || !c->params || !c->inputs || !c->outputs || c->n_inputs != AP_LSTM_INPUT_COUNT ||
      c->n_outputs != 1 || !c->outputs[0])
    return AP_ERR_ARG;
  const ap_lstm_params *p = c->params;
  const ap_ktensor *const *in = c->inputs, *x = in[AP_LSTM_INPUT];
  ap_ktensor *out = c->outputs[0];
  if (!x || !in[AP_LSTM_HIDDEN] || !in[AP_LSTM_CELL] || !x->data || !out->data ||
      !in[AP_LSTM_HIDDEN]->data || !in[AP_LSTM_CELL]->data || !c->scratch ||
      !ap_kshape_is(x, &p->in_shape) || !ap_kshape_is(out, &p->out_shape))
    return AP_ERR_ARG;
  for (int g = 0; g < 4; g++)
    if (!in[AP_LSTM_W_INPUT + g] || !in[AP_LSTM_W_INPUT + g]->data || !in[AP_LSTM_R_INPUT + g] ||
        !in[AP_LSTM_R_INPUT + g]->data || !in[AP_LSTM_BIAS_INPUT + g] ||
        !in[AP_LSTM_BIAS_INPUT + g]->data)
      return AP_ERR_ARG;
  /* Time major: each step takes the whole batch. Batch major: each batch row runs all its
   * steps on its own state row, and input and output advance row after row. */
  int32_t rows = p->time_major ? p->batch : 1, outer = p->time_major ? 1 : p->batch;
  const ap_fast_level *fast = c->options && c->options->exec ? c->options->exec->level : NULL;
  size_t in_step = (size_t)rows * (size_t)p->n_input, st = (size_t)rows * (size_t)p->n_state;
  for (int32_t b = 0; b < outer; b++)
    for (int32_t t = 0; t < p->steps; t++) {
      size_t k = (size_t)b * (size_t)p->steps + (size_t)t, srow = (size_t)b * (size_t)p->n_state;
      if (p->kind == AP_KLSTM_FLOAT)
        ap_lstm_step_float(p, in, rows, (const float *)x->data + k * in_step,
                           (float *)in[AP_LSTM_HIDDEN]->data + srow,
                           (float *)in[AP_LSTM_CELL]->data + srow, (float *)out->data + k * st,
                           c->scratch, fast);
      else
        ap_lstm_step_int8(p, in, rows, (const int8_t *)x->data + k * in_step,
                          (int8_t *)in[AP_LSTM_HIDDEN]->data + srow,
                          (int16_t *)in[AP_LSTM_CELL]->data + srow, (int8_t *)out->data + k * st,
                          c->scratch);
    }
  return AP_OK;
}
