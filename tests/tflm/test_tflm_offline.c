/* Offline plans (TFLite Micro's OfflineMemoryAllocation metadata): written for every shared
 * model, read back, and checked against the buffers TFLite Micro itself planned
 * (../shared/bench/tflm_plans: size and lifetime of each, in AddBuffer order); the plan
 * person_detect_vela carries; invalid plans; the planner with fixed offsets by hand. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>

/* By hand: A [0,1] 32 B fixed at 32; online by size: C [1,2] 48 B conflicts with A, the gap
 * [0,32) is too small, so 64; B [0,1] 16 B fits below A at 0. Arena 112. */
static void test_fixed_by_hand(void) {
  ap_problem *p;
  CHECK(ap_problem_create(NULL, &p) == AP_OK);
  CHECK(ap_problem_set_alignment(p, 16) == AP_OK);
  CHECK(ap_problem_add(p, &(ap_request){.id = 0, .size = 32, .first = 0, .last = 1}) == AP_OK);
  CHECK(ap_problem_add(p, &(ap_request){.id = 1, .size = 16, .first = 0, .last = 1}) == AP_OK);
  CHECK(ap_problem_add(p, &(ap_request){.id = 2, .size = 48, .first = 1, .last = 2}) == AP_OK);
  const int64_t fixed[] = {32, -1, -1};
  ap_plan *plan;
  CHECK(ap_plan_create(p, &(ap_plan_options){.strategy = "tflm", .fixed_offsets = fixed}, &plan) ==
        AP_OK);
  const uint64_t *off = ap_plan_offsets(plan);
  CHECK_EQ(off[0], 32);
  CHECK_EQ(off[1], 0);
  CHECK_EQ(off[2], 64);
  CHECK_EQ(ap_plan_arena(plan), 112);
  ap_plan_destroy(plan);
  /* Overlapping fixed offsets are an invalid plan; so is a misaligned one; others refuse. */
  const int64_t clash[] = {0, 16, -1}, odd[] = {8, -1, -1};
  CHECK(ap_plan_create(p, &(ap_plan_options){.strategy = "tflm", .fixed_offsets = clash}, &plan) ==
        AP_ERR_INVALID_PLAN);
  ap_plan_destroy(plan);
  CHECK(ap_plan_create(p, &(ap_plan_options){.strategy = "tflm", .fixed_offsets = odd}, &plan) ==
        AP_ERR_INVALID_PLAN);
  CHECK_CONTAINS(ap_plan_error(plan), "request 0: fixed offset 8 is not a multiple of the "
                                      "alignment 16");
  ap_plan_destroy(plan);
  CHECK(ap_plan_create(p, &(ap_plan_options){.strategy = "best", .fixed_offsets = fixed}, &plan) ==
        AP_ERR_UNSUPPORTED);
  ap_plan_destroy(plan);
  ap_problem_destroy(p);
}

static ap_model *load(const char *name) {
  char path[512];
  ap_test_path(path, sizeof path, "models/%s.tflite", name);
  ap_model *m = NULL;
  CHECK_MSG(ap_model_open(path, NULL, &m) == AP_OK, "%s", ap_model_error(m));
  return m;
}

/* m with the plan as metadata (pt owns the bytes). */
static ap_model *with_plan(const ap_model *m, const ap_offline_plan *p, ap_model_patch *pt) {
  uint8_t *words;
  size_t n;
  CHECK(ap_offline_plan_encode(p, NULL, &words, &n) == AP_OK);
  CHECK(ap_model_patch_metadata(m, AP_OFFLINE_PLAN_METADATA, words, n, NULL, pt) == AP_OK);
  free(words);
  ap_model *m2 = NULL;
  CHECK_MSG(ap_model_from_buffer(pt->bytes, pt->size, "embedded", NULL, &m2) == AP_OK, "%s",
            ap_model_error(m2));
  return m2;
}

typedef struct row {
  long long lower, upper, size;
} row;

