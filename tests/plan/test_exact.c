/* The exact strategy, called directly through its ap_strategy entry. Every plan it returns is
 * checked here (aligned, no overlap in time and bytes, arena == highest end); optimal arenas
 * are checked against a brute force that is independent of the search: the best first-fit
 * over every order of the requests (any plan, pushed down, is the first-fit plan of its
 * requests sorted by offset, so the minimum over all orders is the optimum). */
#include "plan/strategy.h"
#include "test.h"

#include <stdlib.h>

extern const ap_strategy ap_strategy_exact;

static uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

static bool live_together(const ap_request *a, const ap_request *b) {
  return a->first <= b->last && b->first <= a->last;
}

static const ap_request *g_sort_req; /* for qsort by first step (tests run single-threaded) */
static int by_first(const void *pa, const void *pb) {
  size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
  int32_t fa = g_sort_req[a].first, fb = g_sort_req[b].first;
  return fa != fb ? (fa < fb ? -1 : 1) : (a > b) - (a < b);
}

/* The plan checker of this test: returns a message, or NULL when the plan is valid. Pairs are
 * found by sorting on the first step, so large plans check quickly. */
static const char *check_plan(const ap_request *r, size_t n, uint64_t align, const uint64_t *off,
                              uint64_t arena) {
  static char msg[160];
  uint64_t top = 0;
  size_t *ord = malloc((n ? n : 1) * sizeof *ord);
  for (size_t i = 0; i < n; i++)
    ord[i] = i;
  g_sort_req = r;
  qsort(ord, n, sizeof *ord, by_first);
  const char *bad = NULL;
  for (size_t x = 0; x < n && !bad; x++) {
    size_t i = ord[x];
    if (off[i] % align) {
      snprintf(msg, sizeof msg, "request %zu: offset %" PRIu64 " not aligned", i, off[i]);
      bad = msg;
    }
    if (off[i] + r[i].size > top) top = off[i] + r[i].size;
    for (size_t y = x + 1; y < n && r[ord[y]].first <= r[i].last && !bad; y++) {
      size_t j = ord[y];
      if (off[i] < off[j] + r[j].size && off[j] < off[i] + r[i].size) {
        snprintf(msg, sizeof msg, "requests %zu and %zu overlap", i, j);
        bad = msg;
      }
    }
  }
  free(ord);
  if (!bad && top != arena) {
    snprintf(msg, sizeof msg, "arena %" PRIu64 " but highest end %" PRIu64, arena, top);
    bad = msg;
  }
  return bad;
}

/* The peak of live bytes, each request but the topmost rounded up to the alignment: no plan
 * can be smaller (computed at every step where some request starts, which is where the peak
 * is, independently of exact's sections). */
static uint64_t lower_bound(const ap_request *r, size_t n, uint64_t align) {
  uint64_t lb = 0;
  for (size_t k = 0; k < n; k++) {
    int32_t t = r[k].first;
    uint64_t sum = 0, slack = 0;
    for (size_t i = 0; i < n; i++)
      if (r[i].first <= t && t <= r[i].last) {
        sum += align_up(r[i].size, align);
        if (align_up(r[i].size, align) - r[i].size > slack)
          slack = align_up(r[i].size, align) - r[i].size;
      }
    if (sum && sum - slack > lb) lb = sum - slack;
  }
  return lb;
}

/* First-fit of the requests in `order`: each at the lowest aligned offset clear of the placed
 * requests it shares a step with. */
static uint64_t first_fit(const ap_request *r, size_t n, uint64_t align, const size_t *order,
                          uint64_t *off) {
  uint64_t top = 0;
  for (size_t k = 0; k < n; k++) {
    size_t i = order[k];
    uint64_t x = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (size_t q = 0; q < k; q++) {
        size_t j = order[q];
        if (live_together(&r[i], &r[j]) && x < off[j] + r[j].size && off[j] < x + r[i].size) {
          x = align_up(off[j] + r[j].size, align);
          moved = true;
        }
      }
    }
    off[i] = x;
    if (x + r[i].size > top) top = x + r[i].size;
  }
  return top;
}

