/* Row ranges of the uint8 CONV_2D (TFLite's legacy per-tensor kernel) over rings (rows.h): the
 * whole-tensor driver's product over output pixels (u8_conv.c) reading the input ring's slots
 * and writing the output ring's, on weights packed once per segment run (kept), packed at each
 * call (in its scratch) or read in place, as the caller's `how` (AP_FAST_PACK_*) and the
 * driver's rule (packing pays over at least 128 output pixels) allow. */
#include "kernels/fast/fastops.h"
#include "kernels/fast/rows.h"

#include <string.h>

typedef struct ru8 {
  const ap_fastops *ops;
  size_t a, packed; /* bytes: the patch rows; the packed weights (0: read in place) */
  bool each;        /* packed at each call, after the patch rows */
} ru8;

static bool plan(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                 const ap_ktensor *f, unsigned how, ru8 *pl) {
  if (!x || !x->level || !x->level->ops || !x->level->ops->u8gemm || !p ||
      p->kind != AP_KCONV_UINT8 || !in || !f || in->rank != 4 || f->rank != 4 ||
      p->out_shape.rank != 4 || in->dims[0] != 1 || p->out_shape.dims[0] != 1 ||
      f->dims[3] != in->dims[3] || f->dims[0] <= 0 || f->dims[0] != p->out_shape.dims[3] ||
      x->level->ops->mr <= 0 || x->level->ops->kalign <= 0)
    return false;
  const ap_fastops *ops = x->level->ops;
  int64_t k = (int64_t)f->dims[1] * f->dims[2] * f->dims[3];
  int64_t m = (int64_t)p->out_shape.dims[1] * p->out_shape.dims[2];
  if (k <= 0 || k > INT32_MAX / 4 || m <= 0) return false;
  int64_t kp = (k + ops->kalign - 1) / ops->kalign * ops->kalign;
  memset(pl, 0, sizeof *pl);
  pl->ops = ops;
  if (!ap_mul_size((size_t)ops->mr * sizeof(int16_t), (size_t)kp, &pl->a)) return false;
  pl->a = ap_kscratch_round(pl->a);
  if ((how & (AP_FAST_PACK_ONCE | AP_FAST_PACK_EACH)) && ops->u8gemm_packed && ops->u8pack &&
      ops->u8pack_bytes && x->level->outer && m >= 128) {
    size_t packed = ops->u8pack_bytes(f->dims[0], (int32_t)k);
    /* Kept over the segment run: up to a small amount or a third of the output map. */
    size_t budget = (size_t)m * (size_t)f->dims[0] / 3;
    if (budget < AP_FAST_ROWS_PACKED_MAX) budget = AP_FAST_ROWS_PACKED_MAX;
    if (!(how & AP_FAST_PACK_BUDGET) || packed <= budget) {
      pl->packed = ap_kscratch_round(packed);
      pl->each = how & AP_FAST_PACK_EACH;
    }
  }
  return pl->packed < SIZE_MAX / 4;
}

bool ap_fast_u8conv_rows_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                                 const ap_ktensor *f, unsigned how, size_t *keep, size_t *temp) {
  ru8 pl;
  if (!plan(x, p, in, f, how, &pl)) return false;
  *keep = pl.each ? 0 : pl.packed;
  *temp = pl.a + (pl.each ? pl.packed : 0);
  return true;
}

ap_status ap_fast_u8conv_rows_begin(const ap_kexec *x, const ap_conv_params *p,
                                    const ap_ktensor *in, const ap_ktensor *f, unsigned how,
                                    void *keep) {
  ru8 pl;
  if (!plan(x, p, in, f, how, &pl)) return AP_ERR_UNSUPPORTED;
  if (!pl.packed || pl.each) return AP_OK;
  if (!f->data || !keep) return AP_ERR_ARG;
  /* (u8pack reads the weights' shape, bytes and offset only) */
  ap_u8gemm g = {
      f->dims[0], f->dims[1] * f->dims[2] * f->dims[3], 0, f->data, NULL, p->filter_offset, {0}};
  pl.ops->u8pack(&g, keep);
  return AP_OK;
}

ap_status ap_fast_u8conv_rows(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                              const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                              unsigned how, const void *keep, void *temp, const ap_krows *rows) {
  ru8 pl;
  if (!plan(x, p, in, f, how, &pl)) return AP_ERR_UNSUPPORTED;
  if (!rows || !out || !in->data || !f->data || !out->data || (bias && !bias->data) || !temp ||
      (pl.packed && !pl.each && !keep) || !ap_kshape_is(in, &p->in_shape) ||
      !ap_kshape_is(f, &p->in2_shape) || !ap_kshape_is(out, &p->out_shape) ||
      !ap_krows_fit(rows, in, out))
    return AP_ERR_ARG;
  /* An input ring must hold every row one output row's window reaches. */
  int32_t eff = (f->dims[1] - 1) * p->dilation_h + 1;
  if (rows->in_ring && rows->in_ring < (eff < in->dims[1] ? eff : in->dims[1])) return AP_ERR_ARG;
  ap_u8conv_run r;
  ap_fast_u8conv_init(&r, pl.ops, p, in, f, bias, out);
  r.in_ring = rows->in_ring;
  r.out_ring = rows->out_ring;
  int16_t *a = temp;
  memset(a, 0, pl.a);
  if (pl.each) {
    void *packed = (uint8_t *)temp + pl.a;
    pl.ops->u8pack(&r.g, packed);
    r.packed = packed;
  } else if (pl.packed) {
    r.packed = keep;
  }
  int64_t ow = out->dims[2];
  ap_fast_u8conv_pixels(&r, a, rows->r0 * ow, rows->r1 * ow);
  return AP_OK;
}
