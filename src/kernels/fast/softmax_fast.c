/* SOFTMAX int8 or uint8 input (int8, int16 or uint8 output) with a table of its exponentials:
 * the reference (softmax.c, TFLite's reference_ops::Softmax) computes, per value, the
 * fixed-point exp of (x - row max) scaled by beta, twice (for the sum, then the output). That
 * exp depends only on the difference, one of 256 (0 down to -255): computed once per eval into
 * the scratch (the differences that occur), each value's is a lookup, the rest of the arithmetic
 * (the sum's rescaling, the reciprocal, the output's rounding) the reference's. A difference below
 * diff_min, which the reference skips, takes 0: it adds 0 to the sum and gives the output's
 * minimum, as skipped. x86-64 only (AP_FAST_DIRECT): a board's firmware links the reference alone.
 */
#include "kernels/fast/conv_win.h"
#include "kernels/kops_stream7.h"
#include "kernels/quant.h"

#if AP_FAST_DIRECT

enum { SCALED_DIFF_INTEGER_BITS = 5, ACCUMULATION_INTEGER_BITS = 12, TABLE = 256 };

/* Below this many values the table (256 entries) costs more than the reference's two
 * exponentials per value. */
enum { MIN_VALUES = 128 };

static bool applies(const ap_kexec *x, const ap_softmax_params *p, const ap_ktensor *in,
                    const ap_ktensor *out, size_t *n) {
  if (!x || !x->level || !p || !in || !out || in->rank < 1 ||
      (x->small_extra && TABLE * sizeof(int32_t) > x->small_extra) ||
      (in->type != AP_INT8 && in->type != AP_UINT8) ||
      !(out->type == AP_INT8 || out->type == AP_INT16 || out->type == AP_UINT8) ||
      !ap_ktensor_count(in, n) || in->dims[in->rank - 1] <= 0)
    return false;
  return *n >= MIN_VALUES;
}

bool ap_fast_softmax_scratch(const ap_kexec *x, const ap_softmax_params *p, const ap_ktensor *in,
                             const ap_ktensor *out, size_t *scratch) {
  size_t n;
  if (!applies(x, p, in, out, &n)) return false;
  *scratch = TABLE * sizeof(int32_t);
  return true;
}

/* e[d] for d in [d0, top]: the exp of difference -d, 0 where the reference skips it. */
static void table(const ap_softmax_params *p, int32_t d0, int32_t top, int32_t *e) {
  for (int32_t d = d0; d <= top; d++)
    e[d] = -d >= p->diff_min ? ap_kfp_exp_on_negative_values(
                                   ap_kq_mul_gt1(-d, p->input_multiplier, p->input_left_shift),
                                   SCALED_DIFF_INTEGER_BITS)
                             : 0;
}

/* The table's differences [d0, d1) of piece i: e[d] and es[d], its share of a sum (each
 * entry on its own: the same bytes on any thread). */
typedef struct sm_job {
  const ap_softmax_params *p;
  int32_t top, pieces;
  int32_t *e, *es;
} sm_job;

static void sm_task(void *arg, int i) {
  const sm_job *j = arg;
  int32_t d0 = (int32_t)((int64_t)i * (j->top + 1) / j->pieces);
  int32_t d1 = (int32_t)((int64_t)(i + 1) * (j->top + 1) / j->pieces);
  table(j->p, d0, d1 - 1, j->e);
  for (int32_t d = d0; d < d1; d++)
    j->es[d] = ap_kq_rdbpot(j->e[d], ACCUMULATION_INTEGER_BITS);
}

/* e and es for [0, top], split over the threads where the exponentials are many: each costs
 * some 340 instructions (the reference's fixed-point exp, its barrel of 7 multiplications), about
 * 700 of ap_fast_tasks's units, so a spread of 94 or more splits (mobilenet_v1_025's 1001
 * classes: 114, 39 k of the op's 80 k instructions, on the caller alone while the other thread
 * waited). Eight pieces a thread: an entry's cost varies with d (those below diff_min cost
 * nothing), and with four the claims left one thread 30 % behind. The table is the same scratch
 * for any thread count (ap_fast_shared). */
static void tables(const ap_kexec *x, const ap_softmax_params *p, int32_t top, int32_t *e,
                   int32_t *es) {
  ap_kexec tmp;
  x = ap_fast_shared(x, &tmp);
  sm_job j = {p, top,
              ap_fast_chunks(ap_fast_tasks(x, (uint64_t)(top + 1) * 700, top + 1), 8, top + 1), e,
              es};
  ap_fast_parallel(x, sm_task, &j, j.pieces);
}

