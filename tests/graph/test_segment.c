/* Streamed segments (ap_graph_options.stream): the ring rule worked by hand, the segments and
 * lifetimes of crafted chains, and a streamed run of each equal to an unstreamed one. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* ap_segment_ring_rows(in_h, out_h, kernel_h, stride, dilation), by hand. */
static void ring_rule(void) {
  /* 3x3 stride 1 SAME on 8 rows: pad 1; row y reads y-1..y+1: 3 rows. */
  CHECK_EQ(ap_segment_ring_rows(8, 8, 3, 1, 1), 3u);
  /* 3x3 stride 2 SAME, 8 -> 4: total (4-1)*2+3-8 = 1, pad 0; rows 2y..2y+2: 3. */
  CHECK_EQ(ap_segment_ring_rows(8, 4, 3, 2, 1), 3u);
  /* 3x3 stride 2 SAME, 7 -> 4: total 2, pad 1; row 0 reads 0..1, row 1 reads 1..3: 3. */
  CHECK_EQ(ap_segment_ring_rows(7, 4, 3, 2, 1), 3u);
  /* 1x1 stride 2: one row at a time. */
  CHECK_EQ(ap_segment_ring_rows(8, 4, 1, 2, 1), 1u);
  /* 3 rows dilated by 2 (VALID, 10 -> 6): a window of 5 rows. */
  CHECK_EQ(ap_segment_ring_rows(10, 6, 3, 1, 2), 5u);
  /* Dilation 3 SAME on 4 rows: eff 7, total 6, pad 3; row 0 reads -3..3 = 0..3: all 4. */
  CHECK_EQ(ap_segment_ring_rows(4, 4, 3, 1, 3), 4u);
  /* A window taller than the map (5 rows on 3, SAME): every row reads the whole map. */
  CHECK_EQ(ap_segment_ring_rows(3, 3, 5, 1, 1), 3u);
  /* 1-row maps: one row, whatever the window. */
  CHECK_EQ(ap_segment_ring_rows(1, 1, 3, 1, 1), 1u);
  CHECK_EQ(ap_segment_ring_rows(1, 1, 7, 2, 2), 1u);
  /* Stride larger than the window (2 rows, stride 3, 9 -> 3): 2 rows. */
  CHECK_EQ(ap_segment_ring_rows(9, 3, 2, 3, 1), 2u);
  CHECK_EQ(ap_segment_ring_rows(0, 1, 3, 1, 1), 0u);
  CHECK_EQ(ap_segment_ring_rows(4, 4, 3, 0, 1), 0u);
}

/* A layer of a crafted float chain. */
typedef struct layer {
  int32_t builtin; /* 3 CONV_2D, 4 DEPTHWISE_CONV_2D, 17 MAX_POOL_2D, 1 AVERAGE_POOL_2D,
                    * 0 ADD of the map and the chain's input x (the skip),
                    * 34 PAD of kh rows on top and `stride` rows below,
                    * 19 RELU, 14 LOGISTIC, 18 MUL of the map and x (a skip),
                    * 41 SUB of a constant [out_c], 114 QUANTIZE to int8 (scale 1/16, zero
                    * point 2), 6 DEQUANTIZE to float */
  int32_t kh, stride, dil;
  ap_padding pad;
  int32_t out_h, out_c;
} layer;

static float weights[4096];

