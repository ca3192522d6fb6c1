/* CONV_2D int8 (per-channel) as a matrix product over rows of patches: a 1x1 convolution
 * without padding reads its rows in place, any other builds each row (im2col, the zero point
 * in padded positions, which adds nothing once offset) into the task's scratch. The level packs
 * the weights into scratch at each eval (the interpreter keeps no per-op state). */
#include "kernels/fast/conv_win.h"
#include "kernels/fast/mve.h"
#include "kernels/kops_stream6.h"

#include <string.h>

/* Splitting by output channels needs threads: a build without them (a microcontroller's, whose
 * flash is counted) links none of it. */
#ifdef AP_PORT_NONE
#define AP_CONV_BY_COLS 0
#else
#define AP_CONV_BY_COLS 1
#endif

/* Rows of a 1x1 stride-1 convolution read straight from the input (no patch arithmetic). Not on
 * a firmware: its few instructions saved (0.3 % of person_detect's on the M4) cost the flash
 * that keeps the smallest build under TFLite Micro's (make test-mcu's streamed run). */
#ifdef AP_PORT_NONE
#define CONV_FLAT 0
#else
#define CONV_FLAT 1
#endif

typedef struct conv_plan {
  const ap_gemm_kit *kit;
  int32_t n, k, m, mr, tasks, slots, chunks, rows_per_chunk, cblocks;
  bool direct;
  bool flat;    /* direct with stride 1: row r is input pixel r, k bytes from the one before */
  bool by_cols; /* pieces are output channels (all rows each), not rows */
  size_t mult, shift, bias, packed, a, a_task, col, col_task, acc, acc_task, total;
} conv_plan;

/* A task's workspace is written row block after row block while the other tasks write theirs:
 * sharing a cache line with a neighbour's would send it between the cores at every block
 * (which, measured, cost as much as the second thread gained). Each task's block is rounded up
 * to cache lines with one line spare, so no line holds two tasks' bytes whatever the scratch's
 * own alignment. */
#define AP_FAST_LINE 64
static bool task_block(size_t bytes, size_t *out) {
  if (bytes > SIZE_MAX - 2 * AP_FAST_LINE) return false;
  *out = (bytes + AP_FAST_LINE - 1) / AP_FAST_LINE * AP_FAST_LINE + AP_FAST_LINE;
  return true;
}

/* Adds a block of `bytes` to the layout at *at (aligned), false on overflow. */
static bool carve(size_t *at, size_t bytes, size_t *off) {
  if (bytes > SIZE_MAX - AP_KSCRATCH_ALIGN || *at > SIZE_MAX - ap_kscratch_round(bytes))
    return false;
  *off = *at;
  *at += ap_kscratch_round(bytes);
  return true;
}

