/* The Signal ops that stream samples across invokes: SignalDelay, SignalFramer, SignalStacker
 * and SignalOverlapAdd. TFLite Micro keeps each in circular buffers; here each row's pending
 * samples are kept in order at the start of a linear buffer in the op's state (a count, then
 * the samples), which gives the same sequence. The option ranges refused here are the ones
 * where TFLite Micro's buffers would overflow or its sizes go negative. Outputs a TFLite Micro
 * op leaves untouched (a Framer or Stacker output while `valid` is false) stay untouched. */
#include "kernels/kops_signal.h"

#include <string.h>

typedef struct sig_stream_params {
  ap_kstate st;
  int32_t size, step, left, right, channels, delay;
  bool prefill, is_float;
  size_t rows, frames, row_bytes; /* row_bytes: state per row, count included */
} sig_stream_params;
_Static_assert(sizeof(sig_stream_params) <= AP_KPARAMS_SIZE, "params");

/* One row's state: how many samples it holds, then room for them. */
typedef struct row_state {
  int32_t count;
  int32_t init; /* framer: prefilled since the last reset */
} row_state;

static row_state *row_at(const sig_stream_params *p, size_t r) {
  return (row_state *)((unsigned char *)p->st.data + r * p->row_bytes);
}
static int16_t *samples(row_state *s) {
  return (int16_t *)(s + 1);
}

/* State of `rows` rows of `per_row` elements of `es` bytes after a row_state header, each
 * rounded to 8 bytes. */
static ap_status take_state(ap_kctx *c, const char *op, sig_stream_params *p, size_t per_row,
                            size_t es) {
  size_t bytes, total;
  if (!ap_mul_size(per_row, es, &bytes) || !ap_add_size(bytes, sizeof(row_state) + 7, &bytes) ||
      !ap_mul_size(bytes & ~(size_t)7, p->rows, &total))
    return ap_fail(c->err, AP_ERR_OVERFLOW, "%s: its state's size overflows", op);
  p->row_bytes = bytes & ~(size_t)7;
  p->st.bytes = total;
  return AP_OK;
}

#define DELAY "SignalDelay"

ap_status ap_sig_delay_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_sig_io(c, DELAY, 1, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  sig_stream_params *p = c->params;
  memset(p, 0, sizeof *p);
  size_t n, out_n;
  ap_flex root;
  const ap_ktensor *in = c->inputs[0];
  if ((s = ap_sig_check(c, DELAY, "input", in, AP_INT16, -1, &n)) != AP_OK ||
      (s = ap_sig_check(c, DELAY, "output", c->outputs[0], AP_INT16, in->rank, &out_n)) != AP_OK ||
      (s = ap_sig_options(c, DELAY, &root)) != AP_OK ||
      (s = ap_sig_opt_int(c, DELAY, &root, "delay_length", 0, 1 << 24, &p->delay)) != AP_OK)
    return s;
  p->size = in->dims[in->rank - 1];
  if (out_n != n || p->size == 0)
    return ap_fail(c->err, AP_ERR_FORMAT,
                   DELAY ": input (%zu) and output (%zu) must match, with "
                         "frames of at least one sample",
                   n, out_n);
  p->rows = n / (size_t)p->size;
  return p->delay ? take_state(c, DELAY, p, (size_t)p->delay, sizeof(int16_t)) : AP_OK;
}

/* The output is the row's input preceded by delay_length samples: the pending ones (zeros
 * after a reset), then the input's start; the input's last delay_length samples become the
 * pending ones. */
