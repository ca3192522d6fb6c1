/* Float CONV_2D and ADD/SUB through the level's kernels: the weights are packed into panels of
 * 8 output channels in scratch at each eval; rows of the output are split over the threads. */
#include "kernels/fast/fast.h"

#include <stdint.h>
#include <string.h>

static bool applies(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                    const ap_ktensor *f) {
  return x && x->level && x->level->fconv && p->kind == AP_KCONV_FLOAT && in->rank == 4 &&
         f->rank == 4 && p->out_shape.rank == 4 && f->dims[3] == in->dims[3];
}

static int32_t lanes(const ap_kexec *x) {
  return x->level->fconv_lanes > 0 ? x->level->fconv_lanes : 8;
}

/* The low-scratch variant: on a flat level (ap_fast_level_flat) packs a few taps of one filter
 * row at a time and runs the filter as passes of a 1-row convolution over those taps, each
 * output's sum carried from pass to pass in the output (ap_fconv.accum, .partial): scratch for
 * a pass's weights instead of the whole filter's. */
static bool by_taps(const ap_kexec *x, const ap_ktensor *f) {
  return ap_fast_level_flat(x->level) && f->dims[1] * f->dims[2] > 1;
}

/* Taps per pass: those of a filter row whose weights fit in AP_FTAP_BYTES, at least one. Each pass
 * costs its sums' loads and stores and the loops' setup, a large share where a tap is little
 * work (few channels): there two taps a pass take a third of the passes for 2 KiB at most. */
enum { AP_FTAP_BYTES = 2048 };
static int32_t pass_taps(const ap_kexec *x, const ap_ktensor *f) {
  size_t L = (size_t)lanes(x), tap = ((size_t)f->dims[0] + L - 1) / L * L * (size_t)f->dims[3] * 4;
  size_t run = tap && tap < AP_FTAP_BYTES ? AP_FTAP_BYTES / tap : 1;
  return run < (size_t)f->dims[2] ? (int32_t)run : f->dims[2];
}

/* Packed weights (all, or a pass's), then in_d zeros; an empty filter (a zero dim) is left to
 * the reference. */
static bool packed_size(const ap_kexec *x, const ap_ktensor *f, size_t *bytes) {
  if (f->dims[0] <= 0 || f->dims[1] <= 0 || f->dims[2] <= 0 || f->dims[3] <= 0) return false;
  size_t panels = ((size_t)f->dims[0] + (size_t)lanes(x) - 1) / (size_t)lanes(x), k, w;
  size_t taps = by_taps(x, f) ? (size_t)pass_taps(x, f) : (size_t)f->dims[1] * (size_t)f->dims[2];
  return ap_mul_size(taps, (size_t)f->dims[3], &k) &&
         ap_mul_size(k, panels * (size_t)lanes(x) * sizeof(float), &w) &&
         ap_add_size(ap_kscratch_round(w), (size_t)f->dims[3] * sizeof(float), bytes);
}

/* Taps [t, t + r) of one filter row (w[c][t..t+r)[0..d), filter rows of k) packed as a 1 x r
 * filter's, [panel][r][d][L], zeros past n; true when every one is finite. */
static bool pack_taps(const ap_kexec *x, const float *w, int32_t n, size_t k, size_t t, size_t r,
                      int32_t d, int32_t L, float *wp) {
  const float *src = w + t * (size_t)d;
  size_t cols = r * (size_t)d;
#ifdef AP_FAST_X86
  if (x->level->fconv_pack == ap_fast_avx2_fconv_pack) /* the x86 levels' transposes */
    return ap_fast_avx2_fconv_pack_rows(src, n, cols, k, L, wp);
#else
  (void)x;
#endif
  return ap_fast_fconv_pack_part(src, n, cols, k, L, wp, 0, (n + L - 1) / L * L, 0);
}

