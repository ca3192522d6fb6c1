/* The memory report. hello_world_int8 is worked out by hand from its shapes (`arenaplan info`):
 * input [1,1] int8 (1 byte) -> FC -> [1,16] (16) -> FC -> [1,16] (16) -> FC -> output [1,1]
 * (1). Steps 0..2. Lifetimes: input [0,0], t7 [0,1], t8 [1,2], output [2,2]. With 16-byte
 * alignment the live bytes per step are 16+1 = 17, 16+16 = 32, 16+1 = 17 (the topmost
 * request counts its plain size), so the lower bound and the best arena are 32; naive stacks
 * 16+16+16+1 = 49. Every shared model is then checked for the invariants the report promises. */
#include "arenaplan/arenaplan.h"
#include "arenaplan/report.h"
#include "test.h"

#include <stdlib.h>

static ap_model *open_model(const char *name) {
  char path[1024];
  ap_model *m = NULL;
  CHECK_EQ(ap_model_open(ap_test_path(path, sizeof path, "models/%s", name), NULL, &m), AP_OK);
  return m;
}

static char *render(ap_status (*w)(const ap_report *, FILE *), const ap_report *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CHECK(f != NULL);
  if (!f) return NULL;
  CHECK_EQ(w(r, f), AP_OK);
  fclose(f);
  return buf;
}

static size_t count(const char *s, const char *needle) {
  size_t n = 0;
  for (const char *p = s; p && (p = strstr(p, needle)); p += strlen(needle))
    n++;
  return n;
}

static ap_status header_to(const ap_report *r, FILE *f) {
  return ap_report_write_c_header(r, "HW", f);
}

