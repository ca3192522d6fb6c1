/* BATCH_MATMUL's fast path (int8, int16, float32), the registry's adapters around the
 * reference kernel (batch_matmul.c), which runs whatever this does not cover. Per broadcast
 * batch the operands are laid out once (rebuilt only when the batch moves to other data): int8
 * rows of a and columns of b as int16 with their offsets, kp long (the level's dot product
 * over them wraps as the reference's int32 sum); int16 rows of a the same without offsets and
 * columns of b split into two int8 parts for the level's exact 16x8 dot product; float a read in
 * place (strided when adj_x) and b as [k][n] (transposed into scratch when adj_y), each output
 * summed in the reference's order. */
#include "kernels/fast/fastops.h"
#include "kernels/kops.h"
#include "kernels/kops_conv16.h"
#include "kernels/registry.h"

#include <string.h>

typedef struct bmm_geo {
  int type;
  bool adj_x, adj_y;
  size_t ar, ac, br, bc, m, n, k, kp, batches;
  size_t a_at, b_at, total; /* scratch layout */
} bmm_geo;

static bool geo(const ap_kexec *x, const ap_kctx *c, bmm_geo *g) {
  if (!x || !x->level || !x->level->ops || !c || !c->params || c->n_inputs != 2 ||
      c->n_outputs < 1 || !c->inputs || !c->inputs[0] || !c->inputs[1] || !c->outputs ||
      !c->outputs[0])
    return false;
  const ap_fastops *ops = x->level->ops;
  const ap_kx_params *p = c->params;
  const ap_ktensor *a = c->inputs[0], *b = c->inputs[1], *out = c->outputs[0];
  memset(g, 0, sizeof *g);
  g->type = a->type;
  if ((g->type == AP_FLOAT32 && !ops->fmm) || (g->type == AP_INT8 && !ops->dot16x16) ||
      (g->type == AP_INT16 && !ops->dot16x8) ||
      (g->type != AP_FLOAT32 && g->type != AP_INT8 && g->type != AP_INT16) || a->rank < 2 ||
      b->rank < 2 || out->rank < 2)
    return false;
  g->adj_x = p->kind & 1;
  g->adj_y = p->kind & 2;
  g->ar = (size_t)a->dims[a->rank - 2], g->ac = (size_t)a->dims[a->rank - 1];
  g->br = (size_t)b->dims[b->rank - 2], g->bc = (size_t)b->dims[b->rank - 1];
  g->m = (size_t)out->dims[out->rank - 2], g->n = (size_t)out->dims[out->rank - 1];
  g->k = g->adj_x ? g->ar : g->ac;
  size_t align = g->type == AP_INT8 ? (size_t)ops->kalign : 1;
  g->kp = (g->k + align - 1) / align * align;
  if (g->m > INT32_MAX || g->n > INT32_MAX || g->kp > INT32_MAX / 2) return false;
  ap_ktensor bo = ap_ktensor_make(AP_FLOAT32, NULL, out->rank - 2, out->dims);
  if (!ap_ktensor_count(&bo, &g->batches)) return false;
  size_t rows, bytes;
  if (g->type == AP_FLOAT32) {
    if (!g->adj_y) return true; /* b read in place */
    if (!ap_mul_size(g->k, g->n, &bytes) || !ap_mul_size(bytes, sizeof(float), &bytes))
      return false;
    g->b_at = 0;
    g->total = ap_kscratch_round(bytes);
    return bytes <= SIZE_MAX - AP_KSCRATCH_ALIGN;
  }
  if (!ap_add_size(g->m, g->n, &rows) || !ap_mul_size(rows, g->kp, &bytes) ||
      !ap_mul_size(bytes, sizeof(int16_t), &bytes) || bytes > SIZE_MAX - 2 * AP_KSCRATCH_ALIGN)
    return false;
  g->a_at = 0;
  g->b_at = ap_kscratch_round(g->m * g->kp * sizeof(int16_t));
  g->total = g->b_at + ap_kscratch_round(g->n * g->kp * sizeof(int16_t));
  return true;
}

static bool bmm_need(const ap_kexec *x, ap_kctx *c, size_t *scratch) {
  bmm_geo g;
  if (!geo(x, c, &g)) return false;
  *scratch = g.total;
  return true;
}

ap_status ap_fast_bmm_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_batch_matmul_prepare(c, scratch);
  ap_fast_small tmp;
  if (s == AP_OK) ap_fast_bounded(c, bmm_need, *scratch, false, &tmp, scratch);
  return s;
}

