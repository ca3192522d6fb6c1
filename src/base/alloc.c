#include "base.h"

#include <stdlib.h>
#include <string.h>

static void *default_alloc(void *ctx, size_t size) {
  (void)ctx;
  return malloc(size ? size : 1);
}

static void default_free(void *ctx, void *p) {
  (void)ctx;
  free(p);
}

static const ap_allocator default_allocator = {default_alloc, default_free, NULL};

const ap_allocator *ap_default_allocator(void) {
  return &default_allocator;
}

static void *no_alloc(void *ctx, size_t size) {
  (void)ctx, (void)size;
  return NULL;
}

static void no_free(void *ctx, void *p) {
  (void)ctx, (void)p;
}

static const ap_allocator no_heap = {no_alloc, no_free, NULL};

const ap_allocator *ap_no_heap(void) {
  return &no_heap;
}

const ap_allocator *ap_alloc_or_default(const ap_allocator *a) {
  return (a && a->alloc && a->free) ? a : &default_allocator;
}

void *ap_alloc(const ap_allocator *a, size_t size) {
  a = ap_alloc_or_default(a);
  return a->alloc(a->ctx, size);
}

void *ap_calloc(const ap_allocator *a, size_t n, size_t size) {
  size_t total;
  if (!ap_mul_size(n, size, &total)) return NULL;
  void *p = ap_alloc(a, total);
  if (p) memset(p, 0, total);
  return p;
}

void ap_free(const ap_allocator *a, void *p) {
  if (!p) return;
  a = ap_alloc_or_default(a);
  a->free(a->ctx, p);
}
