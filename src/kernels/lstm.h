/* UNIDIRECTIONAL_SEQUENCE_LSTM as TFLite Micro's reference kernel computes it
 * (unidirectional_sequence_lstm.cc, lstm_eval.h/.cc, lstm_eval_common.cc at 90b983c2): the
 * standard LSTM only (all four gates, no peephole, no projection, no layer norm), float32, or
 * int8 activations and weights with an int16 cell state and int32 biases.
 *
 * Per time step, for each gate g (forget, input, cell, output):
 *   g = act(FC(input, W_g, bias_g) + FC(hidden, R_g))   act: sigmoid; the cell gate: tanh
 *   cell = forget * cell + input * cell_gate             (then clipped when cell_clip > 0)
 *   hidden = tanh(cell) * output                         (copied to the output's time step)
 * The int8 kernel quantizes every gate's pre-activation to Q3.12 (scale 2^-12) in int16, and
 * the gates' outputs are Q0.15 (scale 2^-15). TFLite Micro ignores the op's `intermediates`
 * (the converter's gate scales): so do we. Options: time_major and cell_clip apply;
 * proj_clip only matters with a projection and asymmetric_quantize_inputs only with hybrid
 * weights, both refused (TFLite Micro ignores the two options too); diagonal recurrent weights
 * are refused.
 *
 * lstm_prepare.c checks the op and fills ap_lstm_params; lstm_float.c and lstm_int8.c run the
 * steps; lstm_act16.c holds the int16 sigmoid and tanh. */
#ifndef AP_KERNELS_LSTM_H
#define AP_KERNELS_LSTM_H

#include "kernels/kops.h"

/* Input positions (lstm_shared.h). */
enum {
  AP_LSTM_INPUT = 0,
  AP_LSTM_W_INPUT = 1, /* input-to-gate weights: input, forget, cell, output gate */
  AP_LSTM_R_INPUT = 5, /* recurrent-to-gate weights, same order */
  AP_LSTM_PEEPHOLE = 9,
  AP_LSTM_BIAS_INPUT = 12, /* gate biases, same order */
  AP_LSTM_PROJECTION = 16,
  AP_LSTM_PROJECTION_BIAS = 17,
  AP_LSTM_HIDDEN = 18,
  AP_LSTM_CELL = 19,
  AP_LSTM_LAYER_NORM = 20,
  AP_LSTM_INPUT_COUNT = 24
};

/* Gate order of the arrays below (and of the tensors: input, forget, cell, output). */
enum { AP_LSTM_GATE_I = 0, AP_LSTM_GATE_F, AP_LSTM_GATE_C, AP_LSTM_GATE_O };

enum { AP_KLSTM_FLOAT = 1, AP_KLSTM_INT8 };

typedef struct ap_lstm_params {
  int kind;
  bool time_major;
  int32_t batch, steps, n_input, n_state;
  float cell_clip; /* > 0: clip the cell state */
  /* INT8 only. FC: input and recurrent multipliers per gate to Q3.12; offsets are the negated
   * zero points of input and hidden state. */
  int32_t input_offset, hidden_offset, hidden_zp;
  int32_t in_mult[4], rec_mult[4];
  int8_t in_shift[4], rec_shift[4];
  /* forget * cell -> cell, input * cell_gate -> cell, tanh(cell) * output -> hidden */
  int32_t fc_mult, ic_mult, hid_mult;
  int8_t fc_shift, ic_shift, hid_shift;
  int16_t cell_qclip;
  int32_t cell_scale_power; /* the cell state's scale is 2^cell_scale_power */
  size_t buffer_bytes;      /* each of the four scratch buffers (rounded) */
  ap_kshape in_shape, out_shape;
} ap_lstm_params;

ap_status ap_kx_lstm_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_lstm_eval(ap_kctx *c);

struct ap_fast_level;
/* One step: `rows` rows (the batch when time major, else 1) of input at `x`; hidden and cell
 * state rows at `h` and `cell`; writes the new hidden rows to `h` and `out`. `buf` holds four
 * buffers of p->buffer_bytes. fast: the SIMD level whose float fully connected kernel runs the
 * gates' products (the same sums), or NULL. */
void ap_lstm_step_float(const ap_lstm_params *p, const ap_ktensor *const *in, int32_t rows,
                        const float *x, float *h, float *cell, float *out, uint8_t *buf,
                        const struct ap_fast_level *fast);
void ap_lstm_step_int8(const ap_lstm_params *p, const ap_ktensor *const *in, int32_t rows,
                       const int8_t *x, int8_t *h, int16_t *cell, int8_t *out, uint8_t *buf);

/* reference_integer_ops::Logistic and ::Tanh on int16 (the LUT interpolation of TFLite's
 * sigmoid_table_uint16), in place. Logistic: Q3.12 in (multiplier 0, shift 0), Q0.15 out. */
void ap_kact16_logistic(int16_t *v, size_t n);
/* Tanh with TFLite's (input_multiplier, input_left_shift) pair; multiplier 0 means 3 << shift. */
void ap_kact16_tanh(int32_t multiplier, int32_t left_shift, const int16_t *in, int16_t *out,
                    size_t n);

#endif