/* Operand rows as int16 (value + offset), zeros past k: a's m rows or b's n columns. */
static void rows16(const void *src, bool s8, size_t count, size_t k, size_t kp, size_t along_k,
                   size_t along_row, int32_t off, int16_t *dst) {
  for (size_t r = 0; r < count; r++) {
    int16_t *d = dst + r * kp;
    for (size_t q = 0; q < k; q++) {
      size_t at = r * along_row + q * along_k;
      int32_t v = s8 ? ((const int8_t *)src)[at] : ((const int16_t *)src)[at];
      d[q] = (int16_t)(v + off);
    }
    memset(d + k, 0, (kp - k) * sizeof *d);
  }
}

/* int16 columns of b as two int8 rows each, v = 256 * hi + lo + 128, so each part goes through
 * the level's exact 16x8 dot product. */
static void split16(const int16_t *src, size_t count, size_t k, size_t kp, size_t along_k,
                    size_t along_row, int8_t *hi, int8_t *lo) {
  for (size_t r = 0; r < count; r++)
    for (size_t q = 0; q < kp; q++) {
      uint32_t u = (uint32_t)((q < k ? src[r * along_row + q * along_k] : 0) + 32768);
      hi[r * kp + q] = (int8_t)((int32_t)(u >> 8) - 128); /* floor(v / 256) */
      lo[r * kp + q] = (int8_t)((int32_t)(u & 255) - 128);
    }
}

/* One batch's rows [i0, i1) of the quantized product, from the laid-out operands. */
typedef struct qrows_job {
  const ap_fastops *ops;
  const ap_kx_params *p;
  const bmm_geo *g;
  const int16_t *ra, *rb;
  const int8_t *hi, *lo;
  void *out; /* this batch's output */
  int tasks;
} qrows_job;

static void qrows_task(void *arg, int task) {
  const qrows_job *j = arg;
  const bmm_geo *g = j->g;
  const ap_kx_params *p = j->p;
  bool s8 = g->type == AP_INT8;
  size_t i0 = g->m * (size_t)task / (size_t)j->tasks;
  size_t i1 = g->m * (size_t)(task + 1) / (size_t)j->tasks;
  for (size_t i = i0; i < i1; i++) {
    const int16_t *u = j->ra + i * g->kp;
    int64_t usum = 0;
    for (size_t q = 0; !s8 && q < g->k; q++)
      usum += u[q];
    for (size_t jj = 0; jj < g->n; jj++) {
      int32_t r;
      if (s8) {
        r = ap_kq_mul(j->ops->dot16x16(u, j->rb + jj * g->kp, (int32_t)g->kp), p->q_mult[0],
                      p->q_shift[0]);
      } else {
        int64_t total = 256 * j->ops->dot16x8(u, j->hi + jj * g->kp, (int32_t)g->k) +
                        j->ops->dot16x8(u, j->lo + jj * g->kp, (int32_t)g->k) + 128 * usum;
        r = ap_kq_mul64(total, p->q_mult[0], p->q_shift[0]);
      }
      r = ap_kq_clamp((int32_t)((uint32_t)r + (uint32_t)p->q_offset[2]), p->imin, p->imax);
      if (s8)
        ((int8_t *)j->out)[i * g->n + jj] = (int8_t)r;
      else
        ((int16_t *)j->out)[i * g->n + jj] = (int16_t)r;
    }
  }
}

static void quantized(const ap_kexec *x, const ap_kx_params *p, const bmm_geo *g,
                      const ap_ktensor *a, const ap_ktensor *b, ap_ktensor *out, uint8_t *sc) {
  const ap_fastops *ops = x->level->ops;
  bool s8 = g->type == AP_INT8;
  size_t es = s8 ? 1 : 2;
  int16_t *ra = (int16_t *)(sc + g->a_at), *rb = (int16_t *)(sc + g->b_at);
  int8_t *hi = (int8_t *)rb, *lo = hi + g->n * g->kp;
  ap_ktensor ba = ap_ktensor_make(a->type, NULL, a->rank - 2, a->dims);
  ap_ktensor bb = ap_ktensor_make(b->type, NULL, b->rank - 2, b->dims);
  ap_ktensor bo = ap_ktensor_make(AP_FLOAT32, NULL, out->rank - 2, out->dims);
  const ap_ktensor *bins[2] = {&ba, &bb};
  ap_kbcast it;
  ap_kbcast_init(&it, bins, 2, &bo);
  size_t last_a = SIZE_MAX, last_b = SIZE_MAX;
  int32_t off_a = s8 ? p->q_offset[0] : 0, off_b = s8 ? p->q_offset[1] : 0;
  int tasks = ap_fast_tasks(x, (uint64_t)g->m * g->n * g->k, (int64_t)g->m);
  for (size_t bi = 0; bi < g->batches; bi++, ap_kbcast_next(&it)) {
    if (it.off[0] != last_a) {
      const uint8_t *src = (const uint8_t *)a->data + it.off[0] * g->ar * g->ac * es;
      rows16(src, s8, g->m, g->k, g->kp, g->adj_x ? g->ac : 1, g->adj_x ? 1 : g->ac, off_a, ra);
      last_a = it.off[0];
    }
    if (it.off[1] != last_b) {
      const uint8_t *src = (const uint8_t *)b->data + it.off[1] * g->br * g->bc * es;
      if (s8)
        rows16(src, s8, g->n, g->k, g->kp, g->adj_y ? 1 : g->bc, g->adj_y ? g->bc : 1, off_b, rb);
      else
        split16((const int16_t *)src, g->n, g->k, g->kp, g->adj_y ? 1 : g->bc, g->adj_y ? g->bc : 1,
                hi, lo);
      last_b = it.off[1];
    }
    qrows_job j = {ops, p, g, ra, rb, hi, lo, (uint8_t *)out->data + bi * g->m * g->n * es, tasks};
    ap_fast_parallel(x, qrows_task, &j, tasks);
  }
}