static bool plan(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                 const ap_ktensor *f, conv_plan *pl) {
  if (!x || !x->level || p->kind != AP_KCONV_INT8 || in->rank != 4 || f->rank != 4 ||
      p->out_shape.rank != 4 || f->dims[3] != in->dims[3])
    return false;
  const ap_fast_level *l = x->level;
  int64_t k = (int64_t)f->dims[1] * f->dims[2] * f->dims[3];
  int64_t m = (int64_t)p->out_shape.dims[0] * p->out_shape.dims[1] * p->out_shape.dims[2];
  if (k <= 0 || k > INT32_MAX / 4 || m <= 0 || m > INT32_MAX - 64) return false; /* rows + mr fit */
  if (!l->gemm.gemm) return false; /* a firmware's table without the product */
  memset(pl, 0, sizeof *pl);
  pl->n = f->dims[0];
  pl->k = (int32_t)k;
  pl->m = (int32_t)m;
  pl->kit = &l->gemm;
  /* Packing costs about one row's work per weight: worth it over many rows, or over a few
   * when the weights are few. */
  bool many = m >= l->outer_min_m || (m >= 64 && (int64_t)pl->n * k <= 65536);
#ifdef AP_FAST_X86
  /* AVX2, a 6x6 map (vww's 1x1 convolution from 64 to 128 channels, m = 36): packed 20 % faster
   * than in place at k = 64, 5-10 % slower at k = 128 (run --profile, interleaved) */
  many = many || (l->outer == &ap_fast_avx2_outer && m >= 32 && k <= 64);
#endif
  if (l->outer && many && l->outer->packed_bytes(pl->n, pl->k) <= l->outer_max_bytes)
    pl->kit = l->outer;
  pl->mr = pl->kit->mr;
  pl->direct = f->dims[1] == 1 && f->dims[2] == 1 && p->pad.pad_h == 0 && p->pad.pad_w == 0;
  pl->flat = CONV_FLAT && pl->direct && p->stride_h == 1 && p->stride_w == 1 &&
             p->out_shape.dims[1] == in->dims[1] && p->out_shape.dims[2] == in->dims[2];
  int64_t blocks = (m + pl->mr - 1) / pl->mr, cblocks = ((int64_t)pl->n + 15) / 16;
  int64_t units = AP_CONV_BY_COLS && cblocks > blocks ? cblocks : blocks;
  pl->tasks = ap_fast_tasks(x, (uint64_t)m * (uint64_t)pl->n * (uint64_t)k, units);
  pl->slots = ap_fast_slots(x, pl->tasks);
  /* Few rows (a 7x7 map) and weights read in place: each piece takes a block of output channels
   * over every row, computing its channels' multipliers and column sums itself. Cut by rows,
   * every thread would read all the weights, after the caller alone had summed them (a pass
   * over up to 400 KB in front of the split), and 13 row blocks split into uneven halves. */
#if AP_CONV_BY_COLS
  pl->by_cols = pl->tasks > 1 && m < l->outer_min_m && pl->kit == &l->gemm &&
                l->gemm.packed_bytes(pl->n, pl->k) == 0 && cblocks >= 2 * pl->tasks;
#endif
  if (AP_CONV_BY_COLS && pl->by_cols) {
    /* Chunk c takes 16-channel blocks [c B / C, (c + 1) B / C): every thread's range of chunks
     * holds as many blocks as the others', give or take one. Two per thread: each converts
     * every row of input again. */
    pl->cblocks = (int32_t)cblocks;
    pl->chunks = ap_fast_chunks(pl->tasks, 2, cblocks);
    pl->rows_per_chunk = m;
  } else {
    if (AP_CONV_BY_COLS && pl->tasks > blocks) pl->tasks = (int)blocks; /* units were channels */
    int64_t chunks = ap_fast_chunks(pl->tasks, 4, blocks);
    pl->rows_per_chunk = (int32_t)((blocks + chunks - 1) / chunks * pl->mr);
    pl->chunks = (int32_t)((m + pl->rows_per_chunk - 1) / pl->rows_per_chunk);
  }
#if AP_CONV_BY_COLS
  pl->slots = ap_fast_slots(x, pl->tasks); /* after the clamp */
#endif
  size_t n4 = (size_t)pl->n * 4, at = 0, t, acc;
  bool one = pl->slots == 1; /* one workspace: no neighbour, no spare lines */
  pl->a_task = (size_t)pl->mr * pl->kit->arow_bytes(pl->k);
  bool no_col = pl->direct;
#ifdef AP_FAST_X86
  no_col = no_col || pl->kit->arow == ap_fast_avx2_arow; /* patch16 builds a's rows itself */
#endif
  pl->col_task = no_col ? 0 : (size_t)pl->mr * ap_kscratch_round((size_t)pl->k);
  if (!ap_mul_size(n4, (size_t)pl->mr, &acc)) return false;
  pl->acc_task = acc;
  if (!one && (!task_block(pl->a_task, &pl->a_task) ||
               (pl->col_task && !task_block(pl->col_task, &pl->col_task)) ||
               !task_block(acc, &pl->acc_task)))
    return false;
  if (!carve(&at, n4, &pl->mult) || !carve(&at, n4, &pl->shift) || !carve(&at, n4, &pl->bias) ||
      !carve(&at, pl->kit->packed_bytes(pl->n, pl->k), &pl->packed) ||
      !ap_mul_size(pl->a_task, (size_t)pl->slots, &t) || !carve(&at, t, &pl->a) ||
      !ap_mul_size(pl->col_task, (size_t)pl->slots, &t) || !carve(&at, t, &pl->col) ||
      !ap_mul_size(pl->acc_task, (size_t)pl->slots, &t) || !carve(&at, t, &pl->acc))
    return false;
  pl->total = at;
  return true;
}

