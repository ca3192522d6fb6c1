/* TFLite's string tensor buffer: int32 count n, int32 offsets[n + 1] from the buffer's start
 * (offsets[0] = 4 * (n + 2), string i is [offsets[i], offsets[i + 1]), offsets[n] its end),
 * then the bytes. Every field comes from the file or the caller: nothing is trusted before
 * ap_string_buffer_check has seen it. */
#include "arenaplan/model.h"
#include "base/base.h"

#include <string.h>

static int32_t word(const uint8_t *p, size_t i) {
  int32_t v;
  memcpy(&v, p + 4 * i, 4); /* no alignment assumed: a caller's bytes */
  return v;
}

/* The message of e into err (cut to err_size); returns AP_ERR_FORMAT. Through ap_fail, so
 * that a firmware without messages (AP_NO_MESSAGES) links no formatting. */
static ap_status refuse(const ap_errbuf *e, char *err, size_t err_size) {
  size_t n = strlen(e->msg);
  if (n >= err_size) n = err_size - 1;
  memcpy(err, e->msg, n);
  err[n] = '\0';
  return AP_ERR_FORMAT;
}
#define FAIL(...) (ap_fail(&e, AP_ERR_FORMAT, __VA_ARGS__), refuse(&e, err, err_size))

ap_status ap_string_buffer_check(const void *data, size_t size, size_t count, size_t *used,
                                 char *err, size_t err_size) {
  char dummy[1];
  ap_errbuf e;
  if (!err || !err_size) {
    err = dummy;
    err_size = sizeof dummy;
  }
  err[0] = '\0';
  if (!data && size) return AP_ERR_ARG;
  const uint8_t *p = data;
  if (size < 4) return FAIL("string buffer of %zu bytes: shorter than its 4-byte count", size);
  int32_t n = word(p, 0);
  size_t header;
  if (n < 0 || !ap_mul_size((size_t)n + 2, 4, &header))
    return FAIL("string buffer: count %d is negative or overflows", n);
  if (count != SIZE_MAX && (size_t)n != count)
    return FAIL("string buffer holds %d strings, the tensor has %zu elements", n, count);
  if (header > size)
    return FAIL("string buffer: %d strings need %zu bytes of offsets, the buffer has %zu", n,
                header, size);
  if ((size_t)word(p, 1) != header)
    return FAIL("string buffer: the first string starts at %d, not after the offsets (%zu)",
                word(p, 1), header);
  for (int32_t i = 0; i < n; i++) {
    int32_t a = word(p, 1 + (size_t)i), b = word(p, 2 + (size_t)i);
    if (b < a) return FAIL("string buffer: string %d ends at %d, before its start %d", i, b, a);
    if ((size_t)b > size)
      return FAIL("string buffer: string %d ends at %d, past the buffer's end (%zu)", i, b, size);
  }
  if (used) *used = (size_t)word(p, 1 + (size_t)n);
  return AP_OK;
}

bool ap_string_at(const void *data, size_t i, const uint8_t **s, size_t *len) {
  const uint8_t *p = data;
  if (!p || !s || !len) return false;
  int32_t n = word(p, 0);
  if (n < 0 || i >= (size_t)n) return false;
  int32_t a = word(p, 1 + i), b = word(p, 2 + i);
  *s = p + a;
  *len = (size_t)(b - a);
  return true;
}

size_t ap_string_count(const void *data) {
  int32_t n = data ? word(data, 0) : 0;
  return n > 0 ? (size_t)n : 0;
}

size_t ap_string_buffer_size(const void *data) {
  if (!data) return 0;
  int32_t n = word(data, 0);
  return n < 0 ? 0 : (size_t)word(data, 1 + (size_t)n);
}

ap_status ap_string_buffer_write(void *out, size_t out_size, const uint8_t *const *strings,
                                 const size_t *lens, size_t n, size_t *need) {
  size_t total;
  if (n > INT32_MAX - 2 || !ap_mul_size(n + 2, 4, &total)) return AP_ERR_OVERFLOW;
  for (size_t i = 0; i < n; i++)
    if (!ap_add_size(total, lens[i], &total) || total > INT32_MAX) return AP_ERR_OVERFLOW;
  if (need) *need = total;
  if (!out) return AP_OK;
  if (out_size < total) return AP_ERR_ARG;
  uint8_t *p = out;
  int32_t v = (int32_t)n, at = (int32_t)((n + 2) * 4);
  memcpy(p, &v, 4);
  for (size_t i = 0; i < n; i++) {
    memcpy(p + 4 * (1 + i), &at, 4);
    if (lens[i]) memcpy(p + at, strings[i], lens[i]);
    at += (int32_t)lens[i];
  }
  memcpy(p + 4 * (1 + n), &at, 4);
  return AP_OK;
}
