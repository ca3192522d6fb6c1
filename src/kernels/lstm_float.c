/* One time step of the float32 LSTM: TFLite Micro's LstmStep<float, float, float, float> over
 * reference_ops::FullyConnected (each dot product summed from 0 in depth order, then the bias),
 * Logistic (with its cutoffs), tanhf and Mul, in the same order of float operations. */
#include "kernels/fast/fast.h"
#include "kernels/kops_arm64.h"
#include "kernels/lstm.h"

#include <math.h>
#include <string.h>

static void fc(const float *x, int32_t rows, int32_t depth, const float *w, const float *bias,
               int32_t units, float *out, const ap_fast_level *fast) {
  if (fast && fast->ffc && rows > 0 && depth > 0 && units > 0) {
    /* The same sums; the clamp to [-inf, inf] passes every value (NaN included). */
    ap_ffc f = {x, w, bias, out, rows, depth, units, -INFINITY, INFINITY};
    fast->ffc(&f, 0, units);
    return;
  }
  for (int32_t r = 0; r < rows; r++)
    for (int32_t s = 0; s < units; s++) {
      const float *wr = w + (size_t)s * (size_t)depth, *xr = x + (size_t)r * (size_t)depth;
      float total = 0.0f;
      for (int32_t d = 0; d < depth; d++)
        total += xr[d] * wr[d];
      out[(size_t)r * (size_t)units + (size_t)s] = total + (bias ? bias[s] : 0.0f);
    }
}

static void gate(const ap_lstm_params *p, const ap_ktensor *const *in, int g, int32_t rows,
                 const float *x, const float *h, float *out, float *tmp,
                 const ap_fast_level *fast) {
  size_t n = (size_t)rows * (size_t)p->n_state;
  fc(x, rows, p->n_input, in[AP_LSTM_W_INPUT + g]->data, in[AP_LSTM_BIAS_INPUT + g]->data,
     p->n_state, out, fast);
  fc(h, rows, p->n_state, in[AP_LSTM_R_INPUT + g]->data, NULL, p->n_state, tmp, fast);
  for (size_t i = 0; i < n; i++) {
    float v = out[i] + tmp[i];
    out[i] = g == AP_LSTM_GATE_C ? ap_ktanhf(v) : ap_klogistic_f(v);
  }
}

void ap_lstm_step_float(const ap_lstm_params *p, const ap_ktensor *const *in, int32_t rows,
                        const float *x, float *h, float *cell, float *out, uint8_t *buf,
                        const ap_fast_level *fast) {
  size_t n = (size_t)rows * (size_t)p->n_state;
  float *b0 = (float *)buf, *b1 = (float *)(buf + p->buffer_bytes),
        *b2 = (float *)(buf + 2 * p->buffer_bytes), *b3 = (float *)(buf + 3 * p->buffer_bytes);
  gate(p, in, AP_LSTM_GATE_F, rows, x, h, b0, b3, fast);
  gate(p, in, AP_LSTM_GATE_I, rows, x, h, b1, b3, fast);
  gate(p, in, AP_LSTM_GATE_C, rows, x, h, b2, b3, fast);
  float clip = p->cell_clip;
  for (size_t i = 0; i < n; i++) {
    float c = b0[i] * cell[i] + b1[i] * b2[i];
    /* std::max(std::min(clip, c), -clip): a NaN cell state becomes clip, as there. */
    if (clip > 0.0f) {
      c = c < clip ? c : clip;
      c = c < -clip ? -clip : c;
    }
    cell[i] = c;
  }
  gate(p, in, AP_LSTM_GATE_O, rows, x, h, b1, b3, fast);
  for (size_t i = 0; i < n; i++)
    h[i] = ap_ktanhf(cell[i]) * b1[i];
  memcpy(out, h, n * sizeof *out);
}
