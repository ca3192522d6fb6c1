/* FULLY_CONNECTED int8 (per-tensor and per-channel): units are split over the tasks. Weights
 * are read in place (with one batch, packing them would cost as much as the product) and the
 * input offset is added on the fly: the scratch is the reference's (per-channel multipliers). */
#include "kernels/fast/fast.h"

static bool applies(const ap_kexec *x, const ap_fc_params *p) {
  return x && x->level && x->level->fc &&
         (p->kind == AP_KFC_INT8 || p->kind == AP_KFC_INT8_PER_CHANNEL) && p->accum_depth > 0 &&
         p->units > 0 && p->batches > 0;
}

bool ap_fast_fc_scratch(const ap_kexec *x, const ap_fc_params *p, size_t *scratch) {
  if (!applies(x, p)) return false;
  *scratch = p->scratch_bytes; /* as the reference's */
  return true;
}

typedef struct fc_job {
  const ap_qfc *f;
  const ap_fast_level *l;
  int tasks;
} fc_job;

static void fc_task(void *arg, int task) {
  const fc_job *j = arg;
  int32_t units = j->f->units;
  int32_t u0 = (int32_t)((int64_t)units * task / j->tasks);
  int32_t u1 = (int32_t)((int64_t)units * (task + 1) / j->tasks);
  if (u0 < u1) j->l->fc(j->f, u0, u1);
}

bool ap_fast_fc_eval(const ap_kexec *x, const ap_fc_params *p, const ap_ktensor *in,
                     const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                     ap_status *s) {
  if (!p || !in || !f || !out || !applies(x, p)) return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) ||
      (p->scratch_bytes && !scratch) || !ap_kshape_is(in, &p->in_shape) ||
      !ap_kshape_is(f, &p->in2_shape) || !ap_kshape_is(out, &p->out_shape)) {
    *s = AP_ERR_ARG;
    return true;
  }
  int32_t *mult = NULL, *shift = NULL;
  if (p->kind == AP_KFC_INT8_PER_CHANNEL) {
    mult = scratch;
    shift = mult + p->units;
    ap_fast_channel_multipliers(p->input_scale, f, p->output_scale, p->units, mult, shift);
  }
  ap_qfc q = {in->data,
              f->data,
              bias ? bias->data : NULL,
              out->data,
              p->batches,
              p->accum_depth,
              p->units,
              p->input_offset,
              p->filter_offset,
              p->output_offset,
              p->act_min,
              p->act_max,
              mult,
              shift,
              p->output_multiplier,
              p->output_shift};
  /* A quarter of the multiply-adds: a product of one batch row runs at some 30 multiply-adds
   * per ns at avx2 and a region cost 1-2.5 us on this project's loaded 2-vCPU machine, far
   * above a convolution's (mlperf_ad_fc_int8, per-op profiles, 2 threads against 1,
   * interleaved: its 640 x 128 products, 82 K, went from 2.7 us to 3.5-4 us when split, its 128
   * x 128 ones from 0.8 to 1.1 us under the former 5x weight). So an op splits from 256 K
   * (some 9 us on one thread): mobilenet's 1280 x 1000 classifier still does. */
  uint64_t work = (uint64_t)p->batches * (uint64_t)p->units * (uint64_t)p->accum_depth / 4;
  int64_t blocks = (p->units + 15) / 16;
  fc_job j = {&q, x->level, ap_fast_chunks(ap_fast_tasks(x, work, blocks), 4, blocks)};
  ap_fast_parallel(x, fc_task, &j, j.tasks);
  *s = AP_OK;
  return true;
}
