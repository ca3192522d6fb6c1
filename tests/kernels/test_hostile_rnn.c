/* Hostile variations of valid UNIDIRECTIONAL_SEQUENCE_LSTM (int8, float) and SVDF (int8)
 * cases, which test_hostile.c's at most three inputs never reach: one or two random mutations
 * (a dim to 0, -1, 3 or INT32_MAX, a rank, a type, a scale to 0, a denormal, 1e30, inf or NaN,
 * a zero point, an input removed, an option) per case. Prepare may refuse with a message;
 * whatever it accepts must evaluate within its tensors and scratch (the ASan+UBSan build is the
 * judge; a guard pattern after the output and the scratch checks the rest here). */
#include "kernels/kops.h"
#include "ktest.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng = 4242;
static int rnd(int lo, int hi) {
  return lo + (int)(ap_test_rand(&rng) % (uint64_t)(hi - lo + 1));
}

enum { MAXIN = 24, GUARD = 16 };

typedef struct hcase {
  ap_ktensor t[MAXIN], out;
  bool present[MAXIN];
  int n_in, builtin;
  ap_kop_options opt;
} hcase;

static void lstm_base(hcase *h, bool fl) {
  memset(h, 0, sizeof *h);
  h->builtin = 44;
  h->n_in = 24;
  int a = fl ? AP_FLOAT32 : AP_INT8;
  h->t[0] = ktq(a, NULL, 3, 1, 3, 2, 0, 1.0f / 128, -3);
  for (int g = 0; g < 4; g++) {
    h->t[1 + g] = ktq(fl ? AP_FLOAT32 : AP_INT8, NULL, 2, 4, 2, 0, 0, 1.0f / 32, 0);
    h->t[5 + g] = ktq(fl ? AP_FLOAT32 : AP_INT8, NULL, 2, 4, 4, 0, 0, 1.0f / 64, 0);
    h->t[12 + g] = ktq(fl ? AP_FLOAT32 : AP_INT32, NULL, 1, 4, 0, 0, 0, 1.0f / 4096, 0);
    h->present[1 + g] = h->present[5 + g] = h->present[12 + g] = true;
  }
  h->t[18] = ktq(a, NULL, 2, 1, 4, 0, 0, 1.0f / 128, 4);
  h->t[19] = ktq(fl ? AP_FLOAT32 : AP_INT16, NULL, 2, 1, 4, 0, 0, 1.0f / 2048, 0);
  h->t[18].is_variable = h->t[19].is_variable = true;
  h->present[0] = h->present[18] = h->present[19] = true;
  h->out = ktq(a, NULL, 0, 0, 0, 0, 0, 1.0f / 128, 4);
  h->opt.activation = AP_KACT_TANH;
  h->opt.lstm.cell_clip = 3.0f;
}

static void svdf_base(hcase *h) {
  memset(h, 0, sizeof *h);
  h->builtin = 27;
  h->n_in = 5;
  h->t[0] = ktq(AP_INT8, NULL, 2, 2, 3, 0, 0, 1.0f / 16, -1);
  h->t[1] = ktq(AP_INT8, NULL, 2, 4, 3, 0, 0, 1.0f / 16, 0);
  h->t[2] = ktq(AP_INT16, NULL, 2, 4, 2, 0, 0, 1.0f / 16, 0);
  h->t[3] = ktq(AP_INT32, NULL, 1, 2, 0, 0, 0, 1.0f / 8192, 0);
  h->t[4] = ktq(AP_INT16, NULL, 2, 2, 8, 0, 0, 1.0f / 512, 0);
  h->t[4].is_variable = true;
  for (int i = 0; i < 5; i++)
    h->present[i] = true;
  h->out = ktq(AP_INT8, NULL, 0, 0, 0, 0, 0, 1.0f / 64, 3);
  h->opt.svdf_rank = 2;
}