/* x [1, h, w, c] through the layers; every map is width w. */
static ap_model *chain(int32_t h, int32_t w, int32_t c, const layer *ls, size_t n, uint8_t **keep) {
  ap_writer *wr;
  CHECK(ap_writer_create(NULL, &wr) == AP_OK);
  uint32_t wbuf;
  CHECK(ap_writer_add_buffer(wr, weights, sizeof weights, &wbuf) == AP_OK);
  int32_t cur, idx;
  int32_t shape[4] = {1, h, w, c};
  ap_writer_tensor t = {.name = "x", .type = AP_FLOAT32, .shape = shape, .rank = 4};
  CHECK(ap_writer_add_tensor(wr, 0, &t, &cur) == AP_OK);
  int32_t in0 = cur, in_c = c, type = AP_FLOAT32;
  for (size_t i = 0; i < n; i++) {
    const layer *l = &ls[i];
    int32_t ins[3] = {cur, -1, -1};
    size_t nin = 1;
    ap_options o;
    if (l->builtin == 3 || l->builtin == 4) {
      int32_t fs[4] = {l->builtin == 3 ? l->out_c : 1, l->kh, 1, l->builtin == 3 ? in_c : l->out_c};
      int32_t bs[1] = {l->out_c};
      /* Views of the one weight buffer (a buffer may back several constants). */
      ap_writer_tensor f = {
          .name = "f", .type = AP_FLOAT32, .shape = fs, .rank = 4, .buffer = wbuf};
      ap_writer_tensor b = {
          .name = "b", .type = AP_FLOAT32, .shape = bs, .rank = 1, .buffer = wbuf};
      CHECK(ap_writer_add_tensor(wr, 0, &f, &ins[1]) == AP_OK);
      CHECK(ap_writer_add_tensor(wr, 0, &b, &ins[2]) == AP_OK);
      nin = 3;
      o = l->builtin == 3 ? ap_options_conv2d(l->pad, 1, l->stride, AP_ACT_NONE, 1, l->dil)
                          : ap_options_depthwise_conv2d(l->pad, 1, l->stride, l->out_c / in_c,
                                                        AP_ACT_NONE, 1, l->dil);
    } else if (l->builtin == 34) {
      static int32_t pads[8];
      pads[2] = l->kh;
      pads[3] = l->stride;
      uint32_t pbuf;
      CHECK(ap_writer_add_buffer(wr, pads, sizeof pads, &pbuf) == AP_OK);
      int32_t ps[2] = {4, 2};
      ap_writer_tensor pt = {.name = "p", .type = AP_INT32, .shape = ps, .rank = 2, .buffer = pbuf};
      CHECK(ap_writer_add_tensor(wr, 0, &pt, &ins[1]) == AP_OK);
      nin = 2;
      o = (ap_options){0};
    } else if (l->builtin == 0 || l->builtin == 18) {
      ins[1] = in0;
      nin = 2;
      o = l->builtin == 0 ? ap_options_add(AP_ACT_RELU) : ap_options_mul(AP_ACT_NONE);
    } else if (l->builtin == 41) {
      int32_t cs[1] = {l->out_c};
      ap_writer_tensor k = {
          .name = "k", .type = AP_FLOAT32, .shape = cs, .rank = 1, .buffer = wbuf};
      CHECK(ap_writer_add_tensor(wr, 0, &k, &ins[1]) == AP_OK);
      nin = 2;
      o = ap_options_add(AP_ACT_NONE); /* SubOptions share AddOptions' layout */
    } else if (l->builtin == 19 || l->builtin == 14 || l->builtin == 114 || l->builtin == 6) {
      o = (ap_options){0};
    } else {
      o = ap_options_pool2d(l->pad, 1, l->stride, 1, l->kh, AP_ACT_NONE);
    }
    int32_t os[4] = {1, l->out_h, w, l->out_c};
    static const float qs[1] = {0.0625f};
    static const int64_t qz[1] = {2};
    if (l->builtin == 114) type = AP_INT8;
    if (l->builtin == 6) type = AP_FLOAT32;
    ap_writer_tensor out = {.name = "m", .type = type, .shape = os, .rank = 4};
    if (type == AP_INT8) {
      out.scale = qs;
      out.scale_count = 1;
      out.zero_point = qz;
      out.zero_point_count = 1;
    }
    CHECK(ap_writer_add_tensor(wr, 0, &out, &idx) == AP_OK);
    uint32_t code;
    CHECK(ap_writer_add_opcode(wr, l->builtin, 1, &code) == AP_OK);
    ap_writer_op x = {.opcode = code,
                      .inputs = ins,
                      .input_count = nin,
                      .outputs = &idx,
                      .output_count = 1,
                      .options = &o};
    CHECK_MSG(ap_writer_add_op(wr, 0, &x, NULL) == AP_OK, "%s", ap_writer_error(wr));
    cur = idx;
    in_c = l->out_c;
  }
  CHECK(ap_writer_set_subgraph_io(wr, 0, &in0, 1, &cur, 1) == AP_OK);
  const uint8_t *bytes;
  size_t size;
  CHECK_MSG(ap_writer_finish(wr, &bytes, &size) == AP_OK, "%s", ap_writer_error(wr));
  *keep = malloc(size);
  memcpy(*keep, bytes, size);
  ap_writer_destroy(wr);
  ap_model *m = NULL;
  CHECK_MSG(ap_model_from_buffer(*keep, size, "chain.tflite", NULL, &m) == AP_OK, "%s",
            ap_model_error(m));
  return m;
}

