/* Float ADD, SUB and MUL with broadcasting through the level's row kernel. The output's
 * dimensions are merged, innermost first, while each input keeps the same role in them (read
 * along, or broadcast), so a row is as long as the broadcast allows; the rows are split over the
 * tasks. Each element is one operation and the clamp, as the reference's. */
#include "kernels/fast/fast.h"

typedef struct fbin_job {
  const ap_binary_params *p;
  const float *a, *b;
  float *out;
  int groups;
  size_t len[AP_KMAXDIMS], sa[AP_KMAXDIMS], sb[AP_KMAXDIMS]; /* group 0 innermost: the row */
  size_t rows;
  int tasks;
  const ap_fast_level *l;
} fbin_job;

static void fbin_task(void *arg, int task) {
  const fbin_job *j = arg;
  size_t r0 = j->rows * (size_t)task / (size_t)j->tasks;
  size_t r1 = j->rows * (size_t)(task + 1) / (size_t)j->tasks;
  for (size_t r = r0; r < r1; r++) {
    size_t ia = 0, ib = 0, rest = r;
    for (int g = 1; g < j->groups; g++) {
      size_t i = rest % j->len[g];
      rest /= j->len[g];
      ia += i * j->sa[g];
      ib += i * j->sb[g];
    }
    j->l->fbin(j->p->op, j->a + ia, j->sa[0], j->b + ib, j->sb[0], j->out + r * j->len[0],
               j->len[0], j->p->fact_min, j->p->fact_max);
  }
}

bool ap_fast_fbin_eval(const ap_kexec *x, const ap_binary_params *p, const ap_ktensor *a,
                       const ap_ktensor *b, ap_ktensor *out, ap_status *s) {
  size_t n;
  if (!x || !x->level || !x->level->fbin || !p || !a || !b || !out ||
      (p->op != AP_KBIN_ADD && p->op != AP_KBIN_SUB && p->op != AP_KBIN_MUL) ||
      a->type != AP_FLOAT32 || b->type != AP_FLOAT32 || out->type != AP_FLOAT32 ||
      !ap_kshape_is(a, &p->in_shape) || !ap_kshape_is(b, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape) || !ap_ktensor_count(out, &n) || n == 0 || !a->data ||
      !b->data || !out->data || out->rank > AP_KMAXDIMS)
    return false;
  fbin_job j = {p, a->data, b->data, out->data, 0, {0}, {0}, {0}, 1, 1, x->level};
  /* Per output dim (innermost first): its length and each input's stride (0: broadcast). */
  size_t ta = 1, tb = 1;
  int last = -1; /* the role pair of the current group: 2 * (a read) + (b read) */
  for (int i = out->rank - 1; i >= 0; i--) {
    int32_t d = out->dims[i], da = ap_ktensor_dim_ext(a, out->rank, i),
            db = ap_ktensor_dim_ext(b, out->rank, i);
    if (d == 1) continue; /* no effect on any index */
    int role = (da != 1) * 2 + (db != 1);
    if (role != last) {
      j.len[j.groups] = 1;
      j.sa[j.groups] = da != 1 ? ta : 0;
      j.sb[j.groups] = db != 1 ? tb : 0;
      j.groups++;
      last = role;
    }
    j.len[j.groups - 1] *= (size_t)d;
    if (da != 1) ta *= (size_t)da;
    if (db != 1) tb *= (size_t)db;
  }
  if (j.groups == 0) { /* a single element */
    j.groups = 1;
    j.len[0] = 1;
  }
  /* The row's strides are 0 or 1 (the innermost group of a read input is contiguous). */
  j.rows = n / j.len[0];
  j.tasks = ap_fast_tasks(x, (uint64_t)n * 2, (int64_t)(n / 4096 < j.rows ? n / 4096 : j.rows));
  ap_fast_parallel(x, fbin_task, &j, j.tasks);
  *s = AP_OK;
  return true;
}