static uint64_t brute_rec(const ap_request *r, size_t n, uint64_t align, size_t *order, size_t k,
                          uint64_t *off) {
  if (k == n) return first_fit(r, n, align, order, off);
  uint64_t best = UINT64_MAX;
  for (size_t i = k; i < n; i++) {
    size_t t = order[k];
    order[k] = order[i];
    order[i] = t;
    uint64_t v = brute_rec(r, n, align, order, k + 1, off);
    if (v < best) best = v;
    order[i] = order[k];
    order[k] = t;
  }
  return best;
}

static uint64_t brute_force(const ap_request *r, size_t n, uint64_t align) {
  size_t order[10];
  uint64_t off[10];
  for (size_t i = 0; i < n; i++)
    order[i] = i;
  return brute_rec(r, n, align, order, 0, off);
}

typedef struct run {
  ap_status st;
  ap_strategy_result res;
  uint64_t *off;
} run;

/* Runs exact with a node budget (and no time budget, so the result is deterministic) and
 * checks the plan. */
static run run_exact(const ap_request *r, size_t n, uint64_t align, uint64_t nodes,
                     const uint64_t *start, uint64_t start_arena) {
  ap_errbuf err = {{0}};
  ap_strategy_ctx ctx = {.req = r,
                         .n = n,
                         .align = align,
                         .alloc = ap_alloc_or_default(NULL),
                         .lower_bound = n <= 1000 ? lower_bound(r, n, align) : 0,
                         .budget_nodes = nodes,
                         .start_offsets = start,
                         .start_arena = start_arena,
                         .err = &err};
  run out = {.off = calloc(n ? n : 1, sizeof(uint64_t))};
  out.st = ap_strategy_exact.plan(&ctx, out.off, &out.res);
  if (out.st == AP_OK) {
    const char *bad = check_plan(r, n, align, out.off, out.res.arena);
    CHECK_MSG(bad == NULL, "%s", bad ? bad : "");
  } else {
    fprintf(stderr, "exact: %s: %s\n", ap_status_name(out.st), err.msg);
  }
  return out;
}

#define REQ(sz, f, l) ((ap_request){0, (sz), (f), (l)})

/* Is there a plan with arena <= cap? Exhaustive over every aligned offset of every request
 * (in order of first step), independent of exact's search and its pruning rules. */
static bool fits_rec(const ap_request *r, size_t n, uint64_t align, uint64_t cap,
                     const size_t *order, size_t k, uint64_t *off) {
  if (k == n) return true;
  size_t i = order[k];
  for (uint64_t x = 0; x + r[i].size <= cap; x += align) {
    bool clash = false;
    for (size_t q = 0; q < k && !clash; q++) {
      size_t j = order[q];
      clash = live_together(&r[i], &r[j]) && x < off[j] + r[j].size && off[j] < x + r[i].size;
    }
    if (clash) continue;
    off[i] = x;
    if (fits_rec(r, n, align, cap, order, k + 1, off)) return true;
  }
  return false;
}

static bool fits(const ap_request *r, size_t n, uint64_t align, uint64_t cap) {
  size_t order[32];
  uint64_t off[32];
  for (size_t i = 0; i < n; i++)
    order[i] = i;
  for (size_t a = 1; a < n; a++) /* insertion sort by first step: conflicts show up early */
    for (size_t b = a; b > 0 && r[order[b - 1]].first > r[order[b]].first; b--) {
      size_t t = order[b];
      order[b] = order[b - 1];
      order[b - 1] = t;
    }
  return fits_rec(r, n, align, cap, order, 0, off);
}

/* Instances whose optimum is one byte above the lower bound. They were found by a random
 * search; the claim is checked here independently: the exhaustive enumeration finds no plan
 * at the lower bound, and exact's plan at lower bound + 1 passes the checker. */