ap_status ap_sig_delay_eval(ap_kctx *c) {
  const sig_stream_params *p = c->params;
  const int16_t *x = c->inputs[0]->data;
  int16_t *y = c->outputs[0]->data;
  if (!x || !y || (p->delay && !p->st.data))
    return ap_fail(c->err, AP_ERR_ARG, DELAY ": no data or state");
  size_t f = (size_t)p->size, d = (size_t)p->delay;
  for (size_t r = 0; r < p->rows; r++) {
    const int16_t *xr = x + r * f;
    int16_t *yr = y + r * f;
    if (!d) {
      memcpy(yr, xr, f * sizeof *yr);
      continue;
    }
    int16_t *q = samples(row_at(p, r));
    size_t from_q = f < d ? f : d;
    memcpy(yr, q, from_q * sizeof *yr);
    memcpy(yr + from_q, xr, (f - from_q) * sizeof *yr);
    /* The pending samples after this frame: the rest of the queue, then the input's tail. */
    memmove(q, q + from_q, (d - from_q) * sizeof *q);
    memcpy(q + (d - from_q), xr + (f - from_q), from_q * sizeof *q);
  }
  return AP_OK;
}

#define FRAMER "SignalFramer"

ap_status ap_sig_framer_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_sig_io(c, FRAMER, 1, 2);
  if (s != AP_OK) return s;
  *scratch = 0;
  sig_stream_params *p = c->params;
  memset(p, 0, sizeof *p);
  size_t n, out_n;
  ap_flex root;
  const ap_ktensor *in = c->inputs[0];
  if ((s = ap_sig_check(c, FRAMER, "input", in, AP_INT16, -1, &n)) != AP_OK ||
      (s = ap_sig_check(c, FRAMER, "output", c->outputs[0], AP_INT16, in->rank + 1, &out_n)) !=
          AP_OK ||
      (s = ap_sig_check(c, FRAMER, "valid output", c->outputs[1], AP_BOOL, 0, NULL)) != AP_OK ||
      (s = ap_sig_options(c, FRAMER, &root)) != AP_OK ||
      (s = ap_sig_opt_int(c, FRAMER, &root, "frame_size", 1, 1 << 24, &p->size)) != AP_OK ||
      (s = ap_sig_opt_int(c, FRAMER, &root, "frame_step", 1, 1 << 24, &p->step)) != AP_OK ||
      (s = ap_sig_opt_bool(c, FRAMER, &root, "prefill", &p->prefill)) != AP_OK)
    return s;
  if (p->prefill && p->step > p->size)
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   FRAMER ": prefill with frame_step %d above frame_size %d", p->step, p->size);
  int32_t inner = in->dims[in->rank - 1];
  if (inner < p->step || inner % p->step != 0)
    return ap_fail(c->err, AP_ERR_FORMAT,
                   FRAMER ": input rows of %d samples are not whole steps of %d", inner, p->step);
  p->rows = n / (size_t)inner;
  p->frames = (size_t)(inner / p->step);
  size_t want;
  if (!ap_mul_size(p->rows * p->frames, (size_t)p->size, &want) || want != out_n)
    return ap_fail(c->err, AP_ERR_FORMAT,
                   FRAMER ": output has %zu elements, %zu rows of %zu frames of %d expected", out_n,
                   p->rows, p->frames, p->size);
  /* TFLite Micro's buffer holds frame_size rounded up to whole steps. */
  size_t cap = ((size_t)p->size + (size_t)p->step - 1) / (size_t)p->step * (size_t)p->step;
  return take_state(c, FRAMER, p, cap, sizeof(int16_t));
}

ap_status ap_sig_framer_eval(ap_kctx *c) {
  const sig_stream_params *p = c->params;
  const int16_t *x = c->inputs[0]->data;
  int16_t *y = c->outputs[0]->data;
  bool *valid = c->outputs[1]->data;
  if (!x || !y || !valid || !p->st.data)
    return ap_fail(c->err, AP_ERR_ARG, FRAMER ": no data or state");
  size_t size = (size_t)p->size, step = (size_t)p->step;
  *valid = true;
  for (size_t r = 0; r < p->rows; r++) {
    row_state *s = row_at(p, r);
    int16_t *q = samples(s);
    if (!s->init) { /* after a reset: prefilled with zeros (the state is zero) */
      s->count = p->prefill ? (int32_t)(size - step) : 0;
      s->init = 1;
    }
    for (size_t f = 0; f < p->frames; f++) {
      size_t at = r * p->frames + f;
      memcpy(q + s->count, x + at * step, step * sizeof *q);
      s->count += (int32_t)step;
      if ((size_t)s->count >= size) {
        memcpy(y + at * size, q, size * sizeof *y);
        s->count -= (int32_t)step;
        memmove(q, q + step, (size_t)s->count * sizeof *q);
      } else {
        *valid = false;
      }
    }
  }
  return AP_OK;
}