bool ap_fast_fconv_pack_part(const float *w, int32_t n, size_t k, size_t stride, int32_t L,
                             float *wp, int32_t c0, int32_t c1, size_t i0) {
  uint32_t bad = 0;
  for (int32_t c = c0; c < c1; c++) {
    float *dst = wp + (size_t)(c / L) * k * (size_t)L + (size_t)(c % L);
    for (size_t i = i0; i < k; i++) {
      float v = c < n ? w[(size_t)c * stride + i] : 0.0f;
      uint32_t bits;
      memcpy(&bits, &v, 4);
      bad |= (~bits & 0x7f800000u) == 0 ? 1u : 0u; /* exponent all ones: inf or NaN */
      dst[i * (size_t)L] = v;
    }
  }
  return bad == 0;
}

bool ap_fast_fconv_pack(const float *w, int32_t n, size_t k, int32_t L, float *wp) {
  return ap_fast_fconv_pack_part(w, n, k, k, L, wp, 0, (n + L - 1) / L * L, 0);
}

bool ap_fast_fconv_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                           const ap_ktensor *f, size_t *scratch) {
  size_t bytes;
  if (!applies(x, p, in, f) || !packed_size(x, f, &bytes)) return false;
  *scratch = bytes;
  return true;
}

typedef struct fconv_job {
  const ap_fconv *c;
  const ap_fast_level *l;
  int32_t rows, tasks, first; /* rows [first, first + rows) */
} fconv_job;

static void fconv_task(void *arg, int task) {
  const fconv_job *j = arg;
  int32_t r0 = (int32_t)((int64_t)j->rows * task / j->tasks);
  int32_t r1 = (int32_t)((int64_t)j->rows * (task + 1) / j->tasks);
  if (r0 < r1) j->l->fconv(j->c, j->first + r0, j->first + r1);
}

#ifndef AP_PORT_NONE /* (no threads there: one task, which takes every panel) */
/* Task t's panels of `panels` split over `tasks`, in groups of `group` where there are enough
 * for every task to have one (the level's blocks take two panels at once). */
static void task_panels(int32_t panels, int tasks, int t, int16_t *p0, int16_t *p1) {
  int32_t group = panels >= 2 * tasks ? 2 : 1, groups = (panels + group - 1) / group;
  int32_t a = (int32_t)((int64_t)groups * t / tasks) * group;
  int32_t b = (int32_t)((int64_t)groups * (t + 1) / tasks) * group;
  *p0 = (int16_t)a;
  *p1 = (int16_t)(b < panels ? b : panels);
}

/* Tasks over `panels` (at most the 16 bits of ap_fconv's panel range, else one). */
static int panel_tasks(const ap_kexec *x, uint64_t work, int32_t panels) {
  return panels <= INT16_MAX ? ap_fast_tasks(x, work, panels) : 1;
}
#endif

/* A map one pixel wide (a 1-D convolution over rows: in_w, out_w, f_w 1) has the same bytes as
 * one a row long, whose pixels the level's kernel blocks several at a time (one pixel a row
 * leaves a single chain of adds per panel): the geometry turned a quarter. Each output's sum
 * is unchanged (the same taps in the same order, filter rows becoming filter columns). */
static void column_as_row(ap_fast_geom *g) {
  int32_t t;
#define AP_SWAP(a, b) (t = g->a, g->a = g->b, g->b = t)
  AP_SWAP(in_h, in_w);
  AP_SWAP(out_h, out_w);
  AP_SWAP(f_h, f_w);
  AP_SWAP(stride_h, stride_w);
  AP_SWAP(dil_h, dil_w);
  AP_SWAP(pad_h, pad_w);
#undef AP_SWAP
}

/* The tap passes' shared state: the filter, the pass length and the band's rows. */
typedef struct taps_job {
  const ap_kexec *x;
  const ap_fconv *c; /* the whole filter's geometry; wp the passes' buffer */
  const float *w;
  int32_t n, run, r0, r1, tasks, panels;
  int row_tasks; /* (one task, every panel) the band's rows split over these after each packing */
} taps_job;