static void hello_world(void) {
  ap_model *m = open_model("hello_world_int8.tflite");
  ap_report *r = NULL;
  CHECK_EQ(ap_report_create(m, NULL, NULL, &r), AP_OK);
  const ap_estimate *e = ap_report_estimate(r);
  /* The independent measurement: the runtime's own account of its regions. */
  ap_interpreter *it = NULL;
  ap_memory_usage mu = {0};
  CHECK_EQ(ap_interpreter_create(m, NULL, &it), AP_OK);
  CHECK_EQ(ap_interpreter_allocate(it), AP_OK);
  CHECK_EQ(ap_interpreter_memory(it, &mu), AP_OK);
  ap_interpreter_destroy(it);
  CHECK(e->from_runtime);
  CHECK_STR(e->runtime_error, "");
  CHECK_EQ(e->weights, 2704); /* the file's size (MANIFEST.tsv) */
  CHECK_EQ(e->weights_data, 420);
  CHECK_EQ(e->io, 2);
  CHECK_EQ(e->arena, 32);
  CHECK_EQ(mu.arena, 32);
  CHECK_EQ(e->intermediates, 30);
  CHECK_EQ(e->persistent, mu.persistent);
  CHECK_EQ(e->tables, mu.tables);
  CHECK(mu.tables > 0);
  CHECK_EQ(e->device, 32 + mu.persistent + mu.tables);
  CHECK_EQ(e->total, 2704 + 32 + mu.persistent + mu.tables);
  CHECK_EQ(e->scratch_requests, 0);
  /* The caller-owned buffer: exactly `buffer` bytes work, one byte fewer does not. */
  CHECK_EQ(e->buffer_alignment, 16);
  CHECK(e->buffer >= e->device);
  uint8_t *raw = malloc(e->buffer + 64);
  for (int k = 0; k < 2; k++) {
    ap_interpreter_options io = ap_interpreter_defaults();
    io.arena = raw + (16 - (uintptr_t)raw % 16) % 16;
    io.arena_size = e->buffer - (size_t)k;
    CHECK_EQ(ap_interpreter_create(m, &io, &it), AP_OK);
    CHECK_EQ(ap_interpreter_allocate(it), k ? AP_ERR_ARENA_TOO_SMALL : AP_OK);
    ap_interpreter_destroy(it);
  }
  free(raw);

  CHECK_EQ(ap_report_request_count(r), 4);
  const ap_report_request *q = ap_report_requests(r);
  static const uint64_t ids[] = {0, 7, 8, 9}, bytes[] = {1, 16, 16, 1};
  static const int32_t first[] = {0, 0, 1, 2}, last[] = {0, 1, 2, 2};
  static const int32_t producer[] = {-1, 0, 1, 2}, reader[] = {0, 1, 2, -1};
  static const ap_request_kind kinds[] = {AP_REQ_INPUT, AP_REQ_INTERMEDIATE, AP_REQ_INTERMEDIATE,
                                          AP_REQ_OUTPUT};
  for (size_t i = 0; i < 4 && i < ap_report_request_count(r); i++) {
    CHECK_EQ(q[i].id, ids[i]);
    CHECK_EQ(q[i].tensor, (int32_t)ids[i]);
    CHECK_EQ(q[i].bytes, bytes[i]);
    CHECK_EQ(q[i].first, first[i]);
    CHECK_EQ(q[i].last, last[i]);
    CHECK_EQ(q[i].producer, producer[i]);
    CHECK_EQ(q[i].last_reader, reader[i]);
    CHECK_EQ(q[i].kind, kinds[i]);
    CHECK_EQ(q[i].op, -1);
  }
  CHECK_STR(q[0].name, "serving_default_dense_input:0");
  CHECK_STR(q[3].name, "StatefulPartitionedCall:0");

  CHECK_EQ(ap_report_step_count(r), 3);
  const uint64_t *live = ap_report_live_bytes(r);
  CHECK_EQ(live[0], 17);
  CHECK_EQ(live[1], 32);
  CHECK_EQ(live[2], 17);
  CHECK_EQ(ap_report_peak_step(r), 1);
  size_t top[5];
  CHECK_EQ(ap_report_top_steps(r, top, 5), 3);
  CHECK_EQ(top[0], 1);
  CHECK_EQ(top[1], 0);
  CHECK_EQ(top[2], 2);
  CHECK_EQ(ap_report_top_steps(r, top, 1), 1);
  CHECK_EQ(top[0], 1);
  uint32_t sg = 9;
  int32_t op = 9;
  CHECK_STR(ap_report_step_op(r, 1, &sg, &op), "FULLY_CONNECTED");
  CHECK_EQ(sg, 0);
  CHECK_EQ(op, 1);
  CHECK_STR(ap_report_step_op(r, 3, &sg, &op), ""); /* past the end */
  CHECK_EQ(op, -1);

  CHECK_EQ(ap_report_alt_count(r), AP_REPORT_ALT_COUNT);
  const ap_report_alt *alt = ap_report_alts(r);
  CHECK(alt[AP_REPORT_ALT_NAIVE].ok);
  CHECK_EQ(alt[AP_REPORT_ALT_NAIVE].arena, 49);
  CHECK_STR(alt[AP_REPORT_ALT_TFLITE].name, "tflite");
  CHECK_EQ(alt[AP_REPORT_ALT_TFLITE].alignment, 64);
  CHECK_STR(alt[AP_REPORT_ALT_TFLM].rules, "tflm");
  CHECK_EQ(alt[AP_REPORT_ALT_MODEL].arena, 32);
  CHECK_STR(alt[AP_REPORT_ALT_MODEL].name, "best, no scratch");
  for (int k = 0; k < 2; k++) {
    ap_model_plan_options o = k ? ap_model_plan_tflm() : ap_model_plan_tflite();
    ap_model_plan *mp = NULL;
    CHECK_EQ(ap_model_plan_create(m, &o, NULL, &mp), AP_OK);
    CHECK_EQ(alt[k ? AP_REPORT_ALT_TFLM : AP_REPORT_ALT_TFLITE].arena, ap_model_plan_arena(mp));
    ap_model_plan_destroy(mp);
  }

  char *svg = render(ap_report_write_svg, r);
  CHECK_EQ(count(svg, "<rect class=\"req\""), 4);
  CHECK_CONTAINS(svg, "data-name=\"serving_default_dense_input:0\" data-shape=\"[1,1]\" "
                      "data-bytes=\"1\" data-offset=\"16\" data-first=\"0\" data-last=\"0\"");
  CHECK_CONTAINS(svg, ">arena 32 bytes</text>");
  CHECK(svg && strncmp(svg, "<?xml", 5) == 0);
  free(svg);
  char *html = render(ap_report_write_html, r);
  CHECK_EQ(count(html, "<rect class=\"req\""), 4);
  CHECK(html && strncmp(html, "<!DOCTYPE html>", 15) == 0);
  CHECK_EQ(count(html, "<script"), 1);
  CHECK_EQ(count(html, " src="), 0); /* nothing fetched */
  CHECK_EQ(count(html, "<link"), 0);
  CHECK_EQ(count(html, "<?xml"), 0);
  free(html);
  char *h = render(header_to, r);
  CHECK_CONTAINS(
      h, " * model sha256: 505ee4fae7fa46ab67bea4c08b4969eb3eb8b9114c50595ec4a29d9a27993202\n");
  CHECK_CONTAINS(h, "\n#define HW_ARENA_BYTES 32u\n");
  CHECK_CONTAINS(h, "\n#define HW_INPUT0_BYTES 1u\n");
  CHECK_CONTAINS(h, "\n#define HW_OUTPUT0_BYTES 1u\n");
  CHECK_CONTAINS(h, "\n#define HW_MODEL_BYTES 2704u\n");
  free(h);
  FILE *devnull = fopen("/dev/null", "w");
  CHECK_EQ(ap_report_write_c_header(r, "1BAD", devnull), AP_ERR_ARG);
  CHECK_EQ(ap_report_write_c_header(r, "A-B", devnull), AP_ERR_ARG);
  CHECK_EQ(ap_report_write_svg(NULL, devnull), AP_ERR_ARG);
  fclose(devnull);
  ap_report_destroy(r);

  /* Without the runtime: the same plan, persistent from the model (no variables here). */
  ap_report_options o = {.no_runtime = true};
  CHECK_EQ(ap_report_create(m, &o, NULL, &r), AP_OK);
  CHECK(!ap_report_estimate(r)->from_runtime);
  CHECK_EQ(ap_report_estimate(r)->arena, 32);
  CHECK_EQ(ap_report_estimate(r)->persistent, 0);
  CHECK_EQ(ap_report_estimate(r)->tables, 0);
  ap_report_destroy(r);
  o = (ap_report_options){.strategy = "naive"};
  CHECK_EQ(ap_report_create(m, &o, NULL, &r), AP_OK);
  CHECK_EQ(ap_report_estimate(r)->arena, 49);
  CHECK_STR(ap_report_strategy(r), "naive");
  ap_report_destroy(r);
  o = (ap_report_options){.strategy = "no-such-strategy"};
  CHECK(ap_report_create(m, &o, NULL, &r) != AP_OK);
  CHECK(strlen(ap_report_error(r)) > 0);
  ap_report_destroy(r);
  CHECK_EQ(ap_report_create(NULL, NULL, NULL, &r), AP_ERR_ARG);
  CHECK_STR(ap_report_error(r), "no model");
  ap_report_destroy(r);
  CHECK_EQ(ap_report_create(m, NULL, NULL, NULL), AP_ERR_ARG);
  ap_model_destroy(m);
}