static void test_above_lower_bound(void) {
  static const ap_request a[] = {REQ(5, 7, 7), REQ(7, 1, 1), REQ(8, 5, 7), REQ(4, 6, 6),
                                 REQ(2, 2, 5), REQ(2, 1, 4), REQ(4, 2, 2), REQ(1, 7, 7),
                                 REQ(5, 3, 4), REQ(1, 5, 7), REQ(4, 4, 6), REQ(8, 0, 3)};
  static const ap_request b[] = {REQ(3, 4, 4), REQ(3, 6, 7), REQ(4, 0, 1), REQ(2, 0, 2),
                                 REQ(2, 5, 5), REQ(2, 5, 7), REQ(8, 4, 4), REQ(2, 3, 3),
                                 REQ(7, 2, 3), REQ(5, 5, 7), REQ(5, 3, 6), REQ(2, 5, 6),
                                 REQ(8, 7, 7), REQ(2, 3, 5)};
  static const ap_request c[] = {REQ(10, 0, 3), REQ(5, 1, 3), REQ(9, 1, 1), REQ(3, 9, 9),
                                 REQ(3, 9, 9),  REQ(8, 6, 8), REQ(1, 2, 6), REQ(7, 7, 7),
                                 REQ(4, 5, 6),  REQ(6, 2, 5), REQ(1, 7, 7), REQ(8, 9, 9),
                                 REQ(3, 3, 6),  REQ(3, 2, 2), REQ(9, 6, 9), REQ(8, 8, 8)};
  struct {
    const ap_request *r;
    size_t n;
    uint64_t lb;
  } cases[] = {{a, 12, 17}, {b, 14, 18}, {c, 16, 25}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const ap_request *r = cases[k].r;
    size_t n = cases[k].n;
    CHECK_EQ(lower_bound(r, n, 1), cases[k].lb);
    CHECK(!fits(r, n, 1, cases[k].lb));
    CHECK(fits(r, n, 1, cases[k].lb + 1));
    run x = run_exact(r, n, 1, 1000000, NULL, 0);
    CHECK_EQ(x.st, AP_OK);
    CHECK_EQ(x.res.arena, cases[k].lb + 1);
    CHECK(x.res.optimal);
    free(x.off);
  }
}

/* Random small problems: exact must prove exactly the brute-force optimum. */
static void test_random_vs_brute(uint64_t align, int trials, uint64_t seed) {
  uint64_t st = seed;
  int proven = 0;
  for (int t = 0; t < trials; t++) {
    size_t n = 3 + ap_test_rand(&st) % 5; /* 3..7 */
    ap_request r[8];
    for (size_t i = 0; i < n; i++) {
      int32_t f = (int32_t)(ap_test_rand(&st) % 6);
      int32_t l = f + (int32_t)(ap_test_rand(&st) % 4);
      uint64_t sz = 1 + ap_test_rand(&st) % (align > 1 ? 3 * align : 5);
      r[i] = (ap_request){i, sz, f, l};
    }
    uint64_t opt = brute_force(r, n, align);
    run x = run_exact(r, n, align, 1000000, NULL, 0);
    CHECK_EQ(x.st, AP_OK);
    CHECK_MSG(x.res.arena == opt && x.res.optimal,
              "trial %d: arena %" PRIu64 " optimal %d, brute force %" PRIu64, t, x.res.arena,
              x.res.optimal, opt);
    CHECK(opt >= lower_bound(r, n, align));
    proven += x.res.optimal;
    free(x.off);
  }
  CHECK_EQ(proven, trials);
}

/* Larger random problems (16 requests): exact proves every optimum, and whenever that is above
 * the lower bound (rare: test_above_lower_bound has such instances), the exhaustive enumeration
 * must find nothing one byte smaller. */
static void test_random_above_lb(void) {
  uint64_t st = 4242;
  for (int t = 0; t < 200; t++) {
    ap_request r[16];
    size_t n = 16;
    for (size_t i = 0; i < n; i++) {
      int32_t f = (int32_t)(ap_test_rand(&st) % 10);
      int32_t l = f + (int32_t)(ap_test_rand(&st) % 5);
      if (l > 9) l = 9;
      r[i] = (ap_request){i, 1 + ap_test_rand(&st) % 10, f, l};
    }
    uint64_t lb = lower_bound(r, n, 1);
    run x = run_exact(r, n, 1, 1000000, NULL, 0);
    CHECK_EQ(x.st, AP_OK);
    CHECK(x.res.optimal);
    CHECK(x.res.arena >= lb);
    if (x.res.arena > lb)
      CHECK_MSG(!fits(r, n, 1, x.res.arena - 1), "trial %d: a plan under %" PRIu64 " exists", t,
                x.res.arena);
    free(x.off);
  }
}