#define STACKER "SignalStacker"

ap_status ap_sig_stacker_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_sig_io(c, STACKER, 1, 2);
  if (s != AP_OK) return s;
  *scratch = 0;
  sig_stream_params *p = c->params;
  memset(p, 0, sizeof *p);
  size_t n, out_n;
  ap_flex root;
  if ((s = ap_sig_check(c, STACKER, "input", c->inputs[0], AP_INT16, 1, &n)) != AP_OK ||
      (s = ap_sig_check(c, STACKER, "output", c->outputs[0], AP_INT16, 1, &out_n)) != AP_OK ||
      (s = ap_sig_check(c, STACKER, "valid output", c->outputs[1], AP_BOOL, 0, NULL)) != AP_OK ||
      (s = ap_sig_options(c, STACKER, &root)) != AP_OK ||
      (s = ap_sig_opt_int(c, STACKER, &root, "num_channels", 1, 1 << 20, &p->channels)) != AP_OK ||
      (s = ap_sig_opt_int(c, STACKER, &root, "stacker_left_context", 0, 1 << 10, &p->left)) !=
          AP_OK ||
      (s = ap_sig_opt_int(c, STACKER, &root, "stacker_right_context", 0, 1 << 10, &p->right)) !=
          AP_OK ||
      (s = ap_sig_opt_int(c, STACKER, &root, "stacker_step", 1, 1 << 11, &p->step)) != AP_OK)
    return s;
  /* Discarding more frames than the stack holds would corrupt TFLite Micro's buffer. */
  if (p->step > p->left + p->right + 1)
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   STACKER ": stacker_step %d is more than the %d frames stacked", p->step,
                   p->left + p->right + 1);
  int64_t size = (int64_t)p->channels * (p->left + p->right + 1);
  if (size > 1 << 24)
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, STACKER ": stacks of %lld values (at most %d)",
                   (long long)size, 1 << 24);
  p->size = (int32_t)size;
  if (n != (size_t)p->channels || out_n != (size_t)p->size)
    return ap_fail(c->err, AP_ERR_FORMAT,
                   STACKER ": input has %zu elements (num_channels %d), output %zu (%d expected)",
                   n, p->channels, out_n, p->size);
  p->rows = 1;
  return take_state(c, STACKER, p, (size_t)p->size, sizeof(int16_t));
}

/* The first frame after a reset also fills the left context (left_context copies of it). */
ap_status ap_sig_stacker_eval(ap_kctx *c) {
  const sig_stream_params *p = c->params;
  const int16_t *x = c->inputs[0]->data;
  int16_t *y = c->outputs[0]->data;
  bool *valid = c->outputs[1]->data;
  if (!x || !y || !valid || !p->st.data)
    return ap_fail(c->err, AP_ERR_ARG, STACKER ": no data or state");
  row_state *s = row_at(p, 0);
  int16_t *q = samples(s);
  size_t ch = (size_t)p->channels;
  for (int32_t k = 0; k <= (s->init ? 0 : p->left); k++) {
    memcpy(q + s->count, x, ch * sizeof *q);
    s->count += (int32_t)ch;
  }
  s->init = 1;
  *valid = s->count >= p->size;
  if (*valid) {
    memcpy(y, q, (size_t)p->size * sizeof *y);
    size_t drop = ch * (size_t)p->step;
    s->count -= (int32_t)drop;
    memmove(q, q + drop, (size_t)s->count * sizeof *q);
  }
  return AP_OK;
}