/* Rows of depth values, T the input's and O the output's element types. First the largest
 * spread (max - min) of any row, top: only the differences [0, top] occur, so only their
 * exponentials are computed (a 1001-class row of logits spans far fewer than 256), each with
 * its share of the sum (es). Then per row the sum, and the outputs: each value's difference
 * looked up in a table of the row's outputs for [0, top] when the row has more values than
 * that (the reference's arithmetic once per difference rather than once per value). */
#define SOFTMAX_ROWS(T, O, LO, HI, BITS)                                                           \
  int32_t top = 0;                                                                                 \
  for (size_t i = 0; i < outer; i++) {                                                             \
    const T *xr = (const T *)in->data + i * depth;                                                 \
    int32_t max = xr[0], min = xr[0];                                                              \
    for (size_t c = 1; c < depth; c++) {                                                           \
      max = xr[c] > max ? xr[c] : max;                                                             \
      min = xr[c] < min ? xr[c] : min;                                                             \
    }                                                                                              \
    top = max - min > top ? max - min : top;                                                       \
  }                                                                                                \
  int32_t es[TABLE];                                                                               \
  tables(x, p, top, e, es);                                                                        \
  for (size_t i = 0; i < outer; i++) {                                                             \
    const T *xr = (const T *)in->data + i * depth;                                                 \
    O *yr = (O *)out->data + i * depth;                                                            \
    int32_t max = xr[0];                                                                           \
    for (size_t c = 1; c < depth; c++)                                                             \
      max = xr[c] > max ? xr[c] : max;                                                             \
    uint32_t sum = 0; /* Q12.19, wrapping as the reference's */                                    \
    for (size_t c = 0; c < depth; c++)                                                             \
      sum += (uint32_t)es[max - xr[c]];                                                            \
    int bits;                                                                                      \
    int32_t scale = ap_kq_reciprocal((int32_t)sum, ACCUMULATION_INTEGER_BITS, &bits);              \
    int exponent = bits + 31 - (BITS);                                                             \
    exponent = exponent < 0 ? 0 : exponent > 31 ? 31 : exponent;                                   \
    if (depth > (size_t)top + 1) {                                                                 \
      O yt[TABLE];                                                                                 \
      for (int32_t d = 0; d <= top; d++)                                                           \
        yt[d] =                                                                                    \
            (O)ap_kq_clamp(ap_kq_rdbpot(ap_kq_srdhm(scale, e[d]), exponent) + (LO), (LO), (HI));   \
      for (size_t c = 0; c < depth; c++)                                                           \
        yr[c] = yt[max - xr[c]];                                                                   \
      continue;                                                                                    \
    }                                                                                              \
    for (size_t c = 0; c < depth; c++)                                                             \
      yr[c] = (O)ap_kq_clamp(ap_kq_rdbpot(ap_kq_srdhm(scale, e[max - xr[c]]), exponent) + (LO),    \
                             (LO), (HI));                                                          \
  }

bool ap_fast_softmax_eval(const ap_kexec *x, const ap_softmax_params *p, const ap_ktensor *in,
                          ap_ktensor *out, void *scratch, ap_status *s) {
  size_t n;
  if (!applies(x, p, in, out, &n)) return false;
  if (!in->data || !out->data || !scratch || !ap_kshape_is(in, &p->in_shape) ||
      !ap_kshape_is(out, &p->out_shape) ||
      !((in->type == AP_INT8 && (out->type == AP_INT8 || out->type == AP_INT16)) ||
        (in->type == AP_UINT8 && out->type == AP_UINT8))) {
    *s = AP_ERR_ARG;
    return true;
  }
  int32_t *e = scratch;
  size_t depth = (size_t)in->dims[in->rank - 1], outer = n / depth;
  if (in->type == AP_UINT8) {
    SOFTMAX_ROWS(uint8_t, uint8_t, 0, 255, 8)
  } else if (out->type == AP_INT8) {
    SOFTMAX_ROWS(int8_t, int8_t, -128, 127, 8)
  } else {
    SOFTMAX_ROWS(int8_t, int16_t, -32768, 32767, 16)
  }
  *s = AP_OK;
  return true;
}

#else
typedef int ap_softmax_fast_unused; /* x86-64 only */
#endif