/* When the optimum equals the lower bound, exact reaches it and says so. */
static void test_equal_lower_bound(void) {
  /* A chain: each request overlaps the next; two at a time, so 2 x 16 suffice. */
  ap_request chain[40];
  for (int i = 0; i < 40; i++)
    chain[i] = (ap_request){(uint64_t)i, 16, i, i + 1};
  run x = run_exact(chain, 40, 16, 10000, NULL, 0);
  CHECK_EQ(x.st, AP_OK);
  CHECK_EQ(x.res.arena, 32);
  CHECK(x.res.optimal);
  free(x.off);
  /* A start plan already at the lower bound is returned as is. */
  uint64_t start[40];
  for (int i = 0; i < 40; i++)
    start[i] = (i % 2) ? 0 : 16;
  x = run_exact(chain, 40, 16, 10000, start, 32);
  CHECK_EQ(x.st, AP_OK);
  CHECK_EQ(x.res.arena, 32);
  CHECK(x.res.optimal);
  CHECK(memcmp(x.off, start, sizeof start) == 0);
  free(x.off);
}

static void test_alignment(void) {
  /* Two 1-byte requests at one step, alignment 4: offsets 0 and 4, arena 5. The summed
   * aligned sizes (8) would overstate the bound: the topmost request needs no padding. */
  ap_request two[] = {REQ(1, 0, 0), REQ(1, 0, 0)};
  run x = run_exact(two, 2, 4, 1000, NULL, 0);
  CHECK_EQ(x.st, AP_OK);
  CHECK_EQ(x.res.arena, 5);
  CHECK(x.res.optimal);
  CHECK((x.off[0] == 0 && x.off[1] == 4) || (x.off[0] == 4 && x.off[1] == 0));
  free(x.off);
  /* Alignment 3 (not a power of two): sizes 2, 2, 2 together need 3 + 3 + 2 = 8. */
  ap_request three[] = {REQ(2, 0, 1), REQ(2, 1, 2), REQ(2, 1, 1)};
  x = run_exact(three, 3, 3, 1000, NULL, 0);
  CHECK_EQ(x.st, AP_OK);
  CHECK_EQ(x.res.arena, 8);
  CHECK(x.res.optimal);
  free(x.off);
  /* Alignment 16, sizes not multiples: every offset a multiple of 16 (the checker checks). */
  ap_request mixed[] = {REQ(20, 0, 2), REQ(5, 1, 3), REQ(33, 2, 4), REQ(1, 0, 4), REQ(16, 3, 3)};
  x = run_exact(mixed, 5, 16, 100000, NULL, 0);
  CHECK_EQ(x.st, AP_OK);
  CHECK_EQ(x.res.arena, brute_force(mixed, 5, 16));
  CHECK(x.res.optimal);
  free(x.off);
}

/* The file as a NUL-terminated string (ap_test_read_file does not terminate). */
static char *read_text(const char *path) {
  size_t len;
  uint8_t *raw = ap_test_read_file(path, &len);
  char *text = raw ? malloc(len + 1) : NULL;
  if (text) {
    memcpy(text, raw, len);
    text[len] = 0;
  }
  free(raw);
  return text;
}

/* CSV "id,lower,upper,size" with an exclusive upper, as in shared/bench. */
static size_t load_csv(const char *path, ap_request **out) {
  char *text = read_text(path);
  *out = NULL;
  if (!text) return 0;
  size_t n = 0;
  for (const char *c = text; *c; c++)
    n += *c == '\n';
  ap_request *req = calloc(n + 1, sizeof *req);
  n = 0;
  for (char *line = strchr(text, '\n'); line && req; line = strchr(line + 1, '\n')) {
    unsigned long long id, lo, up, sz;
    if (sscanf(line + 1, "%llu,%llu,%llu,%llu", &id, &lo, &up, &sz) == 4 && up > lo)
      req[n++] = (ap_request){id, sz, (int32_t)lo, (int32_t)(up - 1)};
  }
  free(text);
  *out = req;
  return n;
}

/* A hard instance and a tiny node budget: a valid plan no worse than the start, not optimal;
 * and the same call twice gives the same plan. */