/* Every pass over rows [r0, r1) of the band for panels [p0, p1): the task packs those panels'
 * weights of each pass (its own part of the buffer) and runs them, so the threads that split
 * a band by output channels meet only at its end. */
static void taps_span(const taps_job *j, int32_t p0, int32_t p1) {
  const ap_fconv *g = j->c;
  int32_t L = lanes(j->x), fh = g->f_h, fw = g->f_w, d = g->in_d;
  size_t k = (size_t)fh * (size_t)fw * (size_t)d;
  int32_t c0 = p0 * L, c1 = p1 * L < j->n ? p1 * L : j->n;
  if (c0 >= c1) return;
  ap_fconv c = *g;
  c.f_h = 1;
  c.p0 = (int16_t)p0; /* (all panels: p1 0, any count; a part: at most INT16_MAX) */
  c.p1 = p0 == 0 && p1 == j->panels ? 0 : (int16_t)p1;
  for (int32_t fy = 0; fy < fh; fy++)
    for (int32_t fx = 0; fx < fw; fx += j->run) {
      size_t t = (size_t)fy * (size_t)fw + (size_t)fx;
      c.f_w = fw - fx < j->run ? fw - fx : j->run;
      /* The task's panels from p0 * run * d * L floats, whatever this pass's length (another
       * task may be at a pass of another length), laid out as the kernel reads a 1 x f_w
       * filter's: panel p at c.wp + p * f_w * d * L. */
      size_t panel = (size_t)c.f_w * (size_t)d * (size_t)L;
      float *mine = (float *)g->wp + (size_t)p0 * (size_t)j->run * (size_t)d * (size_t)L;
      c.wp = mine - (size_t)p0 * panel;
      c.finite = pack_taps(j->x, j->w + (size_t)c0 * k, c1 - c0, k, t, (size_t)c.f_w, d, L, mine);
      c.pad_h = g->pad_h - fy * g->dil_h; /* the pass's first tap is the 1 x f_w filter's */
      c.pad_w = g->pad_w - fx * g->dil_w;
      c.accum = t > 0;
      c.partial = t + (size_t)c.f_w < (size_t)fh * (size_t)fw;
      if (j->row_tasks > 1) {
        fconv_job rj = {&c, j->x->level, j->r1 - j->r0, j->row_tasks, j->r0};
        ap_fast_parallel(j->x, fconv_task, &rj, rj.tasks);
      } else {
        j->x->level->fconv(&c, j->r0, j->r1);
      }
    }
}

#ifndef AP_PORT_NONE
static void taps_task(void *arg, int task) {
  const taps_job *j = arg;
  int16_t p0 = 0, p1 = 0;
  task_panels(j->panels, j->tasks, task, &p0, &p1);
  taps_span(j, p0, p1);
}
#endif

/* The filter's taps in the reference's order (row, column), a pass of run taps of one row a
 * 1 x run convolution over the input shifted by its first tap (the padding moved by the tap's
 * offset) adding to the sums so far. */