/* keyword_scrambled_svdf: persistent is its 7 SVDF state tensors (MANIFEST.tsv), summed here
 * from their shapes: from the model alone without the runtime (tables 0), and measured by the
 * interpreter, which keeps no other persistent state for builtin kernels. */
static void without_runtime(void) {
  ap_model *m = open_model("keyword_scrambled_svdf.tflite");
  uint64_t vars = 0;
  size_t nvars = 0;
  for (size_t t = 0; t < ap_model_tensor_count(m, 0); t++) {
    ap_tensor_info ti;
    CHECK_EQ(ap_model_tensor(m, 0, t, &ti), AP_OK);
    if (ti.is_variable) vars += ti.bytes, nvars++;
  }
  CHECK_EQ(nvars, 7);
  CHECK_EQ(vars, 4 * 512 * 2 + 3 * 1024 * 2);
  for (int use_runtime = 0; use_runtime < 2; use_runtime++) {
    ap_report_options o = {.no_runtime = !use_runtime};
    ap_report *r = NULL;
    CHECK_EQ(ap_report_create(m, &o, NULL, &r), AP_OK);
    const ap_estimate *e = ap_report_estimate(r);
    CHECK_EQ(e->from_runtime, use_runtime == 1);
    CHECK_EQ(e->persistent, vars);
    if (!use_runtime) CHECK_EQ(e->tables, 0);
    ap_report_destroy(r);
  }
  ap_model_destroy(m);
}