bool ap_fast_conv_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                          const ap_ktensor *f, size_t *scratch) {
  conv_plan pl;
  bool ok = p && in && f && plan(x, p, in, f, &pl);
  if (AP_FAST_DIRECT && ap_fast_convw_scratch(x, p, in, f, ok ? pl.total : 0, scratch)) return true;
  if (!ok) return false;
  *scratch = pl.total;
  return true;
}

/* The DSP level's product (its fast family, named "dsp") reads its shifts rewritten once an
 * eval (ap_fast_dsp_prep). Not a field of the kit: a kit is copied on the stack of every op's
 * run (ap_fast_small), which a firmware counts. A firmware reaches it through its registration
 * (registry.c's fast DSP table defines ap_board_gemm_prep; a weak reference here, so that a
 * firmware of another family links none of it). */
typedef void (*ap_gemm_prep_fn)(int32_t n, const int32_t *mult, int32_t *shift);
#ifdef AP_PORT_NONE
extern const ap_gemm_prep_fn ap_board_gemm_prep __attribute__((weak));
#else
void ap_fast_dsp_prep(int32_t n, const int32_t *mult, int32_t *shift);
extern const ap_fast_level ap_fast_dsp_level;
#endif
static void prep_shifts(const ap_kexec *x, const ap_gemm_kit *l, int32_t n, const int32_t *mult,
                        int32_t *shift) {
#ifdef AP_PORT_NONE
  (void)x, (void)l; /* the registration defines it only where its one kit is the DSP's */
  if (&ap_board_gemm_prep) ap_board_gemm_prep(n, mult, shift); /* (defined: never NULL) */
#else
  if (l == &ap_fast_dsp_level.gemm || (l == &x->level->gemm && strcmp(x->level->name, "dsp") == 0))
    ap_fast_dsp_prep(n, mult, shift);
#endif
}

typedef struct conv_job {
  const conv_plan *pl;
  const ap_conv_params *p;
  const ap_gemm_kit *l;
  ap_qgemm g;
  const int8_t *in;
#ifdef AP_FAST_X86
  const int8_t *in_end; /* past the input's last byte (patch16 reads up to it) */
#endif
  int8_t *out;
  uint8_t *scratch;
  AP_FAST_GEOM;
#if AP_CONV_BY_COLS
  const ap_kexec *x;
  const ap_ktensor *f;
  const int32_t *bias;                /* NULL: none */
  int32_t *qmult, *qshift, *col_bias; /* by columns: each piece fills its channels' */
#endif
} conv_job;