/* One batch's rows [i0, i1) of the float product. */
typedef struct frows_job {
  const ap_fastops *ops;
  const bmm_geo *g;
  const float *xa, *yb;
  float *out;
  int tasks;
} frows_job;

static void frows_task(void *arg, int task) {
  const frows_job *j = arg;
  const bmm_geo *g = j->g;
  size_t i0 = g->m * (size_t)task / (size_t)j->tasks;
  size_t i1 = g->m * (size_t)(task + 1) / (size_t)j->tasks;
  size_t a_row = g->adj_x ? 1 : g->ac, a_col = g->adj_x ? g->ac : 1;
  if (i0 < i1)
    j->ops->fmm(j->xa + i0 * a_row, a_row, a_col, j->yb, j->out + i0 * g->n, (int32_t)(i1 - i0),
                (int32_t)g->n, (int32_t)g->k);
}

static void floats(const ap_kexec *x, const bmm_geo *g, const ap_ktensor *a, const ap_ktensor *b,
                   ap_ktensor *out, uint8_t *sc) {
  ap_ktensor ba = ap_ktensor_make(a->type, NULL, a->rank - 2, a->dims);
  ap_ktensor bb = ap_ktensor_make(b->type, NULL, b->rank - 2, b->dims);
  ap_ktensor bo = ap_ktensor_make(AP_FLOAT32, NULL, out->rank - 2, out->dims);
  const ap_ktensor *bins[2] = {&ba, &bb};
  ap_kbcast it;
  ap_kbcast_init(&it, bins, 2, &bo);
  float *bt = sc ? (float *)(sc + g->b_at) : NULL; /* no scratch: adj_y is false */
  int tasks = ap_fast_tasks(x, (uint64_t)g->m * g->n * g->k, (int64_t)g->m);
  size_t last_b = SIZE_MAX;
  for (size_t bi = 0; bi < g->batches; bi++, ap_kbcast_next(&it)) {
    const float *xa = (const float *)a->data + it.off[0] * g->ar * g->ac;
    const float *yb = (const float *)b->data + it.off[1] * g->br * g->bc;
    if (g->adj_y) {
      if (it.off[1] != last_b)
        for (size_t q = 0; q < g->k; q++)
          for (size_t j = 0; j < g->n; j++)
            bt[q * g->n + j] = yb[j * g->bc + q];
      last_b = it.off[1];
      yb = bt;
    }
    frows_job j = {x->level->ops, g, xa, yb, (float *)out->data + bi * g->m * g->n, tasks};
    ap_fast_parallel(x, frows_task, &j, tasks);
  }
}

ap_status ap_fast_bmm_eval(ap_kctx *c) {
  ap_fast_small tmp;
  size_t bytes;
  bmm_geo g;
  const ap_kexec *x = ap_fast_bounded(c, bmm_need, 0, true, &tmp, &bytes);
  if (!x || !c->params || !geo(x, c, &g)) return ap_kx_batch_matmul_eval(c);
  const ap_kx_params *p = c->params;
  const ap_ktensor *a = c->inputs[0], *b = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  if (!a->data || !b->data || !out->data || !ap_kshape_is(a, &p->in_shape) ||
      !ap_kshape_is(b, &p->in2_shape) || !ap_kshape_is(out, &p->out_shape) ||
      (g.total && !c->scratch))
    return AP_ERR_ARG;
  if (g.type != AP_FLOAT32 && !c->scratch) /* no rows to stage (an empty product) */
    return ap_kx_batch_matmul_eval(c);
  if (g.type == AP_FLOAT32)
    floats(x, &g, a, b, out, c->scratch);
  else
    quantized(x, p, &g, a, b, out, c->scratch);
  return AP_OK;
}