/* Every shared model: the promises of report.h. */
static void invariants(const char *name) {
  ap_model *m = open_model(name);
  if (!m) return;
  ap_report *r = NULL;
  CHECK_MSG(ap_report_create(m, NULL, NULL, &r) == AP_OK, "%s: %s", name, ap_report_error(r));
  const ap_estimate *e = ap_report_estimate(r);
  const ap_model_plan *mp = ap_report_plan(r);
  if (!mp) goto done;
  size_t file = 0;
  ap_model_bytes(m, &file);
  CHECK_EQ(e->weights, file);
  CHECK_EQ(e->io + e->intermediates, e->arena);
  CHECK_EQ(e->arena, ap_model_plan_arena(mp));
  CHECK_EQ(e->total, e->weights + e->arena + e->persistent + e->tables);
  CHECK_EQ(e->device, e->arena + e->persistent + e->tables);
  CHECK_EQ(e->from_runtime, e->runtime_error[0] == '\0');
  size_t n = ap_report_request_count(r);
  CHECK_EQ(n, ap_problem_count(ap_model_plan_problem(mp, 0)));
  uint64_t *off = malloc((n ? n : 1) * sizeof *off), scratch = 0;
  const ap_report_request *q = ap_report_requests(r);
  for (size_t i = 0; i < n; i++) {
    off[i] = q[i].offset;
    if (q[i].kind == AP_REQ_SCRATCH) scratch += q[i].bytes;
    CHECK(q[i].first <= q[i].last);
    CHECK((q[i].kind == AP_REQ_SCRATCH) == (q[i].tensor < 0));
  }
  CHECK_EQ(scratch, e->scratch);
  char msg[256] = "";
  CHECK_MSG(ap_plan_check(ap_model_plan_problem(mp, 0), off, e->arena, msg, sizeof msg) == AP_OK,
            "%s: %s", name, msg);
  free(off);
  uint64_t peak = 0;
  for (size_t s = 0; s < ap_report_step_count(r); s++)
    if (ap_report_live_bytes(r)[s] > peak) peak = ap_report_live_bytes(r)[s];
  CHECK_MSG(peak == ap_model_plan_lower_bound(mp), "%s: peak %llu, lower bound %llu", name,
            (unsigned long long)peak, (unsigned long long)ap_model_plan_lower_bound(mp));
  if (ap_report_step_count(r)) CHECK_EQ(ap_report_live_bytes(r)[ap_report_peak_step(r)], peak);
  CHECK(ap_report_alts(r)[AP_REPORT_ALT_NAIVE].arena >= e->arena);
  char *svg = render(ap_report_write_svg, r);
  CHECK_EQ(count(svg, "<rect class=\"req\""), n);
  free(svg);
done:
  ap_report_destroy(r);
  ap_model_destroy(m);
}

