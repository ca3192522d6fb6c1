/* TRANSPOSE by tiles over the threads. The permutation is first reduced (dims of 1 dropped,
 * output dims that stay adjacent in the input merged): where the output's last dim is the
 * input's last, rows are copied as runs; otherwise each unit of work is a block of the output
 * dim that the input holds contiguously (D) crossed with the output's last dim (L), copied by
 * tiles that stay in L1 on both sides. MobileNet-v2's NCHW input ([3][224 * 224] -> [224 *
 * 224][3]) took half a millisecond alone in front of every split op on the reference's element
 * walk. */
#include "kernels/fast/fastops.h"
#include "kernels/kops_threads4.h"

#include <string.h>

enum { TILE = 64 };

typedef struct tr_job {
  const unsigned char *in;
  unsigned char *out;
  size_t es;
  int r; /* reduced rank */
  int d; /* the output dim with input stride 1 (-1: runs) */
  size_t dims[AP_KMAXDIMS], ist[AP_KMAXDIMS], ost[AP_KMAXDIMS]; /* elements */
  size_t blk, dblocks, units; /* blk: elements of D a unit (TILE, or a run for planes3) */
  int chunks;
  /* Three byte planes interleaved (the output's last dim 3 of bytes, D just before it): the
   * level's (fastops.h), NULL: tiles. */
  void (*planes3)(const uint8_t *s, size_t istl, uint8_t *o, size_t n);
} tr_job;

/* Offsets of the outer position q: every dim but `skip_a` and `skip_b`, mixed radix. */
static void outer_offsets(const tr_job *j, size_t q, int skip_a, int skip_b, size_t *io,
                          size_t *oo) {
  *io = *oo = 0;
  for (int i = j->r - 1; i >= 0; i--) {
    if (i == skip_a || i == skip_b) continue;
    size_t c = q % j->dims[i];
    q /= j->dims[i];
    *io += c * j->ist[i];
    *oo += c * j->ost[i];
  }
}

#define AP_TILE_COPY(T)                                                                            \
  do {                                                                                             \
    const T *s = (const T *)(const void *)src;                                                     \
    T *o = (T *)(void *)dst;                                                                       \
    for (size_t l = 0; l < nl; l++)                                                                \
      for (size_t a = 0; a < nd; a++)                                                              \
        o[a * ostd + l] = s[l * istl + a];                                                         \
  } while (0)

/* nd x nl elements: dst[a * ostd + l] = src[l * istl + a]. */
static void tile(const unsigned char *src, unsigned char *dst, size_t es, size_t nd, size_t nl,
                 size_t ostd, size_t istl) {
  switch (es) {
  case 1: AP_TILE_COPY(uint8_t); break;
  case 2: AP_TILE_COPY(uint16_t); break;
  case 4: AP_TILE_COPY(uint32_t); break;
  default: AP_TILE_COPY(uint64_t); break;
  }
}

static void tr_task(void *arg, int chunk) {
  const tr_job *j = arg;
  size_t u0 = j->units * (size_t)chunk / (size_t)j->chunks;
  size_t u1 = j->units * ((size_t)chunk + 1) / (size_t)j->chunks;
  int last = j->r - 1;
  for (size_t u = u0; u < u1; u++) {
    size_t io, oo;
    if (j->d < 0) { /* u: a row, the last dim copied as one run */
      outer_offsets(j, u, last, last, &io, &oo);
      memcpy(j->out + oo * j->es, j->in + io * j->es, j->dims[last] * j->es);
      continue;
    }
    size_t b = u % j->dblocks, a0 = b * j->blk;
    outer_offsets(j, u / j->dblocks, j->d, last, &io, &oo);
    size_t nd = j->dims[j->d] - a0 < j->blk ? j->dims[j->d] - a0 : j->blk;
    io += a0; /* input stride 1 */
    oo += a0 * j->ost[j->d];
    if (j->planes3) {
      j->planes3(j->in + io, j->ist[last], j->out + oo, nd);
      continue;
    }
    for (size_t l0 = 0; l0 < j->dims[last]; l0 += TILE) {
      size_t nl = j->dims[last] - l0 < TILE ? j->dims[last] - l0 : TILE;
      tile(j->in + (io + l0 * j->ist[last]) * j->es, j->out + (oo + l0) * j->es, j->es, nd, nl,
           j->ost[j->d], j->ist[last]);
    }
  }
}

bool ap_fast_transpose_eval(const ap_kexec *x, const ap_transpose_params *p,
                            const ap_ktensor *input, ap_ktensor *output, ap_status *s) {
  if (!x || !x->level || !p || !input || !output || !input->data || !output->data ||
      !ap_kshape_is(input, &p->in_shape) || !ap_kshape_is(output, &p->out_shape) ||
      p->rank != input->rank || p->rank < 1 || p->rank > AP_KMAXDIMS)
    return false;
  size_t es = ap_ktype_size(input->type), n;
  if ((es != 1 && es != 2 && es != 4 && es != 8) || !ap_ktensor_count(output, &n)) return false;
  /* An output overlapping its input is not a transpose this can do by tiles. */
  if (input->data == output->data || ap_fast_overlapping(input, output)) return false;
  tr_job j;
  memset(&j, 0, sizeof j);
  j.in = input->data;
  j.out = output->data;
  j.es = es;
  size_t in_stride[AP_KMAXDIMS], st = 1;
  for (int i = p->rank - 1; i >= 0; i--) {
    in_stride[i] = st;
    st *= (size_t)input->dims[i];
  }
  /* Reduce: drop dims of 1, merge an output dim into the one before when the input holds them
   * adjacently in the same order. */
  for (int i = 0; i < p->rank; i++) {
    size_t dim = (size_t)input->dims[p->perm[i]], is = in_stride[p->perm[i]];
    if (dim == 1) continue;
    if (j.r > 0 && j.ist[j.r - 1] == is * dim) {
      j.dims[j.r - 1] *= dim;
      j.ist[j.r - 1] = is;
      continue;
    }
    j.dims[j.r] = dim;
    j.ist[j.r] = is;
    j.r++;
  }
  if (n == 0) {
    *s = AP_OK;
    return true;
  }
  if (j.r == 0) { /* one element */
    memcpy(j.out, j.in, es);
    *s = AP_OK;
    return true;
  }
  st = 1;
  for (int i = j.r - 1; i >= 0; i--) {
    j.ost[i] = st;
    st *= j.dims[i];
  }
  int last = j.r - 1;
  j.d = -1;
  if (j.ist[last] == 1) {
    j.units = n / j.dims[last];
  } else {
    for (int i = 0; i < last; i++)
      if (j.ist[i] == 1) j.d = i;
    if (j.d < 0) return false; /* cannot happen: the input's last dim is somewhere */
    j.blk = TILE;
    if (es == 1 && j.dims[last] == 3 && j.ost[j.d] == 3 && x->level->ops &&
        x->level->ops->planes3) {
      j.planes3 = x->level->ops->planes3;
      j.blk = 2048; /* a run: 6 KiB written */
    }
    j.dblocks = (j.dims[j.d] + j.blk - 1) / j.blk;
    j.units = n / j.dims[j.d] / j.dims[last] * j.dblocks;
  }
  /* A byte moved costs about what PAD's does (a few multiply-adds of a convolution). */
  uint64_t work = (uint64_t)n * es * 7;
  j.chunks = ap_fast_chunks(ap_fast_tasks(x, work, (int64_t)j.units), 4, (int64_t)j.units);
  ap_fast_parallel(x, tr_task, &j, j.chunks);
  *s = AP_OK;
  return true;
}
