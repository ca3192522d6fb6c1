/* Hostile parameters through every registered kernel: random types, shapes (zero, negative,
 * huge), scales (0, denormal, huge, inf, NaN), zero points and options. Prepare may refuse;
 * whatever it accepts must evaluate without a crash or undefined behaviour (the ASan+UBSan
 * build is the real judge) and write only inside the output. */
#include "kernels/registry.h"
#include "ktest.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng = 777;
static uint64_t r64(void) {
  return ap_test_rand(&rng);
}
static int rnd(int lo, int hi) {
  return lo + (int)(r64() % (uint64_t)(hi - lo + 1));
}

static const int types[] = {AP_FLOAT32, AP_INT8, AP_UINT8, AP_INT32, AP_INT16, AP_INT64};

static float rscale(void) {
  static const float odd[] = {0.0f, 1e-45f, 1e-30f, 1e30f, INFINITY, NAN, -1.0f, 1.0f / 256};
  if (rnd(0, 3) == 0) return odd[rnd(0, 7)];
  return (float)ldexp(1.0 + rnd(0, 1000) / 1000.0, rnd(-12, 2));
}

static int32_t rdim(void) {
  int k = rnd(0, 30);
  if (k == 0) return 0;
  if (k == 1) return -1;
  if (k == 2) return INT32_MAX;
  if (k < 12) return 1;
  return rnd(1, 5);
}

typedef struct slot {
  ap_ktensor t;
  float scales[8];
  unsigned char *mem;
  size_t bytes;
} slot;

/* Mostly the op's own type and 4-D, so that many cases get past prepare. */
static int base_type;

static void make(slot *s, bool small_int_data) {
  memset(&s->t, 0, sizeof s->t);
  s->t.type = rnd(0, 9) < 7 ? base_type : types[rnd(0, 5)];
  s->t.rank = rnd(0, 1) ? 4 : rnd(0, 4);
  for (int i = 0; i < s->t.rank; i++)
    s->t.dims[i] = rdim();
  s->t.scale = rscale();
  s->t.zero_point = rnd(0, 5) == 0 ? (int32_t)r64() : rnd(-128, 255);
  if (rnd(0, 2) == 0) {
    s->t.n_channels = rnd(1, 8);
    for (int i = 0; i < s->t.n_channels; i++)
      s->scales[i] = rscale();
    s->t.channel_scales = s->scales;
  }
  size_t n = 0, es = ap_ktype_size(s->t.type);
  s->bytes = 0;
  s->mem = NULL;
  if (ap_ktensor_count(&s->t, &n) && es && n <= 4096) s->bytes = n * es;
  /* A tensor's data always covers its shape (the model layer verifies buffer sizes): shapes
   * too large to back get no data, which prepare must refuse where it needs data. */
  s->mem = malloc(s->bytes + 1);
  for (size_t i = 0; i < s->bytes; i++)
    s->mem[i] = (unsigned char)r64();
  if (small_int_data && s->t.type == AP_INT32) {
    for (size_t i = 0; i < s->bytes / 4; i++)
      ((int32_t *)s->mem)[i] = rnd(-3, 5);
  }
  s->t.data = s->bytes || (ap_ktensor_count(&s->t, &n) && n == 0) ? s->mem : NULL;
}

int main(void) {
  size_t prepared = 0, evaluated = 0;
  for (int iter = 0; iter < 40000; iter++) {
    const ap_kernel *k = ap_kernel_at((size_t)rnd(0, (int)ap_kernel_count() - 1));
    slot in[3], out;
    base_type = types[rnd(0, 2)];
    int n_in = rnd(1, 3);
    for (int i = 0; i < n_in; i++)
      make(&in[i], true);
    make(&out, false);
    const ap_ktensor *ins[3] = {&in[0].t, n_in > 1 ? &in[1].t : NULL, n_in > 2 ? &in[2].t : NULL};
    ap_ktensor *outs[1] = {&out.t};
    ap_kop_options o;
    memset(&o, 0, sizeof o);
    o.activation = rnd(0, 6);
    o.conv = (ap_conv_options){rnd(0, 2),  rnd(-1, 3), rnd(-1, 3), rnd(-1, 3),
                               rnd(-1, 3), rnd(0, 6),  rnd(0, 3),  rnd(0, 9)};
    o.pool =
        (ap_pool_options){rnd(0, 2), rnd(-1, 3), rnd(-1, 3), rnd(-1, 4), rnd(-1, 4), rnd(0, 6)};
    o.fc = (ap_fc_options){rnd(0, 6), rnd(0, 1) == 1, rnd(0, 1) == 1, rnd(0, 9)};
    o.beta = rscale();
    o.axis = rnd(-5, 5);
    o.keep_dims = rnd(0, 1) == 1;
    _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
    ap_errbuf e = {""};
    ap_kctx c = {ins, n_in, outs, 1, &o, params, NULL, &e};
    size_t scratch_bytes = 0;
    ap_status s = k->prepare(&c, &scratch_bytes);
    if (s == AP_OK) {
      prepared++;
      size_t n, es = ap_ktype_size(out.t.type);
      /* The output buffer is sized for the dims prepare chose, plus a guard byte pattern. */
      if (ap_ktensor_count(&out.t, &n) && es && n <= 4096 && scratch_bytes <= (1u << 20)) {
        unsigned char *buf = malloc(n * es + 16);
        memset(buf + n * es, 0x5A, 16);
        void *scratch = scratch_bytes ? aligned_alloc(16, ap_kscratch_round(scratch_bytes)) : NULL;
        out.t.data = buf;
        c.scratch = scratch;
        bool inputs_fit = true;
        for (int i = 0; i < n_in; i++) {
          size_t m;
          if (!ap_ktensor_count(&in[i].t, &m) || m * ap_ktype_size(in[i].t.type) > in[i].bytes) {
            inputs_fit = false;
          }
        }
        if (inputs_fit) {
          (void)k->eval(&c);
          evaluated++;
        }
        bool guard = true;
        for (int i = 0; i < 16; i++)
          guard = guard && buf[n * es + i] == 0x5A;
        CHECK_MSG(guard, "%s wrote past its output", k->name);
        free(buf);
        free(scratch);
      }
    } else {
      CHECK_MSG(e.msg[0] != '\0', "%s failed without a message", k->name);
    }
    for (int i = 0; i < n_in; i++)
      free(in[i].mem);
    free(out.mem);
  }
  printf("prepared %zu, evaluated %zu of 40000\n", prepared, evaluated);
  CHECK(evaluated > 500);
  return ap_test_done();
}