/* In place the peak counts the permitted overlaps as the lower bound does, so it never passes
 * the arena. mlperf_vww_int8 with the model's shapes and no scratch (the runtime's scratch
 * depends on the fast kernels' level): at step 2 the pointwise conv's output (36,864 B) may
 * start 18,816 below its input (18,432 B): together at least 18,816 + 18,432 = 37,248 (summed:
 * 55,296, above the arena). Step 3: the stride-2 depthwise's output (9,216 B) 384 below the
 * 36,864: 37,248. Step 0: the input (27,648) 384 above the first conv's output (18,432):
 * 28,032. The chain of the two pairs needs 384 more than either step: the plan's bound and
 * arena, 37,632. */
static void vww_in_place(void) {
  ap_model *m = open_model("mlperf_vww_int8.tflite");
  if (!m) return;
  ap_report *r = NULL;
  CHECK(ap_report_create(m, &(ap_report_options){.inplace = true, .no_runtime = true}, NULL, &r) ==
        AP_OK);
  const uint64_t *live = ap_report_live_bytes(r);
  CHECK_EQ(ap_report_estimate(r)->arena, 37632);
  CHECK_EQ(ap_model_plan_lower_bound(ap_report_plan(r)), 37632);
  CHECK_EQ(live[0], 28032);
  CHECK_EQ(live[2], 37248);
  CHECK_EQ(live[3], 37248);
  CHECK_EQ(ap_report_peak_step(r), 2);
  size_t top[2];
  CHECK_EQ(ap_report_top_steps(r, top, 2), 2);
  CHECK_EQ(top[0], 2);
  CHECK_EQ(top[1], 3);
  ap_report_destroy(r);
  /* Every model in place: no step above the bound, nor the bound above the arena. */
  char names[64][64];
  size_t n = ap_test_models(names, 64);
  for (size_t i = 0; i < n; i++) {
    ap_model *mi = open_model(names[i]);
    if (!mi) continue;
    ap_report *ri = NULL;
    if (ap_report_create(mi, &(ap_report_options){.inplace = true}, NULL, &ri) == AP_OK) {
      uint64_t lb = ap_model_plan_lower_bound(ap_report_plan(ri));
      for (size_t st = 0; st < ap_report_step_count(ri); st++)
        CHECK_MSG(ap_report_live_bytes(ri)[st] <= lb, "%s step %zu: %llu live, bound %llu",
                  names[i], st, (unsigned long long)ap_report_live_bytes(ri)[st],
                  (unsigned long long)lb);
      CHECK(lb <= ap_report_estimate(ri)->arena);
    }
    ap_report_destroy(ri);
    ap_model_destroy(mi);
  }
  ap_model_destroy(m);
}

/* An allocator that fails after `left` allocations: every failure point must give an error,
 * never a crash or a leak (the ASan build checks the leaks). */
typedef struct budget_alloc {
  long left;
} budget_alloc;
static void *b_alloc(void *ctx, size_t n) {
  budget_alloc *b = ctx;
  return b->left-- > 0 ? malloc(n) : NULL;
}
static void b_free(void *ctx, void *p) {
  (void)ctx;
  free(p);
}

static void out_of_memory(void) {
  ap_model *m = open_model("hello_world_int8.tflite");
  bool done = false;
  for (long k = 0; k < 2000 && !done; k++) {
    budget_alloc b = {k};
    ap_allocator a = {b_alloc, b_free, &b};
    ap_report *r = NULL;
    ap_status s = ap_report_create(m, NULL, &a, &r);
    if (s == AP_OK) {
      done = true;
      CHECK_EQ(ap_report_estimate(r)->arena, 32);
    }
    ap_report_destroy(r);
  }
  CHECK(done);
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  hello_world();
  without_runtime();
  char names[64][64];
  size_t n = ap_test_models(names, 64);
  CHECK_EQ(n, 30);
  for (size_t i = 0; i < n; i++)
    invariants(names[i]);
  vww_in_place();
  out_of_memory();
  return ap_test_done();
}