/* TFLite Micro's recorded buffers: rows in AddBuffer order. */
static row *tflm_rows(const char *name, size_t *count) {
  char path[512];
  size_t size;
  char *csv = (char *)ap_test_read_file(
      ap_test_path(path, sizeof path, "bench/tflm_plans/%s.csv", name), &size);
  *count = 0;
  if (!csv) return NULL;
  char *text = calloc(size + 1, 1); /* the file's bytes are not a C string */
  memcpy(text, csv, size);
  free(csv);
  csv = text;
  row *r = calloc(size / 8 + 1, sizeof *r);
  for (char *line = strchr(csv, '\n'); line && *++line;) {
    long long id;
    if (sscanf(line, "%lld,%lld,%lld,%lld", &id, &r[*count].lower, &r[*count].upper,
               &r[*count].size) == 4)
      (*count)++;
    line = strchr(line, '\n');
  }
  free(csv);
  return r;
}

/* The embedded offsets under TFLite Micro's own buffers: its allocator adds one buffer per
 * tensor that needs bytes (non-constant, non-variable, non-empty), all subgraphs in order, then
 * the scratch buffers; tensor i of any subgraph reads slot i. Fixed buffers live at the same
 * time must not share bytes, and each must be 16-aligned. Returns the fixed count. */
static size_t check_against_tflm(const char *name, const ap_model *m, const ap_offline_plan *p,
                                 const row *rows, size_t nrows) {
  int64_t *at = calloc(nrows + 1, sizeof *at);
  size_t k = 0, fixed = 0;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    for (size_t t = 0; t < ap_model_tensor_count(m, sg); t++) {
      ap_tensor_info ti;
      CHECK(ap_model_tensor(m, sg, t, &ti) == AP_OK);
      if (ti.is_constant || ti.is_variable || ti.bytes == 0) continue;
      CHECK_MSG(k < nrows && rows[k].size == (long long)((ti.bytes + 15) / 16 * 16),
                "%s: row %zu is not tensor %zu of subgraph %zu", name, k, t, sg);
      at[k] = p->offsets[t];
      if (at[k] >= 0) fixed++;
      CHECK(at[k] % 16 == 0 || at[k] == -1);
      k++;
    }
  for (size_t i = k; i < nrows; i++)
    at[i] = -1; /* scratch: online */
  for (size_t i = 0; i < k; i++)
    for (size_t j = i + 1; j < k && at[i] >= 0; j++) {
      if (at[j] < 0 || rows[i].upper <= rows[j].lower || rows[j].upper <= rows[i].lower) continue;
      CHECK_MSG(at[i] + rows[i].size <= at[j] || at[j] + rows[j].size <= at[i],
                "%s: buffers %zu and %zu overlap", name, i, j);
    }
  free(at);
  return fixed;
}

/* Tensors TFLite Micro plans: non-constant, non-variable, non-empty. */
static size_t nrows_tensors(const ap_model *m) {
  size_t k = 0;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    for (size_t t = 0; t < ap_model_tensor_count(m, sg); t++) {
      ap_tensor_info ti;
      CHECK(ap_model_tensor(m, sg, t, &ti) == AP_OK);
      k += !(ti.is_constant || ti.is_variable || ti.bytes == 0);
    }
  return k;
}

/* TFLite Micro's planner (our exact "tflm") over its own recorded buffers with these offsets. */
static uint64_t tflm_head(const ap_model *m, const ap_offline_plan *p, const char *name) {
  char path[512];
  size_t size;
  char *csv = (char *)ap_test_read_file(
      ap_test_path(path, sizeof path, "bench/tflm_plans/%s.csv", name), &size);
  ap_problem *prob;
  CHECK(ap_problem_create(NULL, &prob) == AP_OK);
  CHECK(ap_problem_set_alignment(prob, 16) == AP_OK);
  CHECK(ap_problem_parse_csv(prob, csv, size) == AP_OK);
  free(csv);
  size_t n = ap_problem_count(prob), k = 0;
  int64_t *fixed = calloc(n + 1, sizeof *fixed);
  for (size_t i = 0; i < n; i++)
    fixed[i] = -1;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    for (size_t t = 0; t < ap_model_tensor_count(m, sg); t++) {
      ap_tensor_info ti;
      CHECK(ap_model_tensor(m, sg, t, &ti) == AP_OK);
      if (ti.is_constant || ti.is_variable || ti.bytes == 0) continue;
      if (k < n) fixed[k] = p->offsets[t];
      k++;
    }
  ap_plan *plan;
  CHECK(ap_plan_create(prob, &(ap_plan_options){.strategy = "tflm", .fixed_offsets = fixed},
                       &plan) == AP_OK);
  uint64_t head = ap_plan_arena(plan);
  ap_plan_destroy(plan);
  ap_problem_destroy(prob);
  free(fixed);
  return head;
}

