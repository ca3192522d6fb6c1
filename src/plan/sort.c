#include "plan/sort.h"

#include <string.h>

static void insertion(ap_kv *v, size_t n) {
  for (size_t i = 1; i < n; i++) {
    ap_kv x = v[i];
    size_t j = i;
    while (j > 0 && v[j - 1].key > x.key) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
}

ap_status ap_sort_kv(const ap_allocator *a, ap_kv *v, size_t n) {
  if (n < 48) {
    insertion(v, n);
    return AP_OK;
  }
  uint64_t all_or = 0, all_and = ~(uint64_t)0;
  for (size_t i = 0; i < n; i++) {
    all_or |= v[i].key;
    all_and &= v[i].key;
  }
  ap_kv *tmp = ap_calloc(a, n, sizeof *tmp);
  if (!tmp) return AP_ERR_NOMEM;
  ap_kv *src = v, *dst = tmp;
  for (unsigned shift = 0; shift < 64; shift += 8) {
    /* A byte equal in every key cannot change the order: skip its pass. */
    if ((((all_or ^ all_and) >> shift) & 0xff) == 0) continue;
    size_t count[257] = {0};
    for (size_t i = 0; i < n; i++)
      count[((src[i].key >> shift) & 0xff) + 1]++;
    for (int b = 0; b < 256; b++)
      count[b + 1] += count[b];
    for (size_t i = 0; i < n; i++)
      dst[count[(src[i].key >> shift) & 0xff]++] = src[i];
    ap_kv *t = src;
    src = dst;
    dst = t;
  }
  if (src != v) memcpy(v, src, n * sizeof *v);
  ap_free(a, tmp);
  return AP_OK;
}