/* Patch row r (output pixel r in batch, row, column order) into col: k bytes. */
static const int8_t *patch(const conv_job *j, int32_t r, int8_t *col) {
  const ap_conv_params *p = j->p;
  int32_t ox = r % j->out_w, oy = r / j->out_w % j->out_h, b = r / j->out_w / j->out_h;
  int32_t y0 = oy * p->stride_h - p->pad.pad_h, x0 = ox * p->stride_w - p->pad.pad_w;
  size_t d = (size_t)j->in_d;
  if (j->pl->direct) return j->in + (((size_t)b * j->in_h + (size_t)y0) * j->in_w + (size_t)x0) * d;
  int8_t zp = (int8_t)-p->input_offset;
  size_t run = (size_t)j->f_w * d; /* one filter row's bytes */
  bool row_inside = x0 >= 0 && x0 + p->dilation_w * (j->f_w - 1) < j->in_w;
  for (int32_t fy = 0; fy < j->f_h; fy++) {
    int32_t iy = y0 + p->dilation_h * fy;
    int8_t *dst = col + (size_t)fy * run;
    if (iy < 0 || iy >= j->in_h) {
      memset(dst, zp, run);
      continue;
    }
    const int8_t *src = j->in + (((size_t)b * j->in_h + iy) * j->in_w) * d;
    if (row_inside && p->dilation_w == 1) { /* the row's taps are adjacent in the input */
      memcpy(dst, src + (size_t)x0 * d, run);
      continue;
    }
    for (int32_t fx = 0; fx < j->f_w; fx++, dst += d) {
      int32_t ix = x0 + p->dilation_w * fx;
      if (ix < 0 || ix >= j->in_w)
        memset(dst, zp, d);
      else
        memcpy(dst, src + (size_t)ix * d, d);
    }
  }
  return col;
}

#if AP_FAST_DIRECT
/* Output pixels r0 + i for the pixels-in-lanes product. */
typedef struct conv_tile {
  const conv_job *j;
  int32_t r0;
} conv_tile;

static const int8_t *tile_patch(void *ctx, int32_t i, int8_t *buf) {
  const conv_tile *t = ctx;
  return patch(t->j, t->r0 + i, buf);
}

/* The AVX-512 level's weights-in-place product as conv16 (kops_stream6.h): rows [r0, r1) of g's
 * channels, g's outputs at out + row * n (n: the whole row's channels). False: not this level. */
static bool conv16_rows(const conv_job *j, const ap_qgemm *g, int64_t r0, int64_t r1, int8_t *out) {
  const conv_plan *pl = j->pl;
  if (j->l != &ap_fast_avx512.gemm || pl->k > AP_FAST_CONV16_MAX_K) return false;
  for (int64_t q = r0; q < r1; q += 16) {
    conv_tile t = {j, (int32_t)q};
    ap_fast_avx512_conv16(g, tile_patch, &t, (int32_t)(r1 - q < 16 ? r1 - q : 16),
                          out + (size_t)q * (size_t)pl->n, (size_t)pl->n);
  }
  return true;
}
#endif

/* Rows [r0, r1) of the product, g's outputs at out + row * n: mr rows of patches (col) widened
 * into a, then the kit's gemm; or, for a kit with rows2, two rows of patches at a time, side
 * by side in a (2k bytes: arow_bytes(k) >= 2k) or in place (1x1 rows), read as they are. One
 * call of patch: a microcontroller's build inlines it once. */
