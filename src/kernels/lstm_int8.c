/* One time step of the int8 LSTM (int8 activations and weights, int16 cell state, int32
 * biases): TFLite Micro's LstmStep<int8_t, int8_t, int16_t, int32_t> over its reference
 * FullyConnected (int16 output), MulElementwise, saturating add, and the int16 sigmoid and tanh
 * (lstm_act16.c). */
#include "kernels/lstm.h"
#include "kernels/quant.h"

#include <string.h>

/* out[r][s] = sat16(MBQM(sum_d w[s][d] * (x[r][d] + offset) + bias[s])): a gate's FC to Q3.12. */
static void fc16(const int8_t *x, int32_t rows, int32_t depth, int32_t offset, const int8_t *w,
                 const int32_t *bias, int32_t units, int32_t mult, int shift, int16_t *out) {
  for (int32_t r = 0; r < rows; r++)
    for (int32_t s = 0; s < units; s++) {
      const int8_t *wr = w + (size_t)s * (size_t)depth, *xr = x + (size_t)r * (size_t)depth;
      int64_t acc = 0;
      for (int32_t d = 0; d < depth; d++)
        acc += wr[d] * (xr[d] + offset);
      if (bias) acc = ap_kq_wrap32(acc) + (int64_t)bias[s];
      out[(size_t)r * (size_t)units + (size_t)s] =
          (int16_t)ap_kq_clamp(ap_kq_mul(ap_kq_wrap32(acc), mult, shift), INT16_MIN, INT16_MAX);
    }
}

/* CalculateLstmGate: FC(input) + FC(hidden), saturated, then the gate's activation. */
static void gate(const ap_lstm_params *p, const ap_ktensor *const *in, int g, int32_t rows,
                 const int8_t *x, const int8_t *h, int16_t *out, int16_t *tmp) {
  size_t n = (size_t)rows * (size_t)p->n_state;
  fc16(x, rows, p->n_input, p->input_offset, in[AP_LSTM_W_INPUT + g]->data,
       in[AP_LSTM_BIAS_INPUT + g]->data, p->n_state, p->in_mult[g], p->in_shift[g], out);
  fc16(h, rows, p->n_state, p->hidden_offset, in[AP_LSTM_R_INPUT + g]->data, NULL, p->n_state,
       p->rec_mult[g], p->rec_shift[g], tmp);
  for (size_t i = 0; i < n; i++)
    out[i] = (int16_t)ap_kq_clamp(out[i] + tmp[i], INT16_MIN, INT16_MAX);
  if (g == AP_LSTM_GATE_C)
    ap_kact16_tanh(0, 0, out, out, n); /* Q3.12 in: TFLite Micro's Tanh(-12) */
  else
    ap_kact16_logistic(out, n);
}

/* MulElementwise with symmetric inputs: sat(zp + MBQM(a * b)) into [lo, hi]. */
static int32_t mul(int16_t a, int16_t b, int32_t m, int shift, int32_t zp, int32_t lo, int32_t hi) {
  return ap_kq_clamp(zp + ap_kq_mul((int32_t)a * b, m, shift), lo, hi);
}

void ap_lstm_step_int8(const ap_lstm_params *p, const ap_ktensor *const *in, int32_t rows,
                       const int8_t *x, int8_t *h, int16_t *cell, int8_t *out, uint8_t *buf) {
  size_t n = (size_t)rows * (size_t)p->n_state;
  int16_t *b0 = (int16_t *)buf, *b1 = (int16_t *)(buf + p->buffer_bytes),
          *b2 = (int16_t *)(buf + 2 * p->buffer_bytes),
          *b3 = (int16_t *)(buf + 3 * p->buffer_bytes);
  gate(p, in, AP_LSTM_GATE_F, rows, x, h, b0, b3);
  gate(p, in, AP_LSTM_GATE_I, rows, x, h, b1, b3);
  gate(p, in, AP_LSTM_GATE_C, rows, x, h, b2, b3);
  for (size_t i = 0; i < n; i++) {
    int32_t kept = mul(b0[i], cell[i], p->fc_mult, p->fc_shift, 0, INT16_MIN, INT16_MAX);
    int32_t added = mul(b1[i], b2[i], p->ic_mult, p->ic_shift, 0, INT16_MIN, INT16_MAX);
    int32_t c = ap_kq_clamp(kept + added, INT16_MIN, INT16_MAX);
    /* The clip is symmetric: -32768 becomes -32767 when the quantized clip saturates. */
    if (p->cell_clip > 0.0f) c = ap_kq_clamp(c, -p->cell_qclip, p->cell_qclip);
    cell[i] = (int16_t)c;
  }
  gate(p, in, AP_LSTM_GATE_O, rows, x, h, b1, b3);
  int32_t shift = 15 + p->cell_scale_power - 3, mult = 0;
  if (shift < 0) {
    shift = -shift;
    mult = 3;
  }
  ap_kact16_tanh(mult, shift, cell, b0, n);
  for (size_t i = 0; i < n; i++)
    h[i] = (int8_t)mul(b0[i], b1[i], p->hid_mult, p->hid_shift, p->hidden_zp, INT8_MIN, INT8_MAX);
  memcpy(out, h, n);
}