static void taps(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                 const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, float *wp,
                 const float *zeros) {
  int32_t n = f->dims[0], L = lanes(x), d = f->dims[3];
  ap_fconv c = {.in = in->data,
                .wp = wp,
                .bias = bias ? bias->data : NULL,
                .out = out->data,
                .geom = ap_fast_geom_of(p, in, f, out),
                .lo = p->fact_min,
                .hi = p->fact_max,
                .zeros = zeros};
  /* A pass's scratch is the same on any number of threads: they split each band's output
   * channels (each packing its own panels of every pass), one fork and join a band. */
  ap_kexec tmp;
  x = ap_fast_shared(x, &tmp);
  taps_job j = {x, &c, f->data, n, pass_taps(x, f), 0, 0, 1, (n + L - 1) / L, 1};
  /* Bands of output rows of about 16 KiB, every tap over one band before the next: the band's
   * sums and input rows stay in cache between passes (one tap's packing per band and tap, a
   * few hundred floats, is cheap beside a pass). */
  int32_t rows = out->dims[0] * out->dims[1];
  size_t row_bytes = (size_t)out->dims[2] * (size_t)n * sizeof(float);
  int32_t band = row_bytes && row_bytes < 16384 ? (int32_t)(16384 / row_bytes) : 1;
  /* An output placed over its input (the planner's in-place overlap, src/graph/overlap.c) may
   * have row r written only over input rows that rows r and later no longer read, which is
   * what one row at a time (every pass over it before the next) keeps. A band's later passes
   * read input rows from its first row's first one on, so a band ends where its output would
   * reach that input row. */
  bool over = ap_fast_overlapping(in, out);
  for (int32_t r0 = 0, r1; r0 < rows; r0 = r1) {
    r1 = rows - r0 < band ? rows : r0 + band;
    if (over) { /* (its rows in any order, its channels on any thread) */
      int32_t most = ap_fast_overlap_band(in, out, c.stride_h, c.pad_h, r0);
      if (most < r1) r1 = most;
    }
    uint64_t work = (uint64_t)(r1 - r0) * (uint64_t)out->dims[2] * (uint64_t)n * (size_t)d * 4;
    j.r0 = r0;
    j.r1 = r1;
#ifndef AP_PORT_NONE
    /* Output channels split where each task keeps blocks of two panels (with one each, a
     * pixel's input broadcast would serve half the products); else the band's rows split after
     * each packing (a fork a pass), or it runs on one. */
    j.tasks = panel_tasks(x, work * (uint64_t)f->dims[1] * (uint64_t)f->dims[2], j.panels);
    if (j.tasks > 1 && j.panels >= 2 * j.tasks) {
      ap_fast_parallel(x, taps_task, &j, j.tasks);
      continue;
    }
    j.row_tasks = ap_fast_tasks(x, work, r1 - r0);
#else
    (void)work;
#endif
    taps_span(&j, 0, j.panels);
  }
}

#ifndef AP_PORT_NONE
/* The whole filter's rows [r0, r1) for task t's panels (an in-place band). */
typedef struct panels_job {
  const ap_fconv *c;
  const ap_fast_level *l;
  int32_t r0, r1, tasks, panels;
} panels_job;

static void panels_task(void *arg, int task) {
  const panels_job *j = arg;
  ap_fconv c = *j->c;
  task_panels(j->panels, j->tasks, task, &c.p0, &c.p1);
  if (c.p0 < c.p1) j->l->fconv(&c, j->r0, j->r1);
}
#endif

bool ap_fast_fconv_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                        const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                        ap_status *s) {
  size_t bytes;
  if (!p || !in || !f || !out || !applies(x, p, in, f) || !packed_size(x, f, &bytes)) return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) || !scratch ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    *s = AP_ERR_ARG;
    return true;
  }
  int32_t n = f->dims[0], L = lanes(x);
  size_t k = (size_t)f->dims[1] * f->dims[2] * f->dims[3];
  float *wp = scratch;
  size_t panels = ((size_t)n + (size_t)L - 1) / (size_t)L;
  size_t packed = by_taps(x, f) ? (size_t)pass_taps(x, f) * (size_t)f->dims[3] : k;
  float *zeros = (float *)((char *)scratch + ap_kscratch_round(panels * packed * (size_t)L * 4));
  memset(zeros, 0, (size_t)in->dims[3] * sizeof(float));
  if (by_taps(x, f)) {
    taps(x, p, in, f, bias, out, wp, zeros);
    *s = AP_OK;
    return true;
  }
  bool finite =
      (x->level->fconv_pack ? x->level->fconv_pack : ap_fast_fconv_pack)(f->data, n, k, L, wp);
  ap_fconv c = {.in = in->data,
                .wp = wp,
                .bias = bias ? bias->data : NULL,
                .out = out->data,
                .geom = ap_fast_geom_of(p, in, f, out), /* out_d: n, as prepared */
                .lo = p->fact_min,
                .hi = p->fact_max,
                .zeros = zeros,
                .finite = finite};
  int32_t rows = out->dims[0] * out->dims[1];
  /* A float multiply-add costs about 4 of an int8 convolution's. */
  uint64_t work = (uint64_t)rows * (uint64_t)out->dims[2] * (uint64_t)n * k * 4;
