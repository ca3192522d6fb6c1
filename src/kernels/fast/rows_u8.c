/* Row ranges of the uint8 CONV_2D (TFLite's legacy per-tensor kernel) over rings (rows.h): a
 * matrix product over patch rows built from the ring's slots (input + offset as int16, zeros
 * where the reference skips a padded tap), times the weights read in place by the level's
 * product (no packing: nothing is kept over the segment). */
#include "kernels/fast/fastops.h"
#include "kernels/fast/rows.h"

#include <string.h>

typedef struct ru8 {
  const ap_fastops *ops;
  int32_t n, k, kp;
  size_t temp;
} ru8;

static bool plan(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                 const ap_ktensor *f, ru8 *pl) {
  if (!x || !x->level || !x->level->ops || !x->level->ops->u8gemm || !p ||
      p->kind != AP_KCONV_UINT8 || !in || !f || in->rank != 4 || f->rank != 4 ||
      p->out_shape.rank != 4 || in->dims[0] != 1 || f->dims[3] != in->dims[3] || f->dims[0] <= 0 ||
      x->level->ops->mr <= 0 || x->level->ops->kalign <= 0)
    return false;
  int64_t k = (int64_t)f->dims[1] * f->dims[2] * f->dims[3];
  if (k <= 0 || k > INT32_MAX / 4) return false;
  pl->ops = x->level->ops;
  pl->n = f->dims[0];
  pl->k = (int32_t)k;
  pl->kp = (int32_t)((k + pl->ops->kalign - 1) / pl->ops->kalign * pl->ops->kalign);
  return ap_mul_size((size_t)pl->ops->mr * sizeof(int16_t), (size_t)pl->kp, &pl->temp);
}

bool ap_fast_u8conv_rows_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                                 const ap_ktensor *f, size_t *temp) {
  ru8 pl;
  if (!plan(x, p, in, f, &pl)) return false;
  *temp = pl.temp;
  return true;
}

static void widen(int16_t *dst, const uint8_t *src, size_t n, int16_t off) {
  for (size_t i = 0; i < n; i++)
    dst[i] = (int16_t)(src[i] + off);
}

/* The patch of output pixel (oy, ox) into a (k values; a's tail past k stays zero). */
static void patch(const ap_conv_params *p, const ap_ktensor *in, const ap_ktensor *f,
                  int32_t in_ring, int32_t oy, int32_t ox, int16_t *a) {
  int32_t in_h = in->dims[1], in_w = in->dims[2], f_h = f->dims[1], f_w = f->dims[2];
  int32_t y0 = oy * p->stride_h - p->pad.pad_h, x0 = ox * p->stride_w - p->pad.pad_w;
  size_t d = (size_t)in->dims[3], run = (size_t)f_w * d, rowb = (size_t)in_w * d;
  int16_t off = (int16_t)p->input_offset;
  bool row_inside = x0 >= 0 && x0 + p->dilation_w * (f_w - 1) < in_w;
  for (int32_t fy = 0; fy < f_h; fy++) {
    int32_t iy = y0 + p->dilation_h * fy;
    int16_t *dst = a + (size_t)fy * run;
    if (iy < 0 || iy >= in_h) {
      memset(dst, 0, run * sizeof *dst);
      continue;
    }
    const uint8_t *src =
        (const uint8_t *)in->data + (size_t)RING_SLOT(iy, in_ring ? in_ring : INT32_MAX) * rowb;
    if (row_inside && p->dilation_w == 1) {
      widen(dst, src + (size_t)x0 * d, run, off);
      continue;
    }
    for (int32_t fx = 0; fx < f_w; fx++, dst += d) {
      int32_t ix = x0 + p->dilation_w * fx;
      if (ix < 0 || ix >= in_w)
        memset(dst, 0, d * sizeof *dst);
      else
        widen(dst, src + (size_t)ix * d, d, off);
    }
  }
}

ap_status ap_fast_u8conv_rows(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                              const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                              void *temp, const ap_krows *rows) {
  ru8 pl;
  if (!plan(x, p, in, f, &pl)) return AP_ERR_UNSUPPORTED;
  if (!rows || !out || !in->data || !f->data || !out->data || (bias && !bias->data) || !temp ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape) || !ap_krows_fit(rows, in, out))
    return AP_ERR_ARG;
  /* An input ring must hold every row one output row's window reaches. */
  int32_t eff = (f->dims[1] - 1) * p->dilation_h + 1;
  if (rows->in_ring && rows->in_ring < (eff < in->dims[1] ? eff : in->dims[1])) return AP_ERR_ARG;
  ap_u8gemm g = {pl.n,
                 pl.k,
                 pl.kp,
                 f->data,
                 bias ? bias->data : NULL,
                 p->filter_offset,
                 {p->output_multiplier, p->output_shift, p->output_offset, p->act_min, p->act_max}};
  int16_t *a = temp;
  int32_t mr = pl.ops->mr, ow = out->dims[2];
  memset(a, 0, pl.temp);
  size_t out_row = (size_t)ow * (size_t)pl.n;
  for (int32_t oy = rows->r0; oy < rows->r1; oy++) {
    uint8_t *o = (uint8_t *)out->data +
                 (size_t)RING_SLOT(oy, rows->out_ring ? rows->out_ring : INT32_MAX) * out_row;
    for (int32_t q0 = 0; q0 < ow; q0 += mr) {
      int32_t cnt = ow - q0 < mr ? ow - q0 : mr;
      for (int32_t i = 0; i < cnt; i++)
        patch(p, in, f, rows->in_ring, oy, q0 + i, a + (size_t)i * (size_t)pl.kp);
      pl.ops->u8gemm(&g, a, cnt, o + (size_t)q0 * (size_t)pl.n, (size_t)pl.n);
    }
  }
  return AP_OK;
}