static void rows_range(const conv_job *j, const ap_qgemm *g, int64_t r0, int64_t r1, uint8_t *a,
                       int8_t *col, int32_t *acc, int8_t *out) {
  const conv_plan *pl = j->pl;
  size_t arow = j->l->arow_bytes(pl->k), colrow = ap_kscratch_round((size_t)pl->k);
  size_t n = (size_t)pl->n;
  bool two = j->l->rows2 != NULL;
  int32_t step = two ? 2 : pl->mr;
#if AP_MVE_NATIVE
  /* The Helium kit's rows in place, consecutive pixels (a 1x1 convolution with stride 1): all
   * at once, acc (mr * n int32) its workspace (mve_gemm.c). Only an MVE build links it; its
   * table's rows2 names the kit (no field for it in ap_gemm_kit, whose copies sit on the
   * firmware's stack). */
  if (j->l->rows2 == ap_fast_mve_rows2 && pl->direct && j->p->stride_h == 1 &&
      j->p->stride_w == 1 && r1 > r0) {
    ap_fast_mve_rowsn(g, patch(j, (int32_t)r0, NULL), (int32_t)(r1 - r0), acc, out + (size_t)r0 * n,
                      n);
    return;
  }
  /* Other rows four at a time, their patches side by side in acc (4 n bytes: when k <= n), then
   * the rest in pairs. Each output row is written after its patch is built, as the pairs do. */
  if (j->l->rows2 == ap_fast_mve_rows2 && pl->k <= pl->n) {
    int8_t *four = (int8_t *)acc;
    size_t k = (size_t)pl->k;
    for (; r1 - r0 >= 4; r0 += 4) {
      for (int32_t i = 0; i < 4; i++) {
        const int8_t *p = patch(j, (int32_t)r0 + i, four + (size_t)i * k);
        if (p != four + (size_t)i * k) memcpy(four + (size_t)i * k, p, k);
      }
      ap_fast_mve_rows4(g, four, out + (size_t)r0 * n, n);
    }
  }
#endif
#ifdef AP_FAST_X86
  /* Patch rows widened straight into the AVX2 kits' int16 rows, no byte copy between (1x1
   * rows in place: arow). */
  bool wide = !two && !pl->direct && j->l->arow == ap_fast_avx2_arow;
  /* The outer kit over the input's rows widened once (win16_avx2.c): no patches. */
  if (wide && j->l == &ap_fast_avx2_outer &&
      ap_fast_win16_fits(&j->geom, pl->m / (j->out_h * j->out_w))) {
    _Alignas(32) int16_t ring[AP_WIN16_STACK / sizeof(int16_t)];
    ap_fast_win16 w;
    const int16_t *x[4 * AP_WIN16_SEGS];
    ap_fast_win16_init(&w, &j->geom, j->in, j->p->input_offset, ring);
    for (int64_t r = r0; r < r1; r += 4) {
      int32_t rows = (int32_t)(r1 - r < 4 ? r1 - r : 4);
      ap_fast_win16_runs(&w, (int32_t)r, rows, x);
      ap_fast_avx2_outer_runs(g, x, j->f_h, j->f_w * j->in_d / 2, rows, out + (size_t)r * n, n);
    }
    return;
  }
#endif
  for (int64_t r = r0; r < r1; r += step) {
    int32_t rows = (int32_t)(r1 - r < step ? r1 - r : step);
    const int8_t *src[2] = {NULL, NULL};
#ifdef AP_FAST_X86
    if (wide) {
      ap_fast_avx2_patch16(&j->geom, j->in, j->in_end, j->p->input_offset, (int32_t)r, rows, pl->k,
                           (int32_t)(arow / 2), (int16_t *)a);
      j->l->gemm(g, a, rows, acc, out + (size_t)r * n, n);
      continue;
    }
#endif
    for (int32_t i = 0; i < rows; i++) {
      int8_t *buf = two ? (int8_t *)a + (size_t)i * (size_t)pl->k : col + (size_t)i * colrow;
      const int8_t *p = CONV_FLAT && pl->flat
                            ? j->in + (size_t)(r + i) * (size_t)pl->k /* no arithmetic */
                            : patch(j, (int32_t)r + i, buf);
      if (two)
        src[i] = p;
      else
        j->l->arow(p, pl->k, j->p->input_offset, a + (size_t)i * arow);
    }
    if (two) {
      /* rows2 reads the second row k bytes after the first: rows in place that are not (a 1x1
       * convolution with stride 2) are copied side by side first. */
      if (src[1] && src[1] != src[0] + pl->k) {
        memcpy(a, src[0], (size_t)pl->k);
        memcpy(a + pl->k, src[1], (size_t)pl->k);
        src[0] = (const int8_t *)a, src[1] = (const int8_t *)a + pl->k;
      }
      j->l->rows2(g, src[0], src[1], out + (size_t)r * n, n);
    } else {
      j->l->gemm(g, a, rows, acc, out + (size_t)r * n, n);
    }
  }
}