static void test_budget_and_determinism(void) {
  char path[512];
  ap_request *r;
  size_t n =
      load_csv(ap_test_path(path, sizeof path, "bench/minimalloc/challenging/D.1048576.csv"), &r);
  CHECK_EQ(n, 213);
  uint64_t *start = calloc(n, sizeof *start), top = 0;
  for (size_t i = 0; i < n; i++) { /* no reuse at all: a valid, poor start */
    start[i] = top;
    top += r[i].size;
  }
  run x = run_exact(r, n, 1, 50, start, top);
  CHECK_EQ(x.st, AP_OK);
  CHECK(!x.res.optimal);
  CHECK(x.res.arena <= top);
  /* A time budget alone (no node budget): whatever point it stops at, the plan is valid. */
  ap_errbuf err = {{0}};
  ap_strategy_ctx tc = {.req = r, .n = n, .align = 1, .budget_seconds = 0.001, .err = &err};
  ap_strategy_result tres;
  uint64_t *toff = calloc(n, sizeof *toff);
  CHECK_EQ(ap_strategy_exact.plan(&tc, toff, &tres), AP_OK);
  CHECK(!tres.optimal);
  CHECK(check_plan(r, n, 1, toff, tres.arena) == NULL);
  free(toff);
  run y = run_exact(r, n, 1, 20000, NULL, 0);
  run z = run_exact(r, n, 1, 20000, NULL, 0);
  CHECK_EQ(y.st, AP_OK);
  CHECK(!y.res.optimal); /* D's lower bound 986112 is not reachable */
  CHECK(y.res.arena > 986112);
  CHECK_EQ(y.res.arena, z.res.arena);
  CHECK(memcmp(y.off, z.off, n * sizeof *y.off) == 0);
  free(x.off);
  free(y.off);
  free(z.off);
  free(start);
  free(r);
}

/* Real models: the buffers TFLite Micro hands its planner (sizes already multiples of 16).
 * Where TFLite Micro's own greedy head (tflm_arena.tsv) equals the lower bound, that is the
 * optimum; on mlperf_vww_int8 its head is 73,728 but 55,296 (the lower bound) is possible. */
static void test_real_instances(void) {
  static const struct {
    const char *name;
    uint64_t arena;
  } cases[] = {{"mlperf_vww_int8", 55296},
               {"person_detect_int8", 55296},
               {"tflm_test_conv", 7744},
               {"micro_speech_int8", 5968},
               {"mlperf_kws_dscnn_int8", 16000},
               {"keyword_scrambled_svdf", 672},
               {"mobilenet_v2_torch_int8", 2451840},
               {"conformer_float", 38069408}};
  char path[512];
  char *tsv = read_text(ap_test_path(path, sizeof path, "bench/tflm_arena.tsv"));
  CHECK(tsv != NULL);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    ap_request *r;
    size_t n =
        load_csv(ap_test_path(path, sizeof path, "bench/tflm_plans/%s.csv", cases[k].name), &r);
    CHECK_MSG(n > 0, "%s", cases[k].name);
    uint64_t lb = lower_bound(r, n, 16);
    /* The head column (third) of the model's row. */
    unsigned long long used = 0, head = 0;
    char key[96];
    snprintf(key, sizeof key, "\n%s\t", cases[k].name);
    const char *row = tsv ? strstr(tsv, key) : NULL;
    CHECK_MSG(row && sscanf(row + strlen(key), "%llu\t%llu", &used, &head) == 2, "%s",
              cases[k].name);
    if (strcmp(cases[k].name, "mlperf_vww_int8") == 0) {
      CHECK_EQ(head, 73728);
      CHECK_EQ(lb, 55296);
    } else {
      CHECK_EQ(head, lb); /* TFLite Micro reached the bound: it is the optimum */
      CHECK_EQ(head, cases[k].arena);
    }
    run x = run_exact(r, n, 16, 100000, NULL, 0);
    CHECK_EQ(x.st, AP_OK);
    CHECK_MSG(x.res.arena == cases[k].arena && x.res.optimal, "%s: arena %" PRIu64, cases[k].name,
              x.res.arena);
    free(x.off);
    free(r);
  }
  free(tsv);
}

