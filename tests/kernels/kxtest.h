/* Runs one builtin through the registry's context, as the runtime does: prepare, then eval on
 * the same params. */
#ifndef AP_TESTS_KXTEST_H
#define AP_TESTS_KXTEST_H

#include "kernels/kops.h"
#include "ktest.h"

#include <string.h>

typedef struct kx_run {
  _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
  ap_kop_options opt;
  ap_errbuf err;
  ap_kctx c;
} kx_run;

static inline void kx_setup(kx_run *r, const ap_ktensor *const *ins, int n_in, ap_ktensor **outs,
                            int n_out) {
  memset(r, 0, sizeof *r);
  r->c = (ap_kctx){ins, n_in, outs, n_out, &r->opt, r->params, NULL, &r->err};
}

/* Prepare's status; eval runs only when prepare succeeded and its status replaces it. */
static inline ap_status kx_do(kx_run *r, int32_t builtin) {
  const ap_kernel *k = ap_kernel_find(builtin);
  if (!k) return AP_ERR_UNSUPPORTED;
  size_t scratch = 1;
  r->err.msg[0] = 0;
  ap_status s = k->prepare(&r->c, &scratch);
  if (s != AP_OK) return s;
  if (scratch != 0) return AP_ERR_INVALID_PLAN;
  static const ap_kop_options none;
  r->c.options = &none; /* eval sees no options, as in the runtime */
  s = k->eval(&r->c);
  r->c.options = &r->opt;
  return s;
}

#endif
