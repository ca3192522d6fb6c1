/* The tflm API on crafted models: ops we do not model are named with their allowance and the
 * arithmetic around them follows TFLite Micro's rules (worked out by hand below); bad
 * arguments, offline-planned models and failing allocators give errors, never crashes. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>

/* x[1,8] -> CUSTOM "OtherOp" -> y -> CUSTOM "MyOp" -> z, all float32. Optionally with an
 * OfflineMemoryAllocation metadata entry. */
static const uint8_t *crafted(ap_writer **w, bool offline, size_t *size) {
  CHECK(ap_writer_create(NULL, w) == AP_OK);
  uint32_t other_code, my_code;
  /* Two custom ops: every builtin TFLite Micro registers is modelled. */
  CHECK(ap_writer_add_custom_opcode(*w, "OtherOp", 1, &other_code) == AP_OK);
  CHECK(ap_writer_add_custom_opcode(*w, "MyOp", 1, &my_code) == AP_OK);
  int32_t shape[2] = {1, 8}, x, y, z;
  ap_writer_tensor t = {.type = AP_FLOAT32, .shape = shape, .rank = 2};
  CHECK(ap_writer_add_tensor(*w, 0, &t, &x) == AP_OK);
  CHECK(ap_writer_add_tensor(*w, 0, &t, &y) == AP_OK);
  CHECK(ap_writer_add_tensor(*w, 0, &t, &z) == AP_OK);
  CHECK(ap_writer_add_op(*w, 0,
                         &(ap_writer_op){.opcode = other_code,
                                         .inputs = &x,
                                         .input_count = 1,
                                         .outputs = &y,
                                         .output_count = 1},
                         NULL) == AP_OK);
  CHECK(
      ap_writer_add_op(
          *w, 0,
          &(ap_writer_op){
              .opcode = my_code, .inputs = &y, .input_count = 1, .outputs = &z, .output_count = 1},
          NULL) == AP_OK);
  CHECK(ap_writer_set_subgraph_io(*w, 0, &x, 1, &z, 1) == AP_OK);
  if (offline) {
    int32_t plan[6] = {1, 0, 3, 0, 32, 0};
    CHECK(ap_writer_add_metadata_bytes(*w, "OfflineMemoryAllocation", plan, sizeof plan, NULL) ==
          AP_OK);
  }
  const uint8_t *bytes = NULL;
  CHECK(ap_writer_finish(*w, &bytes, size) == AP_OK);
  return bytes;
}