/* MiniMalloc's C instance: the optimum is its lower bound 1,039,360 (MiniMalloc's result). */
static void test_minimalloc_c(void) {
  char path[512];
  ap_request *r;
  size_t n =
      load_csv(ap_test_path(path, sizeof path, "bench/minimalloc/challenging/C.1048576.csv"), &r);
  CHECK_EQ(n, 203);
  CHECK_EQ(lower_bound(r, n, 1), 1039360);
  run x = run_exact(r, n, 1, 2000000, NULL, 0);
  CHECK_EQ(x.st, AP_OK);
  CHECK_EQ(x.res.arena, 1039360);
  CHECK(x.res.optimal);
  free(x.off);
  free(r);
}

static void test_bad_input(void) {
  ap_errbuf err = {{0}};
  uint64_t off[4];
  ap_strategy_result res;
  ap_request ok[] = {REQ(8, 0, 1), REQ(8, 1, 2)};
  ap_strategy_ctx c = {.req = ok, .n = 2, .align = 1, .err = &err};
  CHECK_EQ(ap_strategy_exact.plan(&c, off, NULL), AP_ERR_ARG);
  c.align = 0;
  CHECK_EQ(ap_strategy_exact.plan(&c, off, &res), AP_ERR_ARG);
  c.align = 1;
  c.req = NULL;
  CHECK_EQ(ap_strategy_exact.plan(&c, off, &res), AP_ERR_ARG);
  /* No requests: an empty plan, trivially optimal. */
  c.n = 0;
  CHECK_EQ(ap_strategy_exact.plan(&c, off, &res), AP_OK);
  CHECK_EQ(res.arena, 0);
  CHECK(res.optimal);
  ap_request zero[] = {REQ(0, 0, 1)};
  c = (ap_strategy_ctx){.req = zero, .n = 1, .align = 1, .err = &err};
  CHECK_EQ(ap_strategy_exact.plan(&c, off, &res), AP_ERR_ARG);
  CHECK_CONTAINS(err.msg, "request 0");
  ap_request backwards[] = {REQ(4, 3, 2)};
  c.req = backwards;
  CHECK_EQ(ap_strategy_exact.plan(&c, off, &res), AP_ERR_ARG);
  ap_request negative[] = {REQ(4, -1, 2)};
  c.req = negative;
  CHECK_EQ(ap_strategy_exact.plan(&c, off, &res), AP_ERR_ARG);
  /* Live bytes at one step overflow 64 bits. */
  ap_request huge[] = {REQ(UINT64_MAX / 2 + 1, 0, 0), REQ(UINT64_MAX / 2 + 1, 0, 0)};
  c = (ap_strategy_ctx){.req = huge, .n = 2, .align = 1, .err = &err};
  CHECK_EQ(ap_strategy_exact.plan(&c, off, &res), AP_ERR_OVERFLOW);
  /* A size that overflows when aligned. */
  ap_request big[] = {REQ(UINT64_MAX - 3, 0, 0)};
  c = (ap_strategy_ctx){.req = big, .n = 1, .align = 16, .err = &err};
  CHECK_EQ(ap_strategy_exact.plan(&c, off, &res), AP_ERR_OVERFLOW);
  /* Start plans that are not plans. */
  uint64_t clash[] = {0, 0};
  c = (ap_strategy_ctx){
      .req = ok, .n = 2, .align = 1, .err = &err, .start_offsets = clash, .start_arena = 8};
  CHECK_EQ(ap_strategy_exact.plan(&c, off, &res), AP_ERR_ARG);
  CHECK_CONTAINS(err.msg, "start plan invalid");
  uint64_t fine[] = {0, 8};
  c.start_offsets = fine;
  c.start_arena = 10; /* the highest end is 16 */
  CHECK_EQ(ap_strategy_exact.plan(&c, off, &res), AP_ERR_ARG);
  CHECK_CONTAINS(err.msg, "start arena 10");
  uint64_t misaligned[] = {0, 9};
  c.start_offsets = misaligned;
  c.start_arena = 17;
  c.align = 8;
  CHECK_EQ(ap_strategy_exact.plan(&c, off, &res), AP_ERR_ARG);
}

/* Too many requests to search: the start plan comes back quickly, unchanged; without a start
 * exact builds its own first-fit. */
