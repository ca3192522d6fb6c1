/* A harness for the fast kernels' tests: runs an op through the registry as the runtime does,
 * with the reference kernels and with each SIMD level this CPU has on 1, 2 and 3 threads
 * (every op split, however small), and checks every output equals the reference's. */
#ifndef AP_TESTS_KERNELS_FASTCMP_H
#define AP_TESTS_KERNELS_FASTCMP_H

#include "kernels/fast/fast.h"
#include "kernels/registry.h"
#include "ktest.h"
#include "levels.h"

#include <string.h>

typedef struct fc_cfg {
  ap_kexec x;
  const char *name;
} fc_cfg;
static fc_cfg fc_cfgs[48]; /* 1-3 threads, and lean on 1-3, at each of AP_TEST_MAX_LEVELS */
static int fc_ncfg;
static ap_port_workers *fc_w2, *fc_w3;

static void fc_add_level(const ap_fast_level *l) {
  fc_cfgs[fc_ncfg++] = (fc_cfg){{.level = l, .threads = 1, .parallel_min = 1}, l->name};
  fc_cfgs[fc_ncfg++] =
      (fc_cfg){{.level = l, .workers = fc_w2, .threads = 2, .parallel_min = 1}, l->name};
  fc_cfgs[fc_ncfg++] =
      (fc_cfg){{.level = l, .workers = fc_w3, .threads = 3, .parallel_min = 1}, l->name};
}

/* Every level the CPU has, with 1-3 threads. */
static void fc_setup(void) {
  CHECK(ap_port_workers_create(NULL, 2, &fc_w2, NULL) == AP_OK);
  CHECK(ap_port_workers_create(NULL, 3, &fc_w3, NULL) == AP_OK);
  const ap_fast_level *l[AP_TEST_MAX_LEVELS];
  for (int i = 0, n = ap_test_levels(l); i < n; i++)
    fc_add_level(l[i]);
}

static void fc_teardown(void) {
  ap_port_workers_destroy(fc_w2);
  ap_port_workers_destroy(fc_w3);
}

/* Prepare and eval of `builtin` with exec x (NULL: reference): the output bytes (malloc'd) or
 * NULL with *s the failure; *scratch the bytes prepare asked for. */
static uint8_t *fc_run(int32_t builtin, const ap_kop_options *o, const ap_ktensor *const *ins,
                       int n, const ap_ktensor *out_view, const ap_kexec *x, size_t *bytes,
                       size_t *scratch, ap_status *s) {
  const ap_kernel *k = ap_kernel_find(builtin);
  _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
  memset(params, 0, sizeof params);
  ap_kop_options opt = *o;
  opt.exec = x;
  ap_errbuf err = {{0}};
  ap_ktensor out = *out_view, *outs[1] = {&out};
  ap_kctx c = {ins, n, outs, 1, &opt, params, NULL, &err};
  *scratch = 0;
  *s = k->prepare(&c, scratch);
  if (*s != AP_OK) return NULL;
  size_t count;
  ap_ktensor_count(&out, &count);
  count *= ap_ktype_size(out.type);
  *bytes = count;
  out.data = malloc(count ? count : 1);
  /* a pattern, not the bytes of the run before (malloc hands the freed block back): an output
   * byte no piece writes differs */
  if (out.data) memset(out.data, 0xa5, count);
  void *sc = *scratch ? aligned_alloc(16, ap_kscratch_round(*scratch)) : NULL;
  c.scratch = sc;
  /* eval sees only what the runtime keeps: the params and the exec. */
  ap_kop_options run_opt = {0};
  run_opt.exec = x;
  c.options = &run_opt;
  *s = k->eval(&c);
  free(sc);
  return out.data;
}

/* Every configuration's output equals the reference's (floats bit for bit, any NaN equal to
 * any NaN). */
static void fc_compare(const char *what, int32_t builtin, const ap_kop_options *o,
                       const ap_ktensor *const *ins, int n, const ap_ktensor *out_view) {
  size_t nref = 0, nf = 0, sc;
  ap_status s;
  uint8_t *ref = fc_run(builtin, o, ins, n, out_view, NULL, &nref, &sc, &s);
  CHECK_MSG(ref && s == AP_OK, "%s: reference failed (%d)", what, (int)s);
  for (int i = 0; ref && i < fc_ncfg; i++) {
    uint8_t *got = fc_run(builtin, o, ins, n, out_view, &fc_cfgs[i].x, &nf, &sc, &s);
    size_t at = 0;
    while (got && s == AP_OK && at < nref && at < nf && got[at] == ref[at])
      at++;
    bool same = got && s == AP_OK && nf == nref && at == nref;
    if (!same && got && out_view->type == AP_FLOAT32 && nf == nref) {
      same = true;
      for (size_t e = 0; e + 4 <= nref && same; e += 4) {
        float a, b;
        memcpy(&a, got + e, 4);
        memcpy(&b, ref + e, 4);
        same = memcmp(&a, &b, 4) == 0 || (isnan(a) && isnan(b));
      }
    }
    CHECK_MSG(same, "%s: %s with %d threads differs at byte %zu of %zu (%d, reference %d)", what,
              fc_cfgs[i].name, fc_cfgs[i].x.threads, at, nref, got && at < nf ? got[at] : 0,
              at < nref ? ref[at] : 0);
    free(got);
  }
  free(ref);
}

#endif