#ifndef AP_PORT_NONE
  if (ap_fast_overlapping(in, out)) {
    /* Over its input: bands of rows that may run in any order (ap_fast_overlap_band), each
     * split over the threads by output channels, one fork and join a band. */
    panels_job pj = {&c, x->level, 0, 0, panel_tasks(x, work, (int32_t)panels), (int32_t)panels};
    if (pj.panels < 2 * pj.tasks) pj.tasks = 1; /* (two panels a task at least: see taps) */
    for (int32_t r0 = 0; pj.tasks > 1 && r0 < rows; r0 = pj.r1) {
      pj.r0 = r0;
      pj.r1 = ap_fast_overlap_band(in, out, c.stride_h, c.pad_h, r0);
      ap_fast_parallel(x, panels_task, &pj, pj.tasks);
    }
    if (pj.tasks > 1) {
      *s = AP_OK;
      return true;
    }
  }
#endif
  ap_kexec serial; /* an output over its input on one task: rows in order */
  x = ap_fast_in_order(x, in, out, &serial);
  fconv_job j = {&c, x->level, rows, ap_fast_chunks(ap_fast_tasks(x, work, rows), 4, rows), 0};
  /* One task only: turned, a batch is one row and no longer splits. */
  if (j.tasks == 1 && c.in_w == 1 && c.out_w == 1 && c.f_w == 1 && c.out_h > 1) {
    column_as_row(&c.geom);
    j.rows = out->dims[0];
  }
  ap_fast_parallel(x, fconv_task, &j, j.tasks);
  *s = AP_OK;
  return true;
}

typedef struct fadd_job {
  const ap_binary_params *p;
  const float *a, *b;
  float *out;
  size_t n;
  int tasks;
  const ap_fast_level *l;
} fadd_job;

static void fadd_task(void *arg, int task) {
  const fadd_job *j = arg;
  size_t begin = j->n * (size_t)task / (size_t)j->tasks / 8 * 8;
  size_t end = task + 1 == j->tasks ? j->n : j->n * (size_t)(task + 1) / (size_t)j->tasks / 8 * 8;
  if (begin < end) j->l->fadd(j->p, j->a + begin, j->b + begin, j->out + begin, end - begin);
}

bool ap_fast_fadd_eval(const ap_kexec *x, const ap_binary_params *p, const ap_ktensor *a,
                       const ap_ktensor *b, ap_ktensor *out, ap_status *s) {
  size_t n, nb;
  if (!x || !x->level || !x->level->fadd || !p || !a || !b || !out || !a->data || !b->data ||
      !out->data || (p->op != AP_KBIN_ADD && p->op != AP_KBIN_SUB) || a->type != AP_FLOAT32 ||
      b->type != AP_FLOAT32 || !ap_kshape_is(a, &p->in_shape) || !ap_kshape_is(b, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape) || !ap_ktensor_count(out, &n) ||
      !ap_ktensor_count(b, &nb) || !ap_kshape_equal(a, b) || !ap_kshape_equal(a, out) || n != nb ||
      n == 0)
    return false;
  fadd_job j = {p, a->data, b->data, out->data, n, 1, x->level};
  j.tasks = ap_fast_chunks(ap_fast_tasks(x, (uint64_t)n * 80, (int64_t)(n / 4096)), 4,
                           (int64_t)(n / 1024)); /* as ADD int8's */
  ap_fast_parallel(x, fadd_task, &j, j.tasks);
  *s = AP_OK;
  return true;
}