static void test_unmodelled(void) {
  ap_writer *w;
  size_t size;
  const uint8_t *bytes = crafted(&w, false, &size);
  ap_model *m;
  CHECK(ap_model_from_buffer(bytes, size, "crafted", NULL, &m) == AP_OK);
  ap_tflm_result r;
  CHECK_MSG(ap_tflm_estimate(m, NULL, NULL, &r) == AP_OK, "%s", r.error);
  CHECK_EQ(r.unmodelled_count, 2);
  CHECK_STR(r.unmodelled[0].name, "OtherOp");
  CHECK_STR(r.unmodelled[1].name, "MyOp");
  CHECK_EQ(r.unmodelled[1].op, 1);
  CHECK_EQ(r.unmodelled_bytes, 2 * AP_TFLM_UNMODELLED_ALLOWANCE);
  /* host64 tail by hand: allocator objects 3 x 72 = 216; builtin-data allocator 16 and one
   * SubgraphAllocations 16 -> 248; 3 TfLiteEvalTensors x 24 -> 320; 2 NodeAndRegistrations
   * x 64 -> 448; two 1,024 B allowances -> 2,496; input pointer array 8 B at 16 -> 2,512, its
   * TfLiteTensor 64 -> 2,576; output pointer array -> 2,592, TfLiteTensor -> 2,656. */
  CHECK_EQ(r.tail_bytes, 2656);
  /* Head: x [0,1], y [1,2], z [2,2] (32 B each): x and z share bytes -> 64. */
  CHECK_EQ(r.head_bytes, 64);
  CHECK_EQ(r.arena_used_bytes, 2720);
  /* Planning: scratch-request array 16 x 12 = 192, one size_t -> 200, 3 AllocationInfos x 32
   * -> 296 -> 304 aligned, 3 buffers x 40 -> 424, tail before the I/O tensors 2,496. */
  CHECK_EQ(r.planning_peak_bytes, 2920);
  /* Prepare: 192 + two temporary TfLiteTensors (64 each) + 2,496. */
  CHECK_EQ(r.prepare_peak_bytes, 2816);
  CHECK_EQ(r.min_arena_bytes, 2928);
  CHECK_EQ(ap_tflm_min_arena_with_head(&r, 64), 2928);
  CHECK_EQ(ap_tflm_min_arena_with_head(&r, 1000), 3664); /* 1,000 + 2,656, aligned */
  CHECK_EQ(r.category_bytes[AP_TFLM_PERSISTENT_BUFFER], 2 * 1024 + 16 + 16);
  CHECK_EQ(r.item_count, 13);
  CHECK_STR(r.items[7].what, "allowance for an unmodelled op");
  ap_tflm_result_free(&r, NULL);

  /* mcu32 by hand: 36 + 44 + 36 = 116; 8 + 8 -> 132; 3 x 12 -> 168; 2 x 32 -> 232; allowances
   * at 16: 240 + 2,048 -> 2,288; pointer array 4 -> 2,304 (16-aligned); TfLiteTensor 40 ->
   * 2,344; 4 -> 2,352; 40 -> 2,392. */
  CHECK(ap_tflm_estimate(m, &(ap_tflm_options){.target = AP_TFLM_MCU32}, NULL, &r) == AP_OK);
  CHECK_EQ(r.tail_bytes, 2392);
  CHECK_EQ(r.head_bytes, 64);
  ap_tflm_result_free(&r, NULL);
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

static void test_offline_plan(void) {
  ap_writer *w;
  size_t size;
  const uint8_t *bytes = crafted(&w, true, &size);
  ap_model *m;
  CHECK(ap_model_from_buffer(bytes, size, "crafted", NULL, &m) == AP_OK);
  ap_tflm_result r;
  CHECK_EQ(ap_tflm_estimate(m, NULL, NULL, &r), AP_ERR_UNSUPPORTED);
  CHECK_CONTAINS(r.error, "OfflineMemoryAllocation");
  CHECK(r.items == NULL && r.item_count == 0);
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

static void test_arguments(void) {
  ap_tflm_result r;
  CHECK_EQ(ap_tflm_estimate(NULL, NULL, NULL, &r), AP_ERR_ARG);
  CHECK_STR(r.error, "no model, or an unknown target");
  CHECK_EQ(ap_tflm_estimate(NULL, NULL, NULL, NULL), AP_ERR_ARG);
  ap_tflm_result_free(NULL, NULL);
  ap_problem *p = (ap_problem *)&r;
  char err[64];
  CHECK_EQ(ap_tflm_problem(NULL, NULL, &p, err, sizeof err), AP_ERR_ARG);
  CHECK(p == NULL);
  CHECK_STR(err, "no model");
  CHECK_EQ(ap_tflm_problem(NULL, NULL, NULL, NULL, 0), AP_ERR_ARG);
  CHECK_EQ(ap_tflm_min_arena_with_head(NULL, 5), 0);

  ap_tflm_target t = AP_TFLM_HOST64;
  CHECK(ap_tflm_parse_target("mcu32", &t) && t == AP_TFLM_MCU32);
  CHECK(!ap_tflm_parse_target("mcu16", &t) && !ap_tflm_parse_target(NULL, &t));
  CHECK_STR(ap_tflm_target_name(AP_TFLM_HOST64), "host64");
  CHECK_STR(ap_tflm_category_name(AP_TFLM_VARIABLE_BUFFER), "variable_buffer");
  CHECK_STR(ap_tflm_category_tflm_name(AP_TFLM_EVAL_TENSOR), "kTfLiteEvalTensorData");
  CHECK_STR(ap_tflm_category_name((ap_tflm_category)99), "unknown");
  CHECK_STR(ap_tflm_phase_name(AP_TFLM_PHASE_PREPARE), "prepare");
  CHECK_STR(ap_tflm_phase_name((ap_tflm_phase)-1), "unknown");

  char path[4096];
  ap_model *m;
  ap_test_path(path, sizeof path, "models/hello_world_int8.tflite");
  CHECK(ap_model_open(path, NULL, &m) == AP_OK);
  CHECK_EQ(ap_tflm_estimate(m, &(ap_tflm_options){.target = (ap_tflm_target)7}, NULL, &r),
           AP_ERR_ARG);
  ap_model_destroy(m);
}

/* An allocator that fails after `left` allocations. */
typedef struct budget {
  int left;
} budget;
static void *budget_alloc(void *ctx, size_t n) {
  budget *b = ctx;
  return b->left-- > 0 ? malloc(n) : NULL;
}
static void budget_free(void *ctx, void *p) {
  (void)ctx;
  free(p);
}

static void test_failing_allocator(void) {
  char path[4096];
  ap_model *m;
  ap_test_path(path, sizeof path, "models/keyword_scrambled_svdf.tflite");
  CHECK(ap_model_open(path, NULL, &m) == AP_OK);
  ap_tflm_result ok;
  CHECK(ap_tflm_estimate(m, NULL, NULL, &ok) == AP_OK);
  int failures = 0;
  for (int n = 0; n < 200; n++) {
    budget b = {n};
    ap_allocator a = {budget_alloc, budget_free, &b};
    ap_tflm_result r;
    ap_status st = ap_tflm_estimate(m, NULL, &a, &r);
    if (st == AP_OK) {
      CHECK_EQ(r.min_arena_bytes, ok.min_arena_bytes);
      CHECK_EQ(r.tail_bytes, ok.tail_bytes);
      ap_tflm_result_free(&r, &a);
      break;
    }
    failures++;
    CHECK_MSG(st == AP_ERR_NOMEM, "budget %d: %s (%s)", n, ap_status_name(st), r.error);
    CHECK(r.items == NULL && r.scratch == NULL && r.unmodelled == NULL);
  }
  CHECK(failures > 3);
  ap_tflm_result_free(&ok, NULL);
  ap_model_destroy(m);
}

/* Models corrupted at random bytes that still pass the verifier: an estimate or an error,
 * never a crash (the ASan build runs this too). */
static void test_corrupted(void) {
  static const char *const names[] = {"keyword_scrambled_svdf", "while_multi_subgraph",
                                      "mnist_lstm_int8", "audio_preprocessor_int8"};
  uint64_t seed = 7;
  int loaded = 0, estimated = 0;
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    char path[4096];
    size_t size;
    uint8_t *orig =
        ap_test_read_file(ap_test_path(path, sizeof path, "models/%s.tflite", names[k]), &size);
    CHECK(orig != NULL);
    if (!orig) continue;
    uint8_t *copy = ap_test_read_file(path, &size);
    for (int trial = 0; trial < 150; trial++) {
      memcpy(copy, orig, size);
      for (int f = 0; f < 3; f++)
        copy[ap_test_rand(&seed) % size] = (uint8_t)ap_test_rand(&seed);
      ap_model *m = NULL;
      if (ap_model_from_buffer(copy, size, names[k], NULL, &m) == AP_OK) {
        loaded++;
        ap_tflm_result r;
        if (ap_tflm_estimate(m, &(ap_tflm_options){.target = (ap_tflm_target)(trial & 1)}, NULL,
                             &r) == AP_OK) {
          estimated++;
          CHECK(r.min_arena_bytes >= r.arena_used_bytes && r.min_arena_bytes % 16 == 0);
        } else {
          CHECK(r.error[0] != '\0');
        }
        ap_tflm_result_free(&r, NULL);
      }
      ap_model_destroy(m);
    }
    free(copy);
    free(orig);
  }
  printf("corrupted models: %d loaded, %d estimated\n", loaded, estimated);
  CHECK(loaded > 50);
}

int main(void) {
  test_unmodelled();
  test_offline_plan();
  ap_test_require_shared();
  test_arguments();
  test_failing_allocator();
  test_corrupted();
  return ap_test_done();
}