/* The tensor index of layer i's output in chain(): x is 0, then (f, b,) out per layer. */
static size_t out_index(const layer *ls, size_t i) {
  size_t t = 0;
  for (size_t k = 0; k <= i; k++)
    t += ls[k].builtin == 3 || ls[k].builtin == 4     ? 3
         : ls[k].builtin == 34 || ls[k].builtin == 41 ? 2
                                                      : 1;
  return t;
}

/* Runs the model unstreamed and streamed (with and without in-place) on the same input:
 * outputs equal bit for bit; returns the streamed arena. */
static bool last_streamed; /* run_equal's streamed run streamed segments */

static uint64_t run_equal(const ap_model *m) {
  uint64_t arena = 0;
  uint8_t *want = NULL;
  size_t want_bytes = 0;
  for (int mode = 0; mode < 3; mode++) {
    ap_interpreter_options o = ap_interpreter_defaults();
    o.strategy = mode == 0 ? "naive" : "best";
    o.stream = mode > 0;
    o.inplace = mode == 2;
    ap_interpreter *it = NULL;
    CHECK_MSG(ap_interpreter_create(m, &o, &it) == AP_OK && ap_interpreter_allocate(it) == AP_OK,
              "%s", ap_interpreter_error(it));
    ap_tensor in, out;
    CHECK(ap_interpreter_input(it, 0, &in) == AP_OK);
    for (size_t i = 0; i < in.bytes / 4; i++)
      ((float *)in.data)[i] = (float)((i * 37) % 11) - 5;
    CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
    CHECK(ap_interpreter_output(it, 0, &out) == AP_OK);
    if (mode == 0) {
      want = malloc(out.bytes);
      memcpy(want, out.data, out.bytes);
      want_bytes = out.bytes;
    } else {
      CHECK_MSG(out.bytes == want_bytes && memcmp(out.data, want, want_bytes) == 0,
                "streamed output differs (mode %d)", mode);
      ap_memory_usage u;
      CHECK(ap_interpreter_memory(it, &u) == AP_OK);
      if (mode == 1) arena = u.arena;
      if (mode == 1) last_streamed = ap_interpreter_streamed(it);
    }
    ap_interpreter_destroy(it);
  }
  free(want);
  return arena;
}

/* The chain on maps 64 wide, run as run_equal does: wide enough that the segments' state and
 * their kernels' scratch (planned with them) cost less than streaming saves, so the runtime
 * keeps the streamed plan (a smaller unstreamed one wins, as on the narrow maps above). */
static void run_wide(int32_t h, int32_t c, const layer *ls, size_t n, bool must_stream) {
  uint8_t *keep;
  ap_model *m = chain(h, 64, c, ls, n, &keep);
  run_equal(m);
  CHECK_MSG(!must_stream || last_streamed, "the runtime did not stream a %zu-op chain", n);
  ap_model_destroy(m);
  free(keep);
}

/* x [1,16,2,1] -> conv 3x3 s2 SAME -> a [1,8,2,8] -> conv 3x3 s1 SAME -> b [1,8,2,8]
 * -> conv 3x3 s2 SAME -> y [1,4,2,1]. Unstreamed the steps hold 128+512, 512+512, 512+32
 * bytes (peak 1024). Streamed as one segment: a's ring 3 rows (pad 1) x 64 B, b's 3 rows
 * (8 -> 4, pad 0, rows 2y..2y+2) x 64 B; every step holds x 128 + y 32 + 192 + 192 = 544. */