static void test_large(void) {
  size_t n = 30000;
  ap_request *r = calloc(n, sizeof *r);
  uint64_t *start = calloc(n, sizeof *start);
  for (size_t i = 0; i < n; i++) {
    r[i] = (ap_request){i, 16, (int32_t)i, (int32_t)i + 1};
    start[i] = 16 * i;
  }
  run x = run_exact(r, n, 16, 1000, start, 16 * n);
  CHECK_EQ(x.st, AP_OK);
  CHECK_EQ(x.res.arena, 16 * n);
  CHECK(!x.res.optimal);
  CHECK(memcmp(x.off, start, n * sizeof *start) == 0);
  free(x.off);
  x = run_exact(r, n, 16, 1000, NULL, 0);
  CHECK_EQ(x.st, AP_OK);
  CHECK_EQ(x.res.arena, 32);
  CHECK(x.res.optimal);
  free(x.off);
  free(r);
  free(start);
}

/* All memory goes through the caller's allocator, is freed, and running out of it at any
 * point is an error (AP_ERR_NOMEM) or a valid plan: never a crash or a leak. */
static size_t n_alloc, n_free, fail_at;
static void *count_alloc(void *ctx, size_t size) {
  (void)ctx;
  if (fail_at && n_alloc + 1 >= fail_at) return NULL;
  n_alloc++;
  return malloc(size ? size : 1);
}
static void count_free(void *ctx, void *p) {
  (void)ctx;
  if (p) n_free++;
  free(p);
}

static void test_allocator(void) {
  ap_allocator al = {count_alloc, count_free, NULL};
  ap_request r[] = {REQ(5, 7, 7), REQ(7, 1, 1), REQ(8, 5, 7), REQ(4, 6, 6),
                    REQ(2, 2, 5), REQ(2, 1, 4), REQ(4, 2, 2), REQ(1, 7, 7),
                    REQ(5, 3, 4), REQ(1, 5, 7), REQ(4, 4, 6), REQ(8, 0, 3)};
  ap_errbuf err = {{0}};
  uint64_t off[12];
  ap_strategy_result res;
  ap_strategy_ctx c = {
      .req = r, .n = 12, .align = 1, .alloc = &al, .budget_nodes = 100000, .err = &err};
  n_alloc = n_free = fail_at = 0;
  CHECK_EQ(ap_strategy_exact.plan(&c, off, &res), AP_OK);
  CHECK_EQ(res.arena, 18);
  CHECK(n_alloc > 0);
  CHECK_EQ(n_alloc, n_free);
  size_t total = n_alloc;
  for (fail_at = 1; fail_at <= total; fail_at++) {
    n_alloc = n_free = 0;
    ap_status st = ap_strategy_exact.plan(&c, off, &res);
    CHECK_MSG(st == AP_ERR_NOMEM || (st == AP_OK && !check_plan(r, 12, 1, off, res.arena)),
              "failing allocation %zu: %s", fail_at, ap_status_name(st));
    CHECK_EQ(n_alloc, n_free);
  }
  fail_at = 0;
}

/* The search itself with permitted overlaps (no start plan: its own first fit is disjoint):
 * a request `in` may share bytes with its `out` when offset(in) - offset(out) >= lead. */
static bool pairs_ok(const ap_request *r, size_t n, const ap_overlap *ov, size_t nov,
                     const uint64_t *off) {
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      if (!live_together(&r[i], &r[j])) continue;
      if (off[i] >= off[j] + r[j].size || off[j] >= off[i] + r[i].size) continue;
      bool ok = false;
      for (size_t k = 0; k < nov; k++)
        if ((ov[k].in == i && ov[k].out == j) || (ov[k].in == j && ov[k].out == i))
          ok = (int64_t)off[ov[k].in] - (int64_t)off[ov[k].out] >= ov[k].lead;
      if (!ok) return false;
    }
  return true;
}

static ap_strategy_result exact_overlaps(const ap_request *r, size_t n, const ap_overlap *ov,
                                         size_t nov, uint64_t align, uint64_t *off) {
  ap_errbuf err = {{0}};
  ap_strategy_ctx ctx = {.req = r,
                         .n = n,
                         .align = align,
                         .alloc = ap_alloc_or_default(NULL),
                         .budget_nodes = 1000000,
                         .err = &err,
                         .ov = ov,
                         .nov = nov};
  ap_strategy_result res = {0};
  CHECK_MSG(ap_strategy_exact.plan(&ctx, off, &res) == AP_OK, "%s", err.msg);
  uint64_t top = 0;
  for (size_t i = 0; i < n; i++) {
    CHECK(off[i] % align == 0);
    if (off[i] + r[i].size > top) top = off[i] + r[i].size;
  }
  CHECK_EQ(top, res.arena);
  CHECK(pairs_ok(r, n, ov, nov, off));
  return res;
}

