/* Caller-owned buffers: the reported total is the exact size that works for a 16-byte aligned
 * buffer (one byte less fails with the message), unaligned buffers work, nothing is written
 * outside the buffer, and with room for planning nothing comes from the allocator. */
#include "rt_test.h"

#include <stdlib.h>

enum { GUARD = 64 };

typedef struct guarded {
  uint8_t *raw; /* GUARD bytes, the buffer, GUARD bytes; raw is 16-byte aligned */
  size_t size;
  size_t offset; /* of the buffer from raw + GUARD */
} guarded;

static uint8_t *guarded_make(guarded *g, size_t size, size_t offset) {
  g->size = size;
  g->offset = offset;
  g->raw = aligned_alloc(16, (2 * GUARD + size + offset + 15) / 16 * 16);
  memset(g->raw, 0xA5, 2 * GUARD + size + offset);
  return g->raw + GUARD + offset;
}

static bool guarded_intact(const guarded *g) {
  for (size_t i = 0; i < GUARD + g->offset; i++)
    if (g->raw[i] != 0xA5) return false;
  const uint8_t *after = g->raw + GUARD + g->offset + g->size;
  for (size_t i = 0; i < GUARD; i++)
    if (after[i] != 0xA5) return false;
  return true;
}

/* Runs the model in a buffer of `size` at `offset` from 16-byte alignment. Returns the status
 * of allocate; on success checks seed 1 against the oracle. */
static ap_status run_in(const char *name, ap_model *m, size_t size, size_t offset, rt_counter *cnt,
                        char *msg, size_t msg_size, ap_memory_usage *u) {
  guarded g;
  uint8_t *buf = guarded_make(&g, size, offset);
  ap_allocator a = rt_counting(cnt);
  ap_interpreter_options o = ap_interpreter_defaults();
  o.allocator = &a;
  o.arena = buf;
  o.arena_size = size;
  ap_interpreter *it;
  ap_status s = ap_interpreter_create(m, &o, &it);
  CHECK_MSG(s == AP_OK, "%s: create in %zu bytes: %s", name, size, ap_interpreter_error(it));
  CHECK_EQ(atomic_load(&cnt->allocs), 0);
  if (s == AP_OK) s = ap_interpreter_allocate(it);
  snprintf(msg, msg_size, "%s", ap_interpreter_error(it));
  if (s == AP_OK) {
    CHECK(ap_interpreter_memory(it, u) == AP_OK);
    CHECK(rt_feed_oracle(it, name, 1));
    long before = atomic_load(&cnt->allocs);
    CHECK(ap_interpreter_invoke(it) == AP_OK);
    CHECK_EQ(atomic_load(&cnt->allocs), before);
    CHECK_MSG(rt_matches_oracle(it, name, 1, 0), "%s in a caller buffer", name);
    ap_tensor t;
    CHECK(ap_interpreter_input(it, 0, &t) == AP_OK);
    CHECK((uint8_t *)t.data >= buf && (uint8_t *)t.data + t.bytes <= buf + size);
    /* Allocating again in the same buffer gives the same layout. */
    CHECK(ap_interpreter_allocate(it) == AP_OK);
    ap_tensor t2;
    CHECK(ap_interpreter_input(it, 0, &t2) == AP_OK);
    CHECK(t2.data == t.data);
  }
  ap_interpreter_destroy(it);
  CHECK_EQ(atomic_load(&cnt->live_bytes), 0); /* planning temporaries were all freed */
  CHECK_MSG(guarded_intact(&g), "%s: bytes outside the buffer were written", name);
  free(g.raw);
  return s;
}

