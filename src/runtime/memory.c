/* The interpreter's memory: tables at create, persistent state during prepare, the arena.
 * With a caller-owned buffer all of it is carved from that buffer (tables and persistent state
 * from its top down, the arena from its bottom), so a device needs nothing else. */
#include "runtime_internal.h"

#include <string.h>

#define RT_ALIGN 16

static void *take_from_top(ap_interpreter *it, size_t bytes) {
  /* The top is kept 16-byte aligned: tail_used counts from the buffer's end to it. */
  uintptr_t end = (uintptr_t)(it->buf + it->buf_size);
  uintptr_t top = end - it->tail_used;
  if (it->tail_used == 0) top &= ~(uintptr_t)(RT_ALIGN - 1);
  uintptr_t lo = (uintptr_t)it->buf;
  if (bytes > top - lo) goto too_small;
  uintptr_t p = (top - bytes) & ~(uintptr_t)(RT_ALIGN - 1);
  if (p < lo) goto too_small;
  it->tail_used = (size_t)(end - p);
  memset((void *)p, 0, bytes);
  return (void *)p;
too_small:
  ap_fail(&it->err, AP_ERR_ARENA_TOO_SMALL,
          "arena too small: tables and persistent state need more than the %zu-byte buffer",
          it->buf_size);
  return NULL;
}

void *rt_tables_alloc(ap_interpreter *it, size_t bytes) {
  if (it->buf) {
    size_t before = it->tail_used;
    void *p = take_from_top(it, bytes);
    if (p) it->tables_bytes += it->tail_used - before;
    return p;
  }
  void *p = ap_calloc(it->alloc, 1, bytes ? bytes : 1);
  if (!p) {
    ap_fail(&it->err, AP_ERR_NOMEM, "out of memory for the interpreter's tables (%zu bytes)",
            bytes);
    return NULL;
  }
  it->tables_bytes += bytes;
  return p;
}

void *rt_persistent_alloc(ap_interpreter *it, size_t bytes) {
  if (it->buf) {
    size_t before = it->tail_used;
    void *p = take_from_top(it, bytes);
    if (p) it->persistent_bytes += it->tail_used - before;
    return p;
  }
  /* A header keeps the blocks in a list; its size keeps the payload 16-byte aligned. */
  size_t total;
  if (!ap_add_size(bytes, RT_ALIGN, &total)) {
    ap_fail(&it->err, AP_ERR_OVERFLOW, "persistent request of %zu bytes overflows", bytes);
    return NULL;
  }
  uint8_t *raw = ap_alloc(it->alloc, total);
  if (!raw) {
    ap_fail(&it->err, AP_ERR_NOMEM, "out of memory for %zu bytes of persistent state", bytes);
    return NULL;
  }
  ap_block *b = (ap_block *)raw;
  b->next = it->blocks;
  it->blocks = b;
  memset(raw + RT_ALIGN, 0, bytes);
  it->persistent_bytes += bytes;
  return raw + RT_ALIGN;
}

void rt_release(ap_interpreter *it) {
  while (it->blocks) {
    ap_block *n = it->blocks->next;
    ap_free(it->alloc, it->blocks);
    it->blocks = n;
  }
  ap_free(it->alloc, it->arena_mem);
  it->arena_mem = NULL;
  it->arena = NULL;
  it->arena_bytes = 0;
  it->persistent_bytes = 0;
  if (it->buf) it->tail_used = it->tables_bytes;
  it->allocated = false;
}