static void three_layers(void) {
  const layer ls[] = {{3, 3, 2, 1, AP_PADDING_SAME, 8, 8},
                      {3, 3, 1, 1, AP_PADDING_SAME, 8, 8},
                      {3, 3, 2, 1, AP_PADDING_SAME, 4, 1}};
  uint8_t *keep;
  ap_model *m = chain(16, 2, 1, ls, 3, &keep);
  ap_graph *g = NULL;
  CHECK(ap_graph_create(m, &(ap_graph_options){.stream = true}, NULL, &g) == AP_OK);
  CHECK_EQ(ap_graph_segment_count(g), (size_t)1);
  ap_segment s;
  CHECK(ap_graph_segment(g, 0, &s) == AP_OK);
  CHECK_EQ(s.first_op, 0u);
  CHECK_EQ(s.op_count, 3u);
  CHECK_EQ(s.ring_bytes, (uint64_t)384);
  CHECK_EQ(s.saved, (uint64_t)640);
  size_t a = out_index(ls, 0), b = out_index(ls, 1), y = out_index(ls, 2);
  CHECK_EQ(ap_graph_ring_rows(g, a), 3u);
  CHECK_EQ(ap_graph_ring_rows(g, b), 3u);
  CHECK_EQ(ap_graph_ring_rows(g, y), 0u);
  ap_lifetime l;
  CHECK(ap_graph_tensor(g, 0, a, &l) == AP_OK);
  CHECK(l.bytes == 192 && l.first == 0 && l.last == 2);
  CHECK(ap_graph_tensor(g, 0, 0, &l) == AP_OK);
  CHECK(l.first == 0 && l.last == 2); /* the input is read to the segment's end */
  CHECK(ap_graph_tensor(g, 0, y, &l) == AP_OK);
  CHECK(l.first == 2 && l.last == 2); /* the segment's last step stands for all of it */
  ap_problem *p = NULL;
  CHECK(ap_graph_problem(g, -1, 16, &p) == AP_OK);
  ap_plan *plan = NULL;
  CHECK(ap_plan_create(p, &(ap_plan_options){.strategy = "best"}, &plan) == AP_OK);
  CHECK_EQ(ap_plan_lower_bound(plan), (uint64_t)544);
  CHECK_EQ(ap_plan_arena(plan), (uint64_t)544);
  ap_plan_destroy(plan);
  ap_problem_destroy(p);
  ap_graph_destroy(g);
  /* Other rules have no segments. */
  CHECK(ap_graph_create(m, &(ap_graph_options){.rules = AP_RULES_TFLM, .stream = true}, NULL, &g) ==
        AP_ERR_UNSUPPORTED);
  ap_graph_destroy(g);
  run_equal(m);
  ap_model_destroy(m);
  free(keep);
  run_wide(16, 1, ls, 3, true);
}

/* ap_graph_grow_ring on three_layers' chain: a's ring of 3 rows x 64 B grows to 5 rows, its
 * segment's ring_bytes and saved follow; what is not a ring, or rows not above the rule's or
 * above the map's height, is refused. */
static void grow_ring(void) {
  const layer ls[] = {{3, 3, 2, 1, AP_PADDING_SAME, 8, 8},
                      {3, 3, 1, 1, AP_PADDING_SAME, 8, 8},
                      {3, 3, 2, 1, AP_PADDING_SAME, 4, 1}};
  uint8_t *keep;
  ap_model *m = chain(16, 2, 1, ls, 3, &keep);
  ap_graph *g = NULL;
  CHECK(ap_graph_create(m, &(ap_graph_options){.stream = true}, NULL, &g) == AP_OK);
  size_t a = out_index(ls, 0), b = out_index(ls, 1), y = out_index(ls, 2);
  CHECK(ap_graph_grow_ring(NULL, a, 5, 8) == AP_ERR_ARG);
  CHECK(ap_graph_grow_ring(g, 1u << 20, 5, 8) == AP_ERR_ARG);
  CHECK(ap_graph_grow_ring(g, y, 2, 4) == AP_ERR_RANGE); /* whole: not a ring */
  CHECK(ap_graph_grow_ring(g, a, 3, 8) == AP_ERR_RANGE); /* not more than the rule's */
  CHECK(ap_graph_grow_ring(g, a, 2, 8) == AP_ERR_RANGE);
  CHECK(ap_graph_grow_ring(g, a, 9, 8) == AP_ERR_RANGE); /* above the map */
  CHECK(ap_graph_grow_ring(g, a, 5, 8) == AP_OK);
  CHECK_EQ(ap_graph_ring_rows(g, a), 5u);
  CHECK_EQ(ap_graph_ring_rows(g, b), 3u);
  ap_lifetime l;
  CHECK(ap_graph_tensor(g, 0, a, &l) == AP_OK);
  CHECK(l.bytes == 320 && l.first == 0 && l.last == 2);
  ap_segment s;
  CHECK(ap_graph_segment(g, 0, &s) == AP_OK);
  CHECK_EQ(s.ring_bytes, (uint64_t)512);
  CHECK_EQ(s.saved, (uint64_t)512);
  CHECK(ap_graph_grow_ring(g, b, 8, 8) == AP_OK); /* the whole map: nothing saved on it */
  CHECK(ap_graph_segment(g, 0, &s) == AP_OK);
  CHECK_EQ(s.ring_bytes, (uint64_t)832);
  CHECK_EQ(s.saved, (uint64_t)192);
  ap_problem *p = NULL;
  CHECK(ap_graph_problem(g, -1, 16, &p) == AP_OK);
  ap_plan *plan = NULL;
  CHECK(ap_plan_create(p, &(ap_plan_options){.strategy = "best"}, &plan) == AP_OK);
  CHECK_EQ(ap_plan_arena(plan), (uint64_t)(128 + 32 + 320 + 512));
  ap_plan_destroy(plan);
  ap_problem_destroy(p);
  ap_graph_destroy(g);
  ap_model_destroy(m);
  free(keep);
}