static void conv_task(void *arg, int chunk, int slot) {
  const conv_job *j = arg;
  const conv_plan *pl = j->pl;
  uint8_t *a = j->scratch + pl->a + (size_t)slot * pl->a_task;
  int8_t *col = (int8_t *)j->scratch + pl->col + (size_t)slot * pl->col_task;
  int32_t *acc = (int32_t *)(j->scratch + pl->acc + (size_t)slot * pl->acc_task);
  int64_t begin = (int64_t)chunk * pl->rows_per_chunk, end = begin + pl->rows_per_chunk;
  if (end > pl->m) end = pl->m;
#if AP_FAST_DIRECT
  if (conv16_rows(j, &j->g, begin, end, j->out)) return;
#endif
  rows_range(j, &j->g, begin, end, a, col, acc, j->out);
}

#if AP_CONV_BY_COLS
/* Output channels [c0, c1) of every row: their multipliers and column sums, then the product
 * over the rows with the weights of those channels only. */
static void conv_cols_task(void *arg, int chunk, int slot) {
  const conv_job *j = arg;
  const conv_plan *pl = j->pl;
  int32_t c0 = (int32_t)((int64_t)chunk * pl->cblocks / pl->chunks * 16);
  int32_t c1 = (int32_t)((int64_t)(chunk + 1) * pl->cblocks / pl->chunks * 16);
  if (c1 > pl->n) c1 = pl->n;
  int32_t *mult = j->qmult, *shift = j->qshift, *col_bias = j->col_bias;
  ap_ktensor f = *j->f; /* its channels' scales from c0 */
  if (f.channel_scales && f.n_channels > 1) f.channel_scales += c0;
  AP_FAST_MULTIPLIERS(j->x, j->p->input_scale, &f, j->p->output_scale, c1 - c0, mult + c0,
                      shift + c0);
  prep_shifts(j->x, j->l, c1 - c0, mult + c0, shift + c0);
  j->l->pack(j->g.w + (size_t)c0 * pl->k, c1 - c0, pl->k, j->bias ? j->bias + c0 : NULL,
             j->p->input_offset, NULL, col_bias + c0);
  ap_qgemm g = j->g;
  g.n = c1 - c0;
  g.w += (size_t)c0 * pl->k;
  g.col_bias += c0;
  g.mult += c0;
  g.shift += c0;
#if AP_FAST_DIRECT
  if (conv16_rows(j, &g, 0, pl->m, j->out + c0)) return;
#endif
  uint8_t *a = j->scratch + pl->a + (size_t)slot * pl->a_task;
  int8_t *col = (int8_t *)j->scratch + pl->col + (size_t)slot * pl->col_task;
  int32_t *acc = (int32_t *)(j->scratch + pl->acc + (size_t)slot * pl->acc_task);
  rows_range(j, &g, 0, pl->m, a, col, acc, j->out + c0);
}
#else
#define conv_cols_task conv_task
#endif

#ifdef AP_FAST_X86
/* The AVX2 outer kit's packing (its AVX-512 copy's too) in pieces of whole 16-channel blocks,
 * each packed as a product of its channels alone would be (the kit's blocks lie one after
 * another, packed_bytes(16, k) each; only the last piece has a partial block). */
typedef struct pack_job {
  const conv_job *j;
  const ap_ktensor *f;
  const int32_t *bias;
  int32_t cblocks, pieces;
} pack_job;

static void pack_task(void *arg, int i) {
  const pack_job *a = arg;
  const conv_plan *pl = a->j->pl;
  int32_t b0 = (int32_t)((int64_t)i * a->cblocks / a->pieces);
  int32_t b1 = (int32_t)((int64_t)(i + 1) * a->cblocks / a->pieces);
  int32_t c0 = b0 * 16, c1 = b1 * 16 < pl->n ? b1 * 16 : pl->n;
  if (c1 <= c0) return;
  ap_fast_avx2_outer_pack((const int8_t *)a->f->data + (size_t)c0 * (size_t)pl->k, c1 - c0, pl->k,
                          a->bias ? a->bias + c0 : NULL, a->j->p->input_offset,
                          a->j->scratch + pl->packed +
                              (size_t)b0 * ap_fast_avx2_outer_bytes(16, pl->k),
                          (int32_t *)(a->j->scratch + pl->bias) + c0);
}