static void test_every_model(void) {
  char names[64][64];
  size_t count = ap_test_models(names, 64), checked = 0;
  CHECK(count == 30);
  for (size_t i = 0; i < count; i++) {
    char *dot = strstr(names[i], ".tflite");
    if (dot) *dot = 0;
    size_t nrows;
    row *rows = tflm_rows(names[i], &nrows);
    if (!rows) continue; /* TFLite Micro cannot allocate it on the host */
    ap_model *m = load(names[i]);
    ap_offline_plan p;
    char err[512];
    CHECK_MSG(ap_tflm_offline_build(m, NULL, NULL, &p, err, sizeof err) == AP_OK, "%s: %s",
              names[i], err);
    ap_model_patch pt;
    ap_model *m2 = with_plan(m, &p, &pt);
    /* Read back: the same words. */
    ap_offline_plan back;
    bool found;
    CHECK(ap_model_offline_plan(m2, NULL, &back, &found, err, sizeof err) == AP_OK && found);
    CHECK(back.count == p.count && back.subgraphs == ap_model_subgraph_count(m) &&
          back.version == 0);
    CHECK(memcmp(back.offsets, p.offsets, p.count * sizeof *p.offsets) == 0);
    size_t fixed = check_against_tflm(names[i], m2, &back, rows, nrows);
    /* One subgraph: every tensor TFLite Micro plans gets an offset. Several: slot i serves
     * tensor i of every subgraph, so a slot two planned tensors share stays online. */
    if (ap_model_subgraph_count(m) == 1) CHECK_MSG(fixed == nrows_tensors(m), "%s", names[i]);
    /* The head our model of TFLite Micro predicts is the one its planner makes on its own
     * buffers, and never above its head without the plan (tflm_arena.tsv). */
    ap_tflm_offline_result r;
    CHECK_MSG(ap_tflm_offline_check(m2, back.offsets, back.count, NULL, &r, err, sizeof err) ==
                  AP_OK,
              "%s: %s", names[i], err);
    CHECK_MSG(r.head_bytes == tflm_head(m2, &back, names[i]), "%s", names[i]);
    char *head = ap_test_tflm_field(names[i], "plain_head");
    CHECK_MSG(head && r.head_bytes <= strtoull(head, NULL, 10), "%s: head %llu, TFLM's %s",
              names[i], (unsigned long long)r.head_bytes, head ? head : "?");
    free(head);
    CHECK(r.head_bytes >= r.lower_bound);
    /* The rest of the model is untouched. */
    CHECK_EQ(ap_model_metadata_count(m2), ap_model_metadata_count(m) + 1);
    CHECK_EQ(ap_model_buffer_count(m2), ap_model_buffer_count(m) + 1);
    for (size_t b = 0; b < ap_model_buffer_count(m); b++) {
      size_t s1, s2;
      const uint8_t *b1 = ap_model_buffer(m, b, &s1), *b2 = ap_model_buffer(m2, b, &s2);
      CHECK(s1 == s2 && (s1 == 0 || memcmp(b1, b2, s1) == 0));
    }
    checked++;
    ap_offline_plan_free(&back, NULL);
    ap_model_destroy(m2);
    ap_model_patch_free(&pt, NULL);
    ap_offline_plan_free(&p, NULL);
    ap_model_destroy(m);
    free(rows);
  }
  CHECK_EQ(checked, 25);
}