/* Dilation, a pooling window taller than the map, 1-row maps and a depthwise stride 2: the
 * segments the search picks run equal to unstreamed runs. */
static void skip_add(void) {
  /* x [1,8,2,4] -> conv 3x3 SAME -> a -> conv 3x3 SAME -> b -> ADD(b, x) -> y, 256 B each.
   * Unstreamed the steps hold 512, 768 and 768 bytes. One segment: a's ring 3 rows of 32 B, b's
   * 1 row (the ADD reads row y); x is read whole by the first conv and the ADD: x + y + 96 +
   * 32 = 640. In place, y overlaps x: once y's row r is written the ADD reads x from row r + 1
   * on, and the first conv has computed rows up to r + 1 (two ahead of the second conv's
   * window, pad 1), reading x next from row r + 1 too: the lead is max (r + 1) * 32 - (r + 1)
   * * 32 = 0, y takes x's bytes, and 256 + 128 = 384 bytes remain. */
  const layer ls[] = {{3, 3, 1, 1, AP_PADDING_SAME, 8, 4},
                      {3, 3, 1, 1, AP_PADDING_SAME, 8, 4},
                      {0, 1, 1, 1, AP_PADDING_SAME, 8, 4}};
  uint8_t *keep;
  ap_model *m = chain(8, 2, 4, ls, 3, &keep);
  ap_graph *g = NULL;
  CHECK(ap_graph_create(m, &(ap_graph_options){.stream = true}, NULL, &g) == AP_OK);
  CHECK_EQ(ap_graph_segment_count(g), (size_t)1);
  CHECK_EQ(ap_graph_ring_rows(g, out_index(ls, 0)), 3u);
  CHECK_EQ(ap_graph_ring_rows(g, out_index(ls, 1)), 1u);
  ap_problem *p = NULL;
  ap_plan *plan = NULL;
  CHECK(ap_graph_problem(g, -1, 16, &p) == AP_OK);
  CHECK(ap_plan_create(p, &(ap_plan_options){.strategy = "best"}, &plan) == AP_OK);
  CHECK_EQ(ap_plan_arena(plan), (uint64_t)640);
  ap_plan_destroy(plan);
  ap_problem_destroy(p);
  ap_graph_destroy(g);
  CHECK(ap_graph_create(m, &(ap_graph_options){.stream = true, .inplace = true}, NULL, &g) ==
        AP_OK);
  CHECK(ap_graph_problem(g, -1, 16, &p) == AP_OK);
  CHECK_EQ(ap_problem_overlap_count(p), (size_t)1);
  CHECK_EQ(ap_problem_overlaps(p)[0].lead, (int64_t)0);
  CHECK(ap_plan_create(p, &(ap_plan_options){.strategy = "best"}, &plan) == AP_OK);
  CHECK_EQ(ap_plan_arena(plan), (uint64_t)384);
  ap_plan_destroy(plan);
  ap_problem_destroy(p);
  ap_graph_destroy(g);
  run_equal(m);
  ap_model_destroy(m);
  free(keep);
  /* 8 rows: the float convolution's staging rows (3 of 8) take what the rings save. */
  run_wide(8, 4, ls, 3, false);
}