/* Whether the weights were packed over the threads: a product split over rows packs every
 * weight before any row, a pass over the whole filter (a tenth of mobilenet_v2's 1x1
 * convolutions' time on one thread, memory bound) that kept the second thread idle. Only from
 * PACK_SPLIT_MIN weights: packing costs some 1.3 instructions a weight, and a region of its own
 * costs the caller a fork and a join (0.2-0.5 us, 5-12 k instructions at AVX2's rate), more
 * than half of a smaller filter's packing saves (mlperf_ic_resnet_int8's ops 4-6, 8 and 10:
 * 2-25 k instructions of packing, each in a second region before the product's). */
enum { PACK_SPLIT_MIN = 32768 };
static bool pack_split(const ap_kexec *x, const conv_job *j, const ap_ktensor *f,
                       const ap_ktensor *bias) {
  const conv_plan *pl = j->pl;
  if (pl->tasks < 2 || j->l->pack != ap_fast_avx2_outer_pack ||
      (int64_t)pl->n * pl->k < PACK_SPLIT_MIN)
    return false;
  pack_job a = {j, f, bias ? bias->data : NULL, (pl->n + 15) / 16, 1};
  a.pieces = ap_fast_chunks(pl->tasks, 2, a.cblocks);
  if (a.pieces < 2) return false;
  ap_fast_parallel(x, pack_task, &a, a.pieces);
  return true;
}
#else
#define pack_split(x, j, f, bias) false
#endif

bool ap_fast_conv_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                       const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                       ap_status *s) {
  conv_plan pl;
  bool ok = p && in && f && plan(x, p, in, f, &pl);
  if (AP_FAST_DIRECT && ap_fast_convw_eval(x, p, in, f, bias, out, scratch, ok ? pl.total : 0, s))
    return true;
  if (!ok || !out) return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) || !scratch ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    *s = AP_ERR_ARG;
    return true;
  }
  uint8_t *sc = scratch;
  int32_t *mult = (int32_t *)(sc + pl.mult), *shift = (int32_t *)(sc + pl.shift);
  int32_t *col_bias = (int32_t *)(sc + pl.bias);
  const ap_gemm_kit *l = pl.kit;
  conv_job j = {
    .pl = &pl,
    .p = p,
    .l = l,
    .g = {pl.n, pl.k, f->data, sc + pl.packed, col_bias, mult, shift, p->output_offset, p->act_min,
          p->act_max},
    .in = in->data,
#ifdef AP_FAST_X86
    .in_end = (const int8_t *)in->data +
              (size_t)in->dims[0] * (size_t)in->dims[1] * (size_t)in->dims[2] * (size_t)in->dims[3],
#endif
    .out = out->data,
    .scratch = sc,
    .geom = ap_fast_geom_of(p, in, f, out),
#if AP_CONV_BY_COLS
    .x = x,
    .f = f,
    .bias = bias ? bias->data : NULL,
    .qmult = mult,
    .qshift = shift,
    .col_bias = col_bias
#endif
  };
  if (!AP_CONV_BY_COLS || !pl.by_cols) { /* by columns, each piece prepares its own channels */
    AP_FAST_MULTIPLIERS(x, p->input_scale, f, p->output_scale, pl.n, mult, shift);
    prep_shifts(x, l, pl.n, mult, shift);
    if (!pack_split(x, &j, f, bias))
      l->pack(f->data, pl.n, pl.k, bias ? bias->data : NULL, p->input_offset, sc + pl.packed,
              col_bias);
  }
  ap_fast_parallel_slots(x, AP_CONV_BY_COLS && pl.by_cols ? conv_cols_task : conv_task, &j,
                         pl.chunks);
  *s = AP_OK;
  return true;
}