static void exact_size(const char *name) {
  ap_model *m = rt_load(name);
  if (!m) {
    CHECK(m != NULL);
    return;
  }
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, NULL, &it) == AP_OK);
  CHECK(ap_interpreter_allocate(it) == AP_OK);
  ap_memory_usage heap;
  CHECK(ap_interpreter_memory(it, &heap) == AP_OK);
  ap_interpreter_destroy(it);

  rt_counter cnt;
  char msg[512];
  ap_memory_usage u;
  /* The total measured with the allocator is the size that works... */
  CHECK_EQ(run_in(name, m, heap.total, 0, &cnt, msg, sizeof msg, &u), AP_OK);
  CHECK_EQ(u.total, heap.total);
  CHECK_EQ(u.arena, heap.arena);
  CHECK_EQ(u.tables, heap.tables);
  CHECK_EQ(u.persistent, heap.persistent);
  /* ...and one byte less does not. */
  CHECK_EQ(run_in(name, m, heap.total - 1, 0, &cnt, msg, sizeof msg, &u), AP_ERR_ARENA_TOO_SMALL);
  char want[128];
  snprintf(want, sizeof want, "arena too small: needs %llu bytes, buffer has %llu",
           (unsigned long long)heap.total, (unsigned long long)heap.total - 1);
  CHECK_STR(msg, want);
  /* Sixteen less fails the same way (the arena, not the tail, is what does not fit). */
  CHECK_EQ(run_in(name, m, heap.total - 16, 0, &cnt, msg, sizeof msg, &u), AP_ERR_ARENA_TOO_SMALL);
  snprintf(want, sizeof want, "arena too small: needs %llu bytes, buffer has %llu",
           (unsigned long long)heap.total, (unsigned long long)heap.total - 16);
  CHECK_STR(msg, want);
  /* Unaligned buffers: aligned inside; 30 spare bytes cover both ends' padding. */
  for (size_t off = 1; off < 16; off += 3) {
    CHECK_EQ(run_in(name, m, heap.total + 30, off, &cnt, msg, sizeof msg, &u), AP_OK);
    CHECK_EQ(u.total, heap.total);
  }
  /* Unaligned and too small: the message says why the need may look odd. */
  CHECK_EQ(run_in(name, m, heap.total - 1, 5, &cnt, msg, sizeof msg, &u), AP_ERR_ARENA_TOO_SMALL);
  CHECK_CONTAINS(msg, "arena too small: needs ");
  CHECK_CONTAINS(msg, "not 16-byte aligned");
  /* With room for planning too, the allocator is never called at all. */
  CHECK_EQ(run_in(name, m, heap.total + (4u << 20), 0, &cnt, msg, sizeof msg, &u), AP_OK);
  CHECK_EQ(atomic_load(&cnt.allocs), 0);
  CHECK_EQ(u.total, heap.total);
  ap_model_destroy(m);
}

/* A buffer too small for the interpreter itself: no handle, AP_ERR_ARENA_TOO_SMALL; one too
 * small for the tables: the message says so. */
static void tiny_buffers(void) {
  ap_model *m = rt_load("hello_world_float");
  if (!m) return;
  _Alignas(16) uint8_t small[64];
  ap_interpreter_options o = ap_interpreter_defaults();
  o.arena = small;
  o.arena_size = sizeof small;
  ap_interpreter *it = (ap_interpreter *)1;
  CHECK_EQ(ap_interpreter_create(m, &o, &it), AP_ERR_ARENA_TOO_SMALL);
  CHECK(it == NULL);
  /* Pointer without size, size without pointer. */
  o.arena_size = 0;
  CHECK_EQ(ap_interpreter_create(m, &o, &it), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it), "a caller-owned arena needs both a pointer and a size");
  ap_interpreter_destroy(it);
  o.arena = NULL;
  o.arena_size = 100;
  CHECK_EQ(ap_interpreter_create(m, &o, &it), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it), "a caller-owned arena needs both a pointer and a size");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  exact_size("hello_world_float");
  exact_size("person_detect_int8");
  exact_size("mlperf_kws_dscnn_int8");
  exact_size("mlperf_vww_int8");
  tiny_buffers();
  return ap_test_done();
}
