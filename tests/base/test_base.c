#include "base/base.h"
#include "test.h"

static size_t allocs, frees;
static void *count_alloc(void *ctx, size_t n) {
  (void)ctx;
  allocs++;
  return ap_alloc(NULL, n);
}
static void count_free(void *ctx, void *p) {
  (void)ctx;
  if (p) frees++;
  ap_free(NULL, p);
}

int main(void) {
  size_t s;
  CHECK(ap_add_size(1, 2, &s) && s == 3);
  CHECK(!ap_add_size(SIZE_MAX, 1, &s));
  CHECK(!ap_mul_size(SIZE_MAX / 2 + 1, 2, &s));
  CHECK(ap_mul_size(SIZE_MAX / 2, 2, &s) && s == SIZE_MAX - 1);
  uint64_t v;
  CHECK(ap_align_up(0, 16, &v) && v == 0);
  CHECK(ap_align_up(17, 16, &v) && v == 32);
  CHECK(ap_align_up(10, 3, &v) && v == 12);
  CHECK(ap_align_up(5, 1, &v) && v == 5);
  CHECK(!ap_align_up(UINT64_MAX - 2, 16, &v));
  CHECK(ap_is_pow2(64) && !ap_is_pow2(0) && !ap_is_pow2(48));

  /* A caller's allocator is used, and calloc refuses an overflowing product. */
  ap_allocator a = {count_alloc, count_free, NULL};
  void *p = ap_calloc(&a, 10, 10);
  CHECK(p != NULL && allocs == 1);
  ap_free(&a, p);
  CHECK(frees == 1);
  CHECK(ap_calloc(&a, SIZE_MAX / 2, 3) == NULL && allocs == 1);

  ap_errbuf e;
  CHECK(ap_fail(&e, AP_ERR_FORMAT, "tensor %d: %s", 7, "bad") == AP_ERR_FORMAT);
  CHECK_STR(e.msg, "tensor 7: bad");
  CHECK_STR(ap_status_name(AP_ERR_ARENA_TOO_SMALL), "AP_ERR_ARENA_TOO_SMALL");
  CHECK_STR(ap_status_name((ap_status)999), "AP_ERR_UNKNOWN");
  return ap_test_done();
}