/* Unoptimised sanitizer builds are about 10x slower: fewer trials there. */
#if defined(__SANITIZE_ADDRESS__)
#define TRIALS 30
#else
#define TRIALS 200
#endif

static void test_overlaps(void) {
  /* A -> B -> C, 100 bytes each, lead 20: C 20 below B, B 20 below A: 140, proven (the chain
   * bound); disjoint it would need 200. */
  const ap_request abc[] = {{0, 100, 0, 1}, {1, 100, 1, 2}, {2, 100, 2, 3}};
  const ap_overlap ov[] = {{0, 1, 20}, {1, 2, 20}};
  uint64_t off[8];
  ap_strategy_result res = exact_overlaps(abc, 3, ov, 2, 1, off);
  CHECK_EQ(res.arena, 140);
  CHECK(res.optimal);
  CHECK_EQ(off[2], 0);
  CHECK_EQ(off[1], 20);
  CHECK_EQ(off[0], 40);
  /* A lead <= 0 is searched as one alignment unit: still valid, proven only at the bound. */
  const ap_overlap neg[] = {{0, 1, -8}};
  res = exact_overlaps(abc, 2, neg, 1, 4, off);
  CHECK_EQ(res.arena, 104);
  CHECK(!res.optimal);
  /* Random chains of 2 or 3 (sizes 1-8, leads 1-8) and one more request beside them, against
   * every placement in [0, 24). */
  uint64_t st = 4242;
  int proven = 0;
  for (int trial = 0; trial < TRIALS; trial++) {
    ap_request r[5];
    ap_overlap o[4];
    size_t n = 2 + ap_test_rand(&st) % 2, nov = 0;
    uint64_t align = 1 + ap_test_rand(&st) % 2;
    for (size_t i = 0; i < n; i++) {
      r[i] = (ap_request){i, 1 + ap_test_rand(&st) % 8, (int32_t)i, (int32_t)i + 1};
      if (i && ap_test_rand(&st) % 4)
        o[nov++] = (ap_overlap){i - 1, i, 1 + (int64_t)(ap_test_rand(&st) % 8)};
    }
    r[n] = (ap_request){n, 1 + ap_test_rand(&st) % 4, (int32_t)(ap_test_rand(&st) % (n + 1)),
                        (int32_t)n};
    size_t m = n + 1;
    res = exact_overlaps(r, m, o, nov, align, off);
    uint64_t least = UINT64_MAX, x[5], codes = 1;
    for (size_t i = 0; i < m; i++)
      codes *= 24;
    for (uint64_t c = 0; c < codes; c++) {
      uint64_t top = 0, cc = c;
      bool al = true;
      for (size_t i = 0; i < m; i++, cc /= 24) {
        x[i] = cc % 24;
        al = al && x[i] % align == 0;
        if (x[i] + r[i].size > top) top = x[i] + r[i].size;
      }
      if (al && top < least && pairs_ok(r, m, o, nov, x)) least = top;
    }
    /* Every optimum here is below 24 bytes, so the brute force sees it. */
    CHECK_MSG(res.arena >= least, "trial %d: exact %llu below the brute force %llu", trial,
              (unsigned long long)res.arena, (unsigned long long)least);
    if (res.optimal) {
      proven++;
      CHECK_MSG(res.arena == least, "trial %d: exact proves %llu, brute force finds %llu", trial,
                (unsigned long long)res.arena, (unsigned long long)least);
    }
  }
  CHECK(proven > TRIALS / 2);
}

int main(void) {
  test_above_lower_bound();
  test_random_vs_brute(1, 300, 12345);
  test_random_vs_brute(4, 200, 777);
  test_random_above_lb();
  test_equal_lower_bound();
  test_overlaps();
  test_alignment();
  test_bad_input();
  test_large();
  test_allocator();
  ap_test_require_shared();
  test_real_instances();
  test_minimalloc_c();
  test_budget_and_determinism();
  return ap_test_done();
}