/* Element-wise members: x [1,8,2,4] -> conv 3x3 SAME -> a -> RELU -> b -> SUB a constant -> c
 * -> QUANTIZE -> d (int8) -> DEQUANTIZE -> e -> MUL(e, x) -> y; float maps 256 B (rows of 32),
 * d 64 B. Unstreamed the steps hold 512, 768, 768, 576, 576, 768 bytes (x lives to the MUL).
 * Every element-wise op reads row y of its input for row y: its input ring is 1 row. One
 * segment of all six would hold x + y + 4 x 32 + 8 = 648 at every step; cutting at the small
 * int8 map d does better: ops 0-3 (rings a, b, c: 96 B, saving 672) hold x + d + 96 = 416, and
 * ops 4-5 (ring e, 32 B) hold x + d + y + 32 = 608, the arena. */
static void elementwise(void) {
  const layer ls[] = {{3, 3, 1, 1, AP_PADDING_SAME, 8, 4},  {19, 1, 1, 1, AP_PADDING_SAME, 8, 4},
                      {41, 1, 1, 1, AP_PADDING_SAME, 8, 4}, {114, 1, 1, 1, AP_PADDING_SAME, 8, 4},
                      {6, 1, 1, 1, AP_PADDING_SAME, 8, 4},  {18, 1, 1, 1, AP_PADDING_SAME, 8, 4}};
  uint8_t *keep;
  ap_model *m = chain(8, 2, 4, ls, 6, &keep);
  ap_graph *g = NULL;
  CHECK(ap_graph_create(m, &(ap_graph_options){.stream = true}, NULL, &g) == AP_OK);
  CHECK_EQ(ap_graph_segment_count(g), (size_t)2);
  ap_segment s;
  CHECK(ap_graph_segment(g, 0, &s) == AP_OK);
  CHECK(s.first_op == 0 && s.op_count == 4);
  CHECK_EQ(s.ring_bytes, (uint64_t)96);
  CHECK_EQ(s.saved, (uint64_t)672);
  CHECK(ap_graph_segment(g, 1, &s) == AP_OK);
  CHECK(s.first_op == 4 && s.op_count == 2);
  CHECK_EQ(s.ring_bytes, (uint64_t)32);
  for (size_t i = 0; i < 5; i++)
    CHECK_EQ(ap_graph_ring_rows(g, out_index(ls, i)), i == 3 ? 0u : 1u);
  ap_problem *p = NULL;
  ap_plan *plan = NULL;
  CHECK(ap_graph_problem(g, -1, 8, &p) == AP_OK);
  CHECK(ap_plan_create(p, &(ap_plan_options){.strategy = "best"}, &plan) == AP_OK);
  CHECK_EQ(ap_plan_arena(plan), (uint64_t)608);
  ap_plan_destroy(plan);
  ap_problem_destroy(p);
  ap_graph_destroy(g);
  run_equal(m);
  ap_model_destroy(m);
  free(keep);
  /* A constant operand may start a segment: SUB -> RELU -> conv 1x1. */
  const layer head[] = {{41, 1, 1, 1, AP_PADDING_SAME, 32, 4},
                        {19, 1, 1, 1, AP_PADDING_SAME, 32, 4},
                        {3, 1, 1, 1, AP_PADDING_VALID, 32, 2}};
  m = chain(32, 2, 4, head, 3, &keep);
  CHECK(ap_graph_create(m, &(ap_graph_options){.stream = true}, NULL, &g) == AP_OK);
  CHECK(ap_graph_segment(g, 0, &s) == AP_OK);
  CHECK(s.first_op == 0 && s.op_count == 3);
  ap_graph_destroy(g);
  ap_model_destroy(m);
  free(keep);
  run_wide(8, 4, ls, 6, true);
  run_wide(32, 4, head, 3, true);
}