#define OVERLAP_ADD "SignalOverlapAdd"

ap_status ap_sig_overlap_add_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_sig_io(c, OVERLAP_ADD, 1, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  sig_stream_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0];
  size_t n, out_n;
  ap_flex root;
  int32_t type;
  if ((s = ap_sig_options(c, OVERLAP_ADD, &root)) != AP_OK ||
      (s = ap_sig_opt_int(c, OVERLAP_ADD, &root, "T", INT32_MIN, INT32_MAX, &type)) != AP_OK ||
      (s = ap_sig_opt_int(c, OVERLAP_ADD, &root, "frame_step", 0, 1 << 24, &p->step)) != AP_OK)
    return s;
  if (type != AP_INT16 && type != AP_FLOAT32)
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   OVERLAP_ADD ": type %s (option T) is not supported (INT16 and FLOAT32 are)",
                   ap_ktype_name(type));
  if ((s = ap_sig_check(c, OVERLAP_ADD, "input", in, type, -1, &n)) != AP_OK ||
      (s = ap_sig_check(c, OVERLAP_ADD, "output", c->outputs[0], type, in->rank - 1, &out_n)) !=
          AP_OK)
    return s;
  if (in->rank < 2)
    return ap_fail(c->err, AP_ERR_FORMAT,
                   OVERLAP_ADD ": input rank %d (frames of samples: at "
                               "least 2)",
                   in->rank);
  p->is_float = type == AP_FLOAT32;
  p->size = in->dims[in->rank - 1];
  p->frames = (size_t)in->dims[in->rank - 2];
  if (p->step > p->size)
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   OVERLAP_ADD ": frame_step %d is more than the frames' %d samples", p->step,
                   p->size);
  p->rows = p->frames && p->size ? n / (p->frames * (size_t)p->size) : 0;
  if (out_n != p->rows * p->frames * (size_t)p->step)
    return ap_fail(c->err, AP_ERR_FORMAT,
                   OVERLAP_ADD ": output has %zu elements, %zu rows of %zu steps of %d expected",
                   out_n, p->rows, p->frames, p->step);
  if (!p->rows) return AP_OK;
  return take_state(c, OVERLAP_ADD, p, (size_t)p->size, p->is_float ? sizeof(float) : 2);
}

/* Each frame is added into the row's running sum (int16 saturating, or float), whose first
 * frame_step values are the output; the sum then moves down by frame_step, zeros behind. */
ap_status ap_sig_overlap_add_eval(ap_kctx *c) {
  const sig_stream_params *p = c->params;
  const void *x = c->inputs[0]->data;
  void *y = c->outputs[0]->data;
  if (!x || !y || (p->rows && !p->st.data))
    return ap_fail(c->err, AP_ERR_ARG, OVERLAP_ADD ": no data or state");
  size_t size = (size_t)p->size, step = (size_t)p->step, es = p->is_float ? 4 : 2;
  for (size_t r = 0; r < p->rows; r++) {
    unsigned char *sum = (unsigned char *)(row_at(p, r) + 1);
    for (size_t f = 0; f < p->frames; f++) {
      size_t at = r * p->frames + f;
      if (p->is_float) {
        const float *xf = (const float *)x + at * size;
        for (size_t i = 0; i < size; i++)
          ((float *)sum)[i] += xf[i];
      } else {
        const int16_t *xi = (const int16_t *)x + at * size;
        int16_t *acc = (int16_t *)sum;
        for (size_t i = 0; i < size; i++) {
          int32_t v = acc[i] + xi[i];
          acc[i] = (int16_t)(v < INT16_MIN ? INT16_MIN : v > INT16_MAX ? INT16_MAX : v);
        }
      }
      memcpy((unsigned char *)y + at * step * es, sum, step * es);
      memmove(sum, sum + step * es, (size - step) * es);
      memset(sum + (size - step) * es, 0, step * es);
    }
  }
  return AP_OK;
}