/* Vela wrote person_detect_vela's plan: [0, -1, -1, 0, 0, 0] (the file's 36-byte buffer): its
 * output, scratch, fast scratch and input all at offset 0, the two constants online. The
 * Ethos-U op uses them as one region; by TFLite Micro's lifetimes (which TFLite Micro does not
 * check) the output and the scratch both live while the op runs, so they overlap. */
static void test_vela(void) {
  ap_model *m = load("person_detect_vela");
  ap_offline_plan p;
  bool found;
  char err[512];
  CHECK(ap_model_offline_plan(m, NULL, &p, &found, err, sizeof err) == AP_OK && found);
  CHECK_EQ(p.count, 6);
  CHECK(p.version == 0 && p.subgraphs == 1);
  const int32_t want[] = {0, -1, -1, 0, 0, 0};
  CHECK(memcmp(p.offsets, want, sizeof want) == 0);
  ap_tflm_offline_result r;
  CHECK(ap_tflm_offline_check(m, p.offsets, p.count, NULL, &r, err, sizeof err) ==
        AP_ERR_INVALID_PLAN);
  CHECK_STR(err, "tensor 0 of subgraph 0 (MobilenetV1/Predictions/Reshape_1) at [0, 16) and "
                 "tensor 3 of subgraph 0 (_split_1_scratch) at [0, 74464) overlap while both "
                 "live (steps 2-2 and 0-2)");
  /* Its tensors alone, without the overlap: the check runs without the Ethos-U kernel. */
  const int32_t apart[] = {0, -1, -1, 16, 74480, 148944};
  CHECK_MSG(ap_tflm_offline_check(m, apart, 6, NULL, &r, err, sizeof err) == AP_OK, "%s", err);
  CHECK_CONTAINS(r.note, "scratch buffers not known");
  CHECK_EQ(r.offline_buffers, 4);
  CHECK_EQ(r.head_bytes, 148944 + 9216);
  ap_offline_plan_free(&p, NULL);
  ap_model_destroy(m);
}

static void test_invalid(void) {
  ap_model *m = load("hello_world_int8");
  char err[512];
  ap_offline_plan p;
  CHECK(ap_tflm_offline_build(m, NULL, NULL, &p, err, sizeof err) == AP_OK);
  CHECK_EQ(p.count, 10);
  ap_tflm_offline_result r;
  /* Wrong count. */
  CHECK(ap_tflm_offline_check(m, p.offsets, 9, NULL, &r, err, sizeof err) == AP_ERR_FORMAT);
  CHECK_STR(err, "9 offsets, the model has 10 tensors");
  p.count = 9;
  ap_model_patch pt;
  ap_model *m2 = with_plan(m, &p, &pt);
  bool found;
  ap_offline_plan back;
  CHECK(ap_model_offline_plan(m2, NULL, &back, &found, err, sizeof err) == AP_ERR_FORMAT && found);
  CHECK_CONTAINS(err, "9 offsets, the model has 10 tensors (TFLite Micro refuses it)");
  ap_model_destroy(m2);
  ap_model_patch_free(&pt, NULL);
  p.count = 10;
  /* Every planned tensor at offset 0: the first two live together. */
  int32_t zero[10], odd[10];
  for (size_t i = 0; i < 10; i++)
    zero[i] = p.offsets[i] < 0 ? -1 : 0;
  CHECK(ap_tflm_offline_check(m, zero, 10, NULL, &r, err, sizeof err) == AP_ERR_INVALID_PLAN);
  CHECK_CONTAINS(err, "overlap while both live");
  for (size_t i = 0; i < 10; i++)
    odd[i] = p.offsets[i] < 0 ? -1 : p.offsets[i] + 4;
  CHECK(ap_tflm_offline_check(m, odd, 10, NULL, &r, err, sizeof err) == AP_ERR_INVALID_PLAN);
  CHECK_CONTAINS(err, "is not a multiple of 16 (TFLite Micro's buffer alignment)");
  ap_offline_plan_free(&p, NULL);
  ap_model_destroy(m);
}

int main(void) {
  test_fixed_by_hand();
  ap_test_require_shared();
  test_every_model();
  test_vela();
  test_invalid();
  return ap_test_done();
}
