/* The interpreter's memory: tables and persistent state (top of a caller buffer, or blocks
 * from the allocator), planning temporaries (bottom of a caller buffer, where the arena will
 * be placed once planning is done, or the allocator), and their release. */
#include "runtime_internal.h"

#include <string.h>

#define RT_ALIGN 16

/* A block from the allocator: the list link, padded so the payload stays 16-byte aligned. */
typedef union rt_block {
  union rt_block *next;
  max_align_t pad;
} rt_block;
_Static_assert(sizeof(rt_block) % RT_ALIGN == 0, "block header keeps payloads aligned");

/* The lowest byte taken from the top (the end rounded down to 16 before anything is taken). */
static uintptr_t cur_top(const ap_interpreter *it) {
  uintptr_t end = (uintptr_t)(it->buf + it->buf_size);
  return it->tail_used ? end - it->tail_used : end & ~(uintptr_t)(RT_ALIGN - 1);
}

static uintptr_t buf_base(const ap_interpreter *it) {
  return ((uintptr_t)it->buf + RT_ALIGN - 1) & ~(uintptr_t)(RT_ALIGN - 1);
}

/* Takes `bytes` (rounded to 16) below the current top; NULL when it would meet the bottom. */
static void *take_from_top(ap_interpreter *it, size_t bytes, uint64_t *counter) {
  uintptr_t end = (uintptr_t)(it->buf + it->buf_size);
  uintptr_t top = cur_top(it);
  uintptr_t floor = buf_base(it) + it->temp_used;
  size_t rounded = (bytes + RT_ALIGN - 1) & ~(size_t)(RT_ALIGN - 1);
  if (rounded < bytes || top < floor || rounded > top - floor) {
    rt_fail(it, AP_ERR_ARENA_TOO_SMALL,
            "arena too small: the interpreter's tables and persistent state need more than the "
            "%zu-byte buffer",
            it->buf_size);
    return NULL;
  }
  uintptr_t p = top - rounded;
  it->tail_used = (size_t)(end - p);
  *counter += rounded;
  memset((void *)p, 0, rounded);
  return (void *)p;
}

static void *take_block(ap_interpreter *it, size_t bytes, uint64_t *counter, const char *what) {
  if (it->buf) return take_from_top(it, bytes, counter);
  size_t rounded = (bytes + RT_ALIGN - 1) & ~(size_t)(RT_ALIGN - 1), total;
  if (rounded < bytes || !ap_add_size(rounded, sizeof(rt_block), &total)) {
    rt_fail(it, AP_ERR_OVERFLOW, "%s of %zu bytes overflows", what, bytes);
    return NULL;
  }
  /* it->alloc is resolved at create; called directly, a planned firmware links no default. */
  rt_block *b = it->alloc.alloc(it->alloc.ctx, total);
  if (!b) {
    rt_fail(it, AP_ERR_NOMEM, "out of memory for %zu bytes of %s", bytes, what);
    return NULL;
  }
  b->next = it->blocks;
  it->blocks = b;
  *counter += rounded;
  memset(b + 1, 0, rounded);
  return b + 1;
}

void *rt_tables_alloc(ap_interpreter *it, size_t bytes) {
  return take_block(it, bytes, &it->tables_bytes, "interpreter tables");
}

void *rt_persistent_alloc(ap_interpreter *it, size_t bytes) {
  return take_block(it, bytes, &it->persistent_bytes, "persistent state");
}

void rt_release(ap_interpreter *it) {
  rt_dynamic_release(it); /* its records live in the tables freed below */
  while (it->blocks) {
    rt_block *n = ((rt_block *)it->blocks)->next;
    rt_free(it, it->blocks);
    it->blocks = n;
  }
  rt_free(it, it->arena_mem);
  it->arena_mem = NULL;
  it->arena = NULL;
  it->arena_bytes = 0;
  it->arena_lower_bound = 0;
  it->capacity = NULL;
  it->scratch_cap = NULL;
  it->vars = NULL; /* lived in the persistent region */
  it->run = NULL;
  it->ready = NULL; /* lived in the tables allocate took */
  it->states = NULL;
  it->persistent_bytes = 0;
  it->tables_bytes = it->create_tables;
  it->tail_used = it->create_tail;
  it->temp_used = 0;
  it->temp_top = 0;
  it->allocated = false;
}

/* Temporaries: a stack at the bottom of a caller buffer. Each block's header links to the
 * block below; a block freed out of order is marked, and the stack shrinks past every marked
 * block once the one above them goes, so planning's interleaved frees give the space back
 * (else its temporaries would fall back to the allocator: a firmware's heap). */
typedef union rt_temp_hdr {
  struct {
    size_t below; /* the block below's header offset + 1 (0: none); SIZE_MAX: allocator */
    size_t freed;
  } h;
  max_align_t pad;
} rt_temp_hdr;
_Static_assert(sizeof(rt_temp_hdr) % RT_ALIGN == 0, "temp header keeps payloads aligned");

static void *temp_alloc(void *ctx, size_t size) {
  ap_interpreter *it = ctx;
  size_t rounded = (size + RT_ALIGN - 1) & ~(size_t)(RT_ALIGN - 1), need;
  if (rounded < size || !ap_add_size(rounded, sizeof(rt_temp_hdr), &need)) return NULL;
  if (it->buf) {
    uintptr_t top = cur_top(it);
    uintptr_t lo = buf_base(it) + it->temp_used;
    if (top >= lo && need <= top - lo) {
      rt_temp_hdr *h = (rt_temp_hdr *)lo;
      h->h.below = it->temp_top;
      h->h.freed = 0;
      it->temp_top = it->temp_used + 1;
      it->temp_used += need;
      return h + 1;
    }
  }
  rt_temp_hdr *h = it->alloc.alloc(it->alloc.ctx, need);
  if (!h) return NULL;
  h->h.below = SIZE_MAX;
  if (it->buf) it->temp_fallback_bytes += need;
  return h + 1;
}

static void temp_free(void *ctx, void *p) {
  ap_interpreter *it = ctx;
  if (!p) return;
  rt_temp_hdr *h = (rt_temp_hdr *)p - 1;
  if (h->h.below == SIZE_MAX) {
    rt_free(it, h);
    return;
  }
  h->h.freed = 1;
  while (it->temp_top) {
    rt_temp_hdr *t = (rt_temp_hdr *)(buf_base(it) + it->temp_top - 1);
    if (!t->h.freed) break;
    it->temp_used = it->temp_top - 1;
    it->temp_top = t->h.below;
  }
}

ap_allocator rt_temp_allocator(ap_interpreter *it) {
  return (ap_allocator){temp_alloc, temp_free, it};
}
