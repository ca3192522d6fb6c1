/* The writer's memory: a chunked bump arena for everything copied from the caller (freed all
 * at once with the writer) and growable arrays for the model's lists. */
#include "model/writer_internal.h"

#include <string.h>

#define WR_CHUNK_SIZE ((size_t)64 * 1024)
/* Requests above this get a chunk of their own, so big weights do not waste a shared chunk. */
#define WR_BIG ((size_t)16 * 1024)

struct wr_chunk {
  wr_chunk *next;
  size_t size, used;
  /* data follows, aligned as the allocation (the header is a multiple of 16 bytes) */
  uint8_t pad[8];
};

static uint8_t *chunk_data(wr_chunk *c) {
  return (uint8_t *)c + sizeof *c;
}

void *wr_arena_alloc(ap_writer *w, size_t size) {
  size_t want;
  /* Round every request to 16 so each one starts 16-byte aligned within its chunk. */
  if (!ap_add_size(size, 15, &want)) goto overflow;
  want &= ~(size_t)15;
  if (want == 0) want = 16;
  wr_chunk *c = w->chunks;
  if (!c || c->size - c->used < want) {
    size_t data_size = want > WR_BIG ? want : WR_CHUNK_SIZE, total;
    /* +15: the allocator promises malloc's alignment, which may be less than 16. */
    if (!ap_add_size(data_size, sizeof *c + 15, &total)) goto overflow;
    uint8_t *raw = ap_alloc(w->alloc, total);
    if (!raw) {
      w->mem_status = ap_fail(&w->err, AP_ERR_NOMEM,
                              "out of memory: %zu bytes for the model being written", total);
      return NULL;
    }
    /* The chunk header sits at the allocation's start so it can be freed; its data starts at
     * the first 16-byte boundary after the header. */
    c = (wr_chunk *)raw;
    size_t skew = (16 - (uintptr_t)chunk_data(c) % 16) % 16;
    c->size = data_size + 15;
    c->used = skew;
    if (want > WR_BIG && w->chunks) {
      /* Keep the partly used chunk in front: later small requests still fit there. */
      c->next = w->chunks->next;
      w->chunks->next = c;
    } else {
      c->next = w->chunks;
      w->chunks = c;
    }
  }
  void *p = chunk_data(c) + c->used;
  c->used += want;
  return p;
overflow:
  w->mem_status =
      ap_fail(&w->err, AP_ERR_OVERFLOW, "size overflow: %zu bytes cannot be allocated", size);
  return NULL;
}

void wr_arena_free(ap_writer *w) {
  wr_chunk *c = w->chunks;
  while (c) {
    wr_chunk *next = c->next;
    ap_free(w->alloc, c);
    c = next;
  }
  w->chunks = NULL;
}

char *wr_strdup(ap_writer *w, const char *s) {
  size_t n = strlen(s);
  char *d = wr_arena_alloc(w, n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

void *wr_alloc_array(ap_writer *w, size_t n, size_t elem_size) {
  size_t bytes;
  if (!ap_mul_size(n, elem_size, &bytes)) {
    w->mem_status =
        ap_fail(&w->err, AP_ERR_OVERFLOW, "size overflow: %zu elements of %zu bytes", n, elem_size);
    return NULL;
  }
  return wr_arena_alloc(w, bytes);
}

void *wr_memdup(ap_writer *w, const void *p, size_t n, size_t elem_size) {
  if (n == 0) return NULL;
  void *d = wr_alloc_array(w, n, elem_size);
  if (d && n) memcpy(d, p, n * elem_size);
  return d;
}

bool wr_grow(ap_writer *w, void **items, size_t *cap, size_t count, size_t elem_size) {
  if (count < *cap) return true;
  size_t new_cap;
  if (!ap_mul_size(*cap ? *cap : 4, 2, &new_cap)) new_cap = SIZE_MAX;
  void *n = ap_calloc(w->alloc, new_cap, elem_size);
  if (!n) {
    size_t bytes = 0;
    if (!ap_mul_size(new_cap, elem_size, &bytes))
      w->mem_status = ap_fail(&w->err, AP_ERR_OVERFLOW,
                              "size overflow: %zu list entries of %zu bytes", new_cap, elem_size);
    else
      w->mem_status = ap_fail(&w->err, AP_ERR_NOMEM,
                              "out of memory: %zu bytes for the model being written", bytes);
    return false;
  }
  if (count) memcpy(n, *items, count * elem_size);
  ap_free(w->alloc, *items);
  *items = n;
  *cap = new_cap;
  return true;
}