static void edges(void) {
  {
    /* x [1,10,2,1] -> conv 1x1 (8 ch) -> a [1,10,2,8] -> conv 3x3 dilation 2 VALID -> [1,6,2,1]:
     * a's ring is 5 rows of 64 B (320 of 640); steps hold 80 + 48 + 320 = 448 < 720. */
    const layer ls[] = {{3, 1, 1, 1, AP_PADDING_VALID, 10, 8},
                        {3, 3, 1, 2, AP_PADDING_VALID, 6, 1}};
    uint8_t *keep;
    ap_model *m = chain(10, 2, 1, ls, 2, &keep);
    ap_graph *g = NULL;
    CHECK(ap_graph_create(m, &(ap_graph_options){.stream = true}, NULL, &g) == AP_OK);
    CHECK_EQ(ap_graph_segment_count(g), (size_t)1);
    CHECK_EQ(ap_graph_ring_rows(g, out_index(ls, 0)), 5u);
    ap_graph_destroy(g);
    run_equal(m);
    ap_model_destroy(m);
    free(keep);
    run_wide(10, 1, ls, 2, false); /* 10 rows: as skip_add */
  }
  {
    /* conv 1x1 to 8 ch, max pool 5 rows SAME on 3 rows (the ring is the whole map), depthwise
     * 3x3 s2 SAME, conv 3x3 SAME on the 1-row map. */
    const layer ls[] = {{3, 1, 1, 1, AP_PADDING_SAME, 3, 8},
                        {17, 5, 1, 1, AP_PADDING_SAME, 3, 8},
                        {4, 3, 2, 1, AP_PADDING_SAME, 2, 8},
                        {3, 3, 2, 1, AP_PADDING_SAME, 1, 8},
                        {3, 3, 1, 1, AP_PADDING_SAME, 1, 1}};
    uint8_t *keep;
    ap_model *m = chain(3, 4, 2, ls, 5, &keep);
    run_equal(m);
    ap_model_destroy(m);
    free(keep);
    run_wide(3, 2, ls, 5, false);
  }
  {
    /* conv 1x1 -> PAD 1 row on top, 2 below -> depthwise 3x3 stride 2 VALID -> conv 1x1. PAD's
     * input ring is one row (output row y copies input row y - 1); the depthwise's input ring
     * 3 rows (VALID, rows 2y..2y+2). */
    const layer ls[] = {{3, 1, 1, 1, AP_PADDING_VALID, 12, 8},
                        {34, 1, 2, 1, AP_PADDING_VALID, 15, 8},
                        {4, 3, 2, 1, AP_PADDING_VALID, 7, 8},
                        {3, 1, 1, 1, AP_PADDING_VALID, 7, 1}};
    uint8_t *keep;
    ap_model *m = chain(12, 3, 1, ls, 4, &keep);
    ap_graph *g = NULL;
    CHECK(ap_graph_create(m, &(ap_graph_options){.stream = true}, NULL, &g) == AP_OK);
    CHECK_EQ(ap_graph_segment_count(g), (size_t)1);
    CHECK_EQ(ap_graph_ring_rows(g, out_index(ls, 0)), 1u);
    CHECK_EQ(ap_graph_ring_rows(g, out_index(ls, 1)), 3u);
    ap_graph_destroy(g);
    run_equal(m);
    ap_model_destroy(m);
    free(keep);
    run_wide(12, 1, ls, 4, true);
  }
  {
    /* Tall maps: depthwise stride 2 and average pooling in one segment. */
    const layer ls[] = {{3, 3, 1, 1, AP_PADDING_SAME, 32, 4},
                        {4, 3, 2, 1, AP_PADDING_SAME, 16, 8},
                        {1, 2, 2, 1, AP_PADDING_VALID, 8, 8},
                        {3, 1, 1, 1, AP_PADDING_VALID, 8, 1}};
    uint8_t *keep;
    ap_model *m = chain(32, 3, 1, ls, 4, &keep);
    ap_graph *g = NULL;
    CHECK(ap_graph_create(m, &(ap_graph_options){.stream = true}, NULL, &g) == AP_OK);
    CHECK(ap_graph_segment_count(g) >= 1);
    ap_graph_destroy(g);
    run_equal(m);
    ap_model_destroy(m);
    free(keep);
    run_wide(32, 1, ls, 4, true);
  }
}

int main(void) {
  for (size_t i = 0; i < sizeof weights / sizeof *weights; i++)
    weights[i] = (float)((int)((i * 2654435761u) >> 28) - 8) / 8.0f;
  ring_rule();
  three_layers();
  grow_ring();
  skip_add();
  elementwise();
  edges();
  return ap_test_done();
}
