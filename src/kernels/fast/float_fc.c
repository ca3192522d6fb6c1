/* Float FULLY_CONNECTED through the level's kernels. Few batches: the fully connected kernel,
 * weights read in place, units split over the tasks. Many batches (AP_FFC_PACK_MIN): the
 * convolution's, as a 1x1 convolution over a row of `batches` pixels (the same sum per output:
 * over the depth in order from 0.0f, then the bias), weights packed into scratch at each eval
 * (as the convolution's, a cost spread over the batches), batches split over the tasks. */
#include "kernels/fast/fast.h"

#include <string.h>

enum { AP_FFC_PACK_MIN = 8 };

static int32_t lanes(const ap_kexec *x) {
  return x->level->fconv_lanes > 0 ? x->level->fconv_lanes : 8;
}

/* On a flat level (ap_fast_level_flat) with a fully connected kernel, never: the weights are read
 * in place, no scratch. */
static bool packs(const ap_kexec *x, const ap_fc_params *p) {
  return x && x->level && x->level->fconv && p->kind == AP_KFC_FLOAT &&
         !(ap_fast_level_flat(x->level) && x->level->ffc) && p->batches >= AP_FFC_PACK_MIN &&
         p->accum_depth > 0 && p->units > 0;
}

/* The packed weights, then `depth` zeros (the convolution's layout). */
static bool packed_size(const ap_kexec *x, const ap_fc_params *p, size_t *bytes) {
  size_t L = (size_t)lanes(x), panels = ((size_t)p->units + L - 1) / L, w;
  return ap_mul_size((size_t)p->accum_depth, panels * L * sizeof(float), &w) &&
         ap_add_size(ap_kscratch_round(w), (size_t)p->accum_depth * sizeof(float), bytes);
}

bool ap_fast_ffc_scratch(const ap_kexec *x, const ap_fc_params *p, size_t *scratch) {
  size_t bytes;
  if (!packs(x, p) || !packed_size(x, p, &bytes)) return false;
  *scratch = bytes > *scratch ? bytes : *scratch;
  return true;
}

typedef struct pfc_job {
  const ap_fconv *c;
  const ap_fast_level *l;
  int32_t tasks;
} pfc_job;

static void pfc_task(void *arg, int task) {
  const pfc_job *j = arg;
  int32_t b0 = (int32_t)((int64_t)j->c->out_w * task / j->tasks);
  int32_t b1 = (int32_t)((int64_t)j->c->out_w * (task + 1) / j->tasks);
  if (b0 >= b1) return;
  ap_fconv c = *j->c; /* this task's batches as a narrower row */
  c.in += (size_t)b0 * c.in_d;
  c.out += (size_t)b0 * c.out_d;
  c.in_w = c.out_w = b1 - b0;
  j->l->fconv(&c, 0, 1);
}

static void packed(const ap_kexec *x, const ap_fc_params *p, const ap_ktensor *in,
                   const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch) {
  int32_t n = p->units, L = lanes(x), d = p->accum_depth;
  size_t k = (size_t)d, panels = ((size_t)n + (size_t)L - 1) / (size_t)L;
  float *wp = scratch;
  float *zeros = (float *)((char *)scratch + ap_kscratch_round(panels * k * (size_t)L * 4));
  memset(zeros, 0, k * sizeof(float));
  bool finite =
      (x->level->fconv_pack ? x->level->fconv_pack : ap_fast_fconv_pack)(f->data, n, k, L, wp);
  /* the batches as one row of 1x1 pixels */
  ap_fconv c = {.in = in->data,
                .wp = wp,
                .bias = bias ? bias->data : NULL,
                .out = out->data,
                .geom = {.in_h = 1,
                         .in_w = p->batches,
                         .in_d = d,
                         .out_h = 1,
                         .out_w = p->batches,
                         .out_d = n,
                         .f_h = 1,
                         .f_w = 1,
                         .stride_h = 1,
                         .stride_w = 1,
                         .dil_h = 1,
                         .dil_w = 1},
                .lo = p->fact_min,
                .hi = p->fact_max,
                .zeros = zeros,
                .finite = finite};
  uint64_t work = (uint64_t)p->batches * (uint64_t)n * k;
  pfc_job j = {&c, x->level, ap_fast_tasks(x, work, (p->batches + 7) / 8)};
  ap_fast_parallel(x, pfc_task, &j, j.tasks);
}

typedef struct ffc_job {
  const ap_ffc *f;
  const ap_fast_level *l;
  int tasks;
} ffc_job;

static void ffc_task(void *arg, int task) {
  const ffc_job *j = arg;
  /* Whole groups of 8 units per task, so the kernels' lanes stay full. */
  int32_t groups = (j->f->units + 7) / 8;
  int32_t u0 = (int32_t)((int64_t)groups * task / j->tasks) * 8;
  int32_t u1 = (int32_t)((int64_t)groups * (task + 1) / j->tasks) * 8;
  if (u1 > j->f->units) u1 = j->f->units;
  if (u0 < u1) j->l->ffc(j->f, u0, u1);
}

bool ap_fast_ffc_eval(const ap_kexec *x, const ap_fc_params *p, const ap_ktensor *in,
                      const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                      ap_status *s) {
  if (!x || !x->level || !x->level->ffc || !p || p->kind != AP_KFC_FLOAT || !in || !f || !out ||
      p->accum_depth <= 0 || p->units <= 0 || p->batches <= 0)
    return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape) || (packs(x, p) && !scratch)) {
    *s = AP_ERR_ARG;
    return true;
  }
  if (packs(x, p)) {
    packed(x, p, in, f, bias, out, scratch);
    *s = AP_OK;
    return true;
  }
  ap_ffc q = {in->data,  f->data,     bias ? bias->data : NULL,
              out->data, p->batches,  p->accum_depth,
              p->units,  p->fact_min, p->fact_max};
  uint64_t work = (uint64_t)p->batches * (uint64_t)p->units * (uint64_t)p->accum_depth;
  ffc_job j = {&q, x->level, ap_fast_tasks(x, work, (p->units + 15) / 16)};
  ap_fast_parallel(x, ffc_task, &j, j.tasks);
  *s = AP_OK;
  return true;
}