static void mutate(hcase *h) {
  static const float scales[] = {0.0f, 1e-45f, 1e-30f, 1e30f, INFINITY, NAN, -1.0f};
  static const int types[] = {AP_FLOAT32, AP_INT8, AP_INT16, AP_INT32, AP_UINT8};
  static const int32_t dims[] = {0, -1, 3, INT32_MAX, 1};
  int i = rnd(0, h->n_in - 1);
  ap_ktensor *t = rnd(0, 9) == 0 ? &h->out : &h->t[i];
  switch (rnd(0, 7)) {
  case 0: t->dims[rnd(0, 2)] = dims[rnd(0, 4)]; break;
  case 1: t->rank = rnd(0, 4); break;
  case 2: t->type = types[rnd(0, 4)]; break;
  case 3: t->scale = scales[rnd(0, 6)]; break;
  case 4: t->zero_point = rnd(0, 3) ? rnd(-200, 200) : INT32_MIN; break;
  case 5: h->present[i] = !h->present[i]; break;
  case 6:
    h->opt.lstm.cell_clip = scales[rnd(0, 6)];
    h->opt.lstm.time_major = rnd(0, 1);
    h->opt.svdf_rank = rnd(-1, 5);
    break;
  default: h->opt.activation = rnd(0, 6); break;
  }
}

/* Data for every present input, sized to its shape (as the model layer guarantees), or the
 * case is skipped when a shape cannot be backed. */
static bool back(hcase *h, unsigned char **mem) {
  for (int i = 0; i < h->n_in; i++) {
    mem[i] = NULL;
    if (!h->present[i]) continue;
    size_t n, es = ap_ktype_size(h->t[i].type);
    if (!ap_ktensor_count(&h->t[i], &n) || !es || n > 4096) return false;
    mem[i] = malloc(n * es + 1);
    for (size_t b = 0; b < n * es; b++)
      mem[i][b] = (unsigned char)ap_test_rand(&rng);
    h->t[i].data = mem[i];
  }
  return true;
}

static void run_case(hcase *h, size_t *prepared, size_t *evaluated) {
  unsigned char *mem[MAXIN] = {0};
  if (back(h, mem)) {
    const ap_ktensor *ins[MAXIN];
    for (int i = 0; i < h->n_in; i++)
      ins[i] = h->present[i] ? &h->t[i] : NULL;
    ap_ktensor *outs[1] = {&h->out};
    _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
    ap_errbuf e = {""};
    ap_kctx c = {ins, h->n_in, outs, 1, &h->opt, params, NULL, &e};
    const ap_kernel *k = ap_kernel_find(h->builtin);
    size_t scratch = 0, n;
    ap_status s = k->prepare(&c, &scratch);
    if (s != AP_OK) {
      CHECK_MSG(e.msg[0] != '\0', "%s failed without a message", k->name);
    } else if (ap_ktensor_count(&h->out, &n) && n <= 4096 && scratch <= (1u << 20)) {
      (*prepared)++;
      size_t ob = n * ap_ktype_size(h->out.type);
      unsigned char *buf = malloc(ob + GUARD), *sc = aligned_alloc(16, scratch + GUARD);
      memset(buf + ob, 0x5A, GUARD);
      memset(sc + scratch, 0x5A, GUARD);
      h->out.data = buf;
      c.scratch = sc;
      static const ap_kop_options none;
      c.options = &none;
      (void)k->eval(&c);
      (*evaluated)++;
      bool guard = true;
      for (int i = 0; i < GUARD; i++)
        guard = guard && buf[ob + i] == 0x5A && sc[scratch + i] == 0x5A;
      CHECK_MSG(guard, "%s wrote past its output or scratch", k->name);
      free(buf);
      free(sc);
    }
  }
  for (int i = 0; i < h->n_in; i++)
    free(mem[i]);
}

int main(void) {
  size_t prepared = 0, evaluated = 0;
  static hcase h;
  for (int iter = 0; iter < 3000; iter++) {
    int which = iter % 3;
    if (which == 2)
      svdf_base(&h);
    else
      lstm_base(&h, which == 1);
    int m = iter < 30 ? 0 : rnd(1, 2); /* the first cases unmutated: they must run */
    for (int j = 0; j < m; j++)
      mutate(&h);
    size_t before = evaluated;
    run_case(&h, &prepared, &evaluated);
    if (iter < 30) CHECK_MSG(evaluated == before + 1, "unmutated case %d did not run", iter);
  }
  printf("prepared %zu, evaluated %zu of 3000\n", prepared, evaluated);
  CHECK(evaluated > 300);
  return ap_test_done();
}
