/* Helpers for the Signal ops' tests: FlexBuffers option maps written by hand (integer and bool
 * values, 8-byte slots), and one op run through the registry as the runtime runs it (prepare,
 * then eval on the same params with empty options, scratch and state from the heap, the state
 * kept across runs until sig_free). */
#ifndef AP_TESTS_SIGTEST_H
#define AP_TESTS_SIGTEST_H

#include "kernels/kops_signal.h"
#include "ktest.h"

#include <string.h>

typedef struct sig_opt {
  const char *key; /* the map's keys must be given sorted */
  int64_t value;
  bool is_bool;
} sig_opt;

static inline void sig_put(uint8_t *b, size_t *at, uint64_t v, int width) {
  for (int i = 0; i < width; i++)
    b[(*at)++] = (uint8_t)(v >> (8 * i));
}

/* A FlexBuffers map of n entries into buf (at least 64 + 48 * n bytes); its size. */
static inline size_t sig_flex_map(uint8_t *buf, const sig_opt *opts, size_t n) {
  size_t at = 0, key_at[16];
  for (size_t i = 0; i < n; i++) {
    key_at[i] = at;
    size_t len = strlen(opts[i].key) + 1;
    memcpy(buf + at, opts[i].key, len);
    at += len;
  }
  while (at % 8)
    buf[at++] = 0;
  sig_put(buf, &at, n, 8); /* the keys vector: its size, then an offset per key */
  size_t keys = at;
  for (size_t i = 0; i < n; i++)
    sig_put(buf, &at, at - key_at[i], 8);
  sig_put(buf, &at, at - keys, 8); /* the map: keys vector offset, its width, size, values */
  sig_put(buf, &at, 8, 8);
  sig_put(buf, &at, n, 8);
  size_t map = at;
  for (size_t i = 0; i < n; i++)
    sig_put(buf, &at, (uint64_t)opts[i].value, 8);
  for (size_t i = 0; i < n; i++) /* packed types: INT (1) or BOOL (26), 8 bytes wide */
    buf[at++] = (uint8_t)((opts[i].is_bool ? 26 : 1) << 2 | 3);
  while (at % 8)
    buf[at++] = 0;
  sig_put(buf, &at, at - map, 8); /* the root: an offset to the map, its type, its width */
  buf[at++] = 9 << 2 | 3;
  buf[at++] = 8;
  return at;
}

typedef struct sig_run {
  _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
  ap_kop_options opt;
  ap_errbuf err;
  ap_kctx c;
  uint8_t flex[1024];
  void *state;
  size_t state_bytes;
} sig_run;

static inline void sig_setup(sig_run *r, const ap_ktensor *const *ins, int n_in, ap_ktensor **outs,
                             int n_out, const sig_opt *opts, size_t n_opts) {
  memset(r, 0, sizeof *r);
  r->c = (ap_kctx){ins, n_in, outs, n_out, &r->opt, r->params, NULL, &r->err};
  if (opts) {
    r->opt.custom_options = r->flex;
    r->opt.custom_options_size = sig_flex_map(r->flex, opts, n_opts);
  }
}

/* Prepare's status, or eval's when prepare succeeded. */
static inline ap_status sig_do(sig_run *r, const char *name) {
  const ap_kernel *k = ap_kernel_find_custom(name);
  if (!k) return AP_ERR_UNSUPPORTED;
  size_t scratch = 0;
  r->err.msg[0] = 0;
  r->c.options = &r->opt;
  ap_status s = k->prepare(&r->c, &scratch);
  if (s != AP_OK) return s;
  ap_kstate *st = ap_kernel_state(k, r->params);
  if (st && st->bytes) {
    if (!r->state) {
      r->state = calloc(1, st->bytes);
      r->state_bytes = st->bytes;
    }
    if (st->bytes > r->state_bytes) return AP_ERR_INVALID_PLAN;
    st->data = r->state;
  }
  void *buf = scratch ? malloc(scratch) : NULL;
  r->c.scratch = buf;
  static const ap_kop_options none;
  r->c.options = &none;
  s = k->eval(&r->c);
  r->c.options = &r->opt;
  r->c.scratch = NULL;
  free(buf);
  return s;
}

static inline void sig_free(sig_run *r) {
  free(r->state);
  r->state = NULL;
}

/* A failure's message is one line naming the op. */
#define CHECK_SIG_FAIL(r, name, status, text)                                                      \
  do {                                                                                             \
    CHECK_EQ(sig_do(r, name), status);                                                             \
    CHECK_CONTAINS((r)->err.msg, name);                                                            \
    CHECK_CONTAINS((r)->err.msg, text);                                                            \
    CHECK(strchr((r)->err.msg, '\n') == NULL);                                                     \
  } while (0)

#endif
