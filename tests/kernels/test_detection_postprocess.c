/* TFLite_Detection_PostProcess through the registry (ap_kernel_find_custom), on hand-worked
 * cases: zero encodings decode to the anchors' corners, fast NMS keeps each anchor's best
 * class and suppresses overlaps, regular NMS runs per class and merges by score, ties keep the
 * lower index, unfilled entries are zero, uint8 inputs are dequantized, and output shapes come
 * from the options when the model leaves them unknown. Then hostile options (missing keys,
 * wrong types, negative or huge counts) and inputs, each a one-line error. The options are
 * FlexBuffer maps laid out here: keys, the keys vector, then the map (all slots 8 bytes). */
#include "kernels/kops_detect.h"
#include "kernels/registry.h"
#include "ktest.h"

#include <stdlib.h>

/* --- a FlexBuffer map writer (keys sorted by the caller) --- */
enum { V_INT, V_FLOAT, V_BOOL, V_STRING };
typedef struct {
  const char *key;
  int kind;
  double v;
} opt;

typedef struct {
  uint8_t b[1024];
  size_t n;
} flex;

static void put(flex *f, uint64_t v, unsigned w) {
  for (unsigned i = 0; i < w; i++)
    f->b[f->n++] = (uint8_t)(v >> (8 * i));
}

static size_t build(flex *f, const opt *o, size_t n) {
  size_t kpos[32], spos[32];
  f->n = 0;
  for (size_t i = 0; i < n; i++) {
    kpos[i] = f->n;
    memcpy(f->b + f->n, o[i].key, strlen(o[i].key) + 1);
    f->n += strlen(o[i].key) + 1;
  }
  for (size_t i = 0; i < n; i++) {
    if (o[i].kind != V_STRING) continue;
    while (f->n % 8)
      f->b[f->n++] = 0;
    put(f, 3, 8);
    spos[i] = f->n;
    memcpy(f->b + f->n, "abc", 4);
    f->n += 4;
  }
  while (f->n % 8)
    f->b[f->n++] = 0;
  put(f, n, 8);
  size_t keys = f->n;
  for (size_t i = 0; i < n; i++)
    put(f, f->n - kpos[i], 8);
  put(f, f->n - keys, 8);
  put(f, 8, 8);
  put(f, n, 8);
  size_t vals = f->n;
  for (size_t i = 0; i < n; i++) {
    uint64_t u;
    if (o[i].kind == V_FLOAT) {
      memcpy(&u, &o[i].v, 8);
    } else if (o[i].kind == V_STRING) {
      u = f->n - spos[i];
    } else {
      int64_t x = (int64_t)o[i].v;
      memcpy(&u, &x, 8);
    }
    put(f, u, 8);
  }
  for (size_t i = 0; i < n; i++) {
    static const uint8_t type[] = {1, 3, 26, 5};
    put(f, (uint8_t)(type[o[i].kind] << 2 | (o[i].kind == V_STRING ? 0 : 3)), 1);
  }
  put(f, f->n - vals, 1);
  put(f, 9 << 2 | 3, 1); /* a map of 8-byte slots */
  put(f, 1, 1);
  return f->n;
}

/* The options of most cases: max_detections 3, one class per detection, 2 classes. */
static size_t base_options(flex *f, int regular, double max_det, double dpc) {
  opt o[] = {
      {"detections_per_class", V_INT, dpc},
      {"h_scale", V_FLOAT, 5},
      {"max_classes_per_detection", V_INT, 1},
      {"max_detections", V_INT, max_det},
      {"nms_iou_threshold", V_FLOAT, 0.5},
      {"nms_score_threshold", V_FLOAT, 0.3},
      {"num_classes", V_INT, 2},
      {"use_regular_nms", V_BOOL, regular},
      {"w_scale", V_FLOAT, 5},
      {"x_scale", V_FLOAT, 10},
      {"y_scale", V_FLOAT, 10},
  };
  return build(f, o, sizeof o / sizeof o[0]);
}

/* --- running the kernel --- */
typedef struct {
  _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
  ap_kop_options opt;
  ap_errbuf err;
  float boxes[64], classes[16], scores[16], count[4];
  ap_ktensor out[4];
} run;

static ap_status go(run *r, const flex *f, const ap_ktensor *in, int n_in, int out_rank) {
  memset(r, 0, sizeof *r);
  memset(r->boxes, 0x7f, sizeof r->boxes); /* stale bytes: eval must overwrite them */
  memset(r->classes, 0x7f, sizeof r->classes);
  memset(r->scores, 0x7f, sizeof r->scores);
  r->opt.custom_options = f ? f->b : NULL;
  r->opt.custom_options_size = f ? f->n : 0;
  float *data[4] = {r->boxes, r->classes, r->scores, r->count};
  for (int k = 0; k < 4; k++) {
    r->out[k] = kout(AP_FLOAT32, data[k], 0, 0);
    if (out_rank) { /* the model's shapes: room for 3 detections */
      r->out[k].rank = k == 0 ? 3 : k == 3 ? 1 : 2;
      r->out[k].dims[0] = 1;
      r->out[k].dims[1] = k == 0 ? out_rank : out_rank;
      r->out[k].dims[2] = 4;
    }
  }
  const ap_ktensor *pin[3] = {&in[0], &in[1], &in[2]};
  ap_ktensor *pout[4] = {&r->out[0], &r->out[1], &r->out[2], &r->out[3]};
  const ap_kernel *k = ap_kernel_find_custom("TFLite_Detection_PostProcess");
  CHECK(k != NULL);
  if (!k) return AP_ERR_UNSUPPORTED;
  ap_kctx c = {pin, n_in, pout, 4, &r->opt, r->params, NULL, &r->err};
  size_t scratch = 0;
  ap_status s = k->prepare(&c, &scratch);
  if (s != AP_OK) return s;
  void *mem = aligned_alloc(16, scratch ? ap_kscratch_round(scratch) : 16);
  c.scratch = mem;
  static const ap_kop_options none;
  c.options = &none;
  s = k->eval(&c);
  free(mem);
  return s;
}

/* Three anchors (y, x, h, w): A and B overlap (IoU 0.95/1.05), C is far away. */
static float anchors[3][4] = {{0.5f, 0.5f, 1, 1}, {0.55f, 0.5f, 1, 1}, {3, 3, 1, 1}};
static float enc[3][4];
/* Scores: background, class 0, class 1. */
static float sc[3][3] = {{0.9f, 0.8f, 0.1f}, {0, 0.7f, 0.6f}, {0, 0.2f, 0.65f}};

static void inputs(ap_ktensor in[3]) {
  in[0] = kt(AP_FLOAT32, enc, 3, 1, 3, 4, 0);
  in[1] = kt(AP_FLOAT32, sc, 3, 1, 3, 3, 0);
  in[2] = kt(AP_FLOAT32, anchors, 2, 3, 4, 0, 0);
}

static void check_box(const float *b, float y0, float x0, float y1, float x1) {
  CHECK_MSG(b[0] == y0 && b[1] == x0 && b[2] == y1 && b[3] == x1, "box (%g %g %g %g)", (double)b[0],
            (double)b[1], (double)b[2], (double)b[3]);
}

static void test_fast(void) {
  flex f;
  run r;
  ap_ktensor in[3];
  inputs(in);
  base_options(&f, 0, 3, 100);
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_OK);
  /* Output shapes from the options: D = 3 * 1. */
  CHECK_EQ(r.out[0].rank, 3);
  CHECK(r.out[0].dims[0] == 1 && r.out[0].dims[1] == 3 && r.out[0].dims[2] == 4);
  CHECK(r.out[1].rank == 2 && r.out[1].dims[1] == 3 && r.out[3].rank == 1 && r.out[3].dims[0] == 1);
  /* A (class 0, 0.8) first, B suppressed by A, C (class 1, 0.65); the third entry zero. */
  CHECK(r.count[0] == 2.0f);
  check_box(r.boxes, 0, 0, 1, 1);
  check_box(r.boxes + 4, 2.5f, 2.5f, 3.5f, 3.5f);
  check_box(r.boxes + 8, 0, 0, 0, 0);
  CHECK(r.classes[0] == 0 && r.classes[1] == 1 && r.classes[2] == 0);
  CHECK(r.scores[0] == 0.8f && r.scores[1] == 0.65f && r.scores[2] == 0);

  /* An IoU threshold of 1 suppresses nothing: B (0.7) comes second. */
  opt o[] = {
      {"h_scale", V_FLOAT, 5},
      {"max_classes_per_detection", V_INT, 1},
      {"max_detections", V_INT, 3},
      {"nms_iou_threshold", V_FLOAT, 1},
      {"nms_score_threshold", V_FLOAT, 0.3},
      {"num_classes", V_INT, 2},
      {"w_scale", V_FLOAT, 5},
      {"x_scale", V_FLOAT, 10},
      {"y_scale", V_FLOAT, 10},
  };
  build(&f, o, sizeof o / sizeof o[0]);
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_OK);
  CHECK(r.count[0] == 3.0f && r.scores[1] == 0.7f && r.classes[1] == 0);
  check_box(r.boxes + 4, 0.55f - 0.5f, 0, 0.55f + 0.5f, 1);
}

static void test_regular(void) {
  flex f;
  run r;
  ap_ktensor in[3];
  inputs(in);
  base_options(&f, 1, 3, 3);
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_OK);
  /* Class 0: A kept, B suppressed. Class 1: C (0.65) then B (0.6, no overlap with C). */
  CHECK(r.count[0] == 3.0f);
  CHECK(r.classes[0] == 0 && r.classes[1] == 1 && r.classes[2] == 1);
  CHECK(r.scores[0] == 0.8f && r.scores[1] == 0.65f && r.scores[2] == 0.6f);
  check_box(r.boxes + 4, 2.5f, 2.5f, 3.5f, 3.5f);
  check_box(r.boxes + 8, 0.55f - 0.5f, 0, 0.55f + 0.5f, 1);
  /* max_detections 2 cuts the merged list; detections_per_class 1 keeps C only in class 1. */
  base_options(&f, 1, 2, 3);
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_OK);
  CHECK(r.count[0] == 2.0f && r.scores[1] == 0.65f && r.out[1].dims[1] == 2);
  base_options(&f, 1, 3, 1);
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_OK);
  CHECK(r.count[0] == 2.0f && r.scores[2] == 0 && r.classes[2] == 0);
  /* max_detections 0: nothing, count 0. */
  base_options(&f, 1, 0, 3);
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_OK);
  CHECK(r.count[0] == 0.0f);
}

static void test_ties_and_decoding(void) {
  flex f;
  run r;
  float s2[3][3] = {{0, 0.5f, 0.5f}, {0, 0.4f, 0.4f}, {0, 0.5f, 0.4f}};
  /* y encoding 10 with y_scale 10: the centre moves by one anchor height; h encoding
   * 5 * ln 2 with h_scale 5 doubles the height (up to exp's rounding, in double). */
  float e2[3][4] = {{10, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
  ap_ktensor in[3];
  inputs(in);
  in[0].data = e2;
  in[1].data = s2;
  base_options(&f, 0, 3, 100);
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_OK);
  /* Anchor 0's classes tie at 0.5: class 0 wins. Anchors 0 and 2 tie at 0.5: anchor 0 first.
   * Anchor 0's box moved down by 1 no longer overlaps anchor 1. */
  CHECK(r.count[0] == 3.0f);
  CHECK(r.classes[0] == 0 && r.scores[0] == 0.5f);
  check_box(r.boxes, 1, 0, 2, 1);
  check_box(r.boxes + 4, 2.5f, 2.5f, 3.5f, 3.5f);
  CHECK(r.scores[2] == 0.4f && r.classes[2] == 0);
}

/* Top classes per anchor: one anchor, four classes (no background), three kept. */
static void test_top_classes(void) {
  flex f;
  run r;
  float a1[1][4] = {{0.5f, 0.5f, 1, 1}}, e1[1][4] = {{0}}, s1[1][4] = {{0.5f, 0.9f, 0.5f, 0.9f}};
  ap_ktensor in[3] = {kt(AP_FLOAT32, e1, 3, 1, 1, 4, 0), kt(AP_FLOAT32, s1, 3, 1, 1, 4, 0),
                      kt(AP_FLOAT32, a1, 2, 1, 4, 0, 0)};
  opt o[] = {
      {"h_scale", V_FLOAT, 5},
      {"max_classes_per_detection", V_INT, 3},
      {"max_detections", V_INT, 2},
      {"nms_iou_threshold", V_FLOAT, 0.5},
      {"nms_score_threshold", V_FLOAT, 0.3},
      {"num_classes", V_INT, 4},
      {"w_scale", V_FLOAT, 5},
      {"x_scale", V_FLOAT, 10},
      {"y_scale", V_FLOAT, 10},
  };
  build(&f, o, sizeof o / sizeof o[0]);
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_OK);
  /* 0.9 (class 1), 0.9 (class 3), 0.5 (class 0); one anchor detected; the rest zero. */
  CHECK(r.count[0] == 1.0f && r.out[1].dims[1] == 6);
  CHECK(r.classes[0] == 1 && r.classes[1] == 3 && r.classes[2] == 0 && r.classes[3] == 0);
  CHECK(r.scores[0] == 0.9f && r.scores[1] == 0.9f && r.scores[2] == 0.5f && r.scores[3] == 0);
  check_box(r.boxes + 8, 0, 0, 1, 1);
  check_box(r.boxes + 12, 0, 0, 0, 0);
}

static void test_uint8(void) {
  flex f;
  run r, rf;
  /* Anchors at scale 0.05 (zero point 0); encodings and scores at scale 0.1, zero point 10. */
  uint8_t qa[3][4] = {{10, 10, 20, 20}, {11, 10, 20, 20}, {60, 60, 20, 20}};
  uint8_t qe[3][4] = {{10, 10, 10, 10}, {12, 10, 9, 10}, {10, 10, 10, 10}};
  uint8_t qs[3][3] = {{19, 18, 11}, {10, 17, 16}, {10, 12, 16}};
  float fa[3][4], fe[3][4], fs[3][3];
  for (int i = 0; i < 3; i++) {
    for (int k = 0; k < 4; k++) {
      fa[i][k] = ((float)qa[i][k] - 0.0f) * 0.05f;
      fe[i][k] = ((float)qe[i][k] - 10.0f) * 0.1f;
    }
    for (int k = 0; k < 3; k++)
      fs[i][k] = (float)(0.1f * (double)(qs[i][k] - 10));
  }
  ap_ktensor in[3] = {ktq(AP_UINT8, qe, 3, 1, 3, 4, 0, 0.1f, 10),
                      ktq(AP_UINT8, qs, 3, 1, 3, 3, 0, 0.1f, 10),
                      ktq(AP_UINT8, qa, 2, 3, 4, 0, 0, 0.05f, 0)};
  ap_ktensor inf[3] = {kt(AP_FLOAT32, fe, 3, 1, 3, 4, 0), kt(AP_FLOAT32, fs, 3, 1, 3, 3, 0),
                       kt(AP_FLOAT32, fa, 2, 3, 4, 0, 0)};
  for (int regular = 0; regular < 2; regular++) {
    base_options(&f, regular, 3, 3);
    CHECK_EQ(go(&r, &f, in, 3, 0), AP_OK);
    CHECK_EQ(go(&rf, &f, inf, 3, 0), AP_OK);
    CHECK(r.count[0] == rf.count[0] && r.count[0] >= 2.0f);
    CHECK(memcmp(r.boxes, rf.boxes, 12 * sizeof(float)) == 0);
    CHECK(memcmp(r.classes, rf.classes, 3 * sizeof(float)) == 0);
    CHECK(memcmp(r.scores, rf.scores, 3 * sizeof(float)) == 0);
  }
  /* int8: the same values shifted by -128 with zero points shifted too dequantize alike. */
  int8_t ia[3][4], ie[3][4], is[3][3];
  for (int i = 0; i < 3; i++) {
    for (int k = 0; k < 4; k++) {
      ia[i][k] = (int8_t)(qa[i][k] - 128);
      ie[i][k] = (int8_t)(qe[i][k] - 128);
    }
    for (int k = 0; k < 3; k++)
      is[i][k] = (int8_t)(qs[i][k] - 128);
  }
  ap_ktensor i8[3] = {ktq(AP_INT8, ie, 3, 1, 3, 4, 0, 0.1f, -118),
                      ktq(AP_INT8, is, 3, 1, 3, 3, 0, 0.1f, -118),
                      ktq(AP_INT8, ia, 2, 3, 4, 0, 0, 0.05f, -128)};
  CHECK_EQ(go(&r, &f, i8, 3, 0), AP_OK);
  CHECK(r.count[0] == rf.count[0] && memcmp(r.boxes, rf.boxes, 12 * sizeof(float)) == 0 &&
        memcmp(r.scores, rf.scores, 3 * sizeof(float)) == 0);
  /* Float scores with uint8 boxes are fine; float anchors with uint8 boxes are not. */
  in[1] = inf[1];
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_OK);
  in[2] = inf[2];
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_ERR_UNSUPPORTED);
  CHECK_CONTAINS(r.err.msg, "anchors of type FLOAT32");
  /* A zero-height anchor: TFLite Micro's float check refuses the empty box; uint8 (TFLite's
   * check) accepts it. */
  qa[2][2] = 0;
  in[1] = ktq(AP_UINT8, qs, 3, 1, 3, 3, 0, 0.1f, 10);
  in[2] = ktq(AP_UINT8, qa, 2, 3, 4, 0, 0, 0.05f, 0);
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_OK);
  fa[2][2] = 0;
  CHECK_EQ(go(&rf, &f, inf, 3, 0), AP_ERR_KERNEL);
  CHECK_CONTAINS(rf.err.msg, "decoded box 2 is empty or inverted");
}

static void test_hostile_options(void) {
  flex f;
  run r;
  ap_ktensor in[3];
  inputs(in);
  CHECK_EQ(go(&r, NULL, in, 3, 0), AP_ERR_FORMAT);
  CHECK_CONTAINS(r.err.msg, "no custom options");
  /* Not a map: the int 5. */
  f.n = 0;
  put(&f, 5, 1);
  put(&f, 1 << 2, 1);
  put(&f, 1, 1);
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_ERR_FORMAT);
  CHECK_CONTAINS(r.err.msg, "not a FlexBuffer map");
  /* Garbage bytes. */
  f.n = 2;
  f.b[0] = 0xff;
  f.b[1] = 0xff;
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_ERR_FORMAT);
  CHECK(strchr(r.err.msg, '\n') == NULL && r.err.msg[0]);

  struct {
    const char *key;
    int kind;
    double v;
    const char *msg;
  } cases[] = {
      {"max_detections", -1, 0, "option max_detections is missing"},
      {"y_scale", -1, 0, "option y_scale is missing"},
      {"num_classes", V_STRING, 0, "option num_classes: flexbuffer: string is not a number"},
      {"nms_iou_threshold", V_STRING, 0, "option nms_iou_threshold"},
      {"max_detections", V_INT, -3, "max_detections = -3 is negative"},
      {"max_detections", V_INT, 1e12, "max_detections = 1000000000000 does not fit an int32"},
      {"max_detections", V_INT, 2e9, "overflows int32"},
      {"max_classes_per_detection", V_INT, 0, "max_classes_per_detection = 0, not positive"},
      {"num_classes", V_INT, 0, "num_classes = 0, not positive"},
      {"nms_iou_threshold", V_FLOAT, 0, "nms_iou_threshold = 0 is not in (0, 1]"},
      {"nms_iou_threshold", V_FLOAT, 1.5, "is not in (0, 1]"},
      {"detections_per_class", V_INT, -1, "detections_per_class = -1 is out of range"},
      {"use_regular_nms", V_STRING, 0, "option use_regular_nms"},
      {"num_classes", V_INT, 5, "3 score columns for num_classes = 5"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    opt o[] = {
        {"detections_per_class", V_INT, 100},
        {"h_scale", V_FLOAT, 5},
        {"max_classes_per_detection", V_INT, 2},
        {"max_detections", V_INT, 3},
        {"nms_iou_threshold", V_FLOAT, 0.5},
        {"nms_score_threshold", V_FLOAT, 0.3},
        {"num_classes", V_INT, 2},
        {"use_regular_nms", V_BOOL, 0},
        {"w_scale", V_FLOAT, 5},
        {"x_scale", V_FLOAT, 10},
        {"y_scale", V_FLOAT, 10},
    };
    size_t n = sizeof o / sizeof o[0], j = 0;
    opt kept[16];
    for (size_t i = 0; i < n; i++) {
      if (strcmp(o[i].key, cases[c].key) == 0) {
        if (cases[c].kind < 0) continue;
        o[i].kind = cases[c].kind;
        o[i].v = cases[c].v;
      }
      kept[j++] = o[i];
    }
    build(&f, kept, j);
    CHECK_MSG(go(&r, &f, in, 3, 0) == AP_ERR_FORMAT, "case %zu", c);
    CHECK_CONTAINS(r.err.msg, cases[c].msg);
    CHECK(strchr(r.err.msg, '\n') == NULL);
  }
  /* Optional keys absent: detections_per_class 100, fast NMS. */
  opt o[] = {
      {"h_scale", V_FLOAT, 5},
      {"max_classes_per_detection", V_INT, 2},
      {"max_detections", V_INT, 3},
      {"nms_iou_threshold", V_FLOAT, 0.5},
      {"nms_score_threshold", V_FLOAT, 0.3},
      {"num_classes", V_INT, 2},
      {"w_scale", V_FLOAT, 5},
      {"x_scale", V_FLOAT, 10},
      {"y_scale", V_FLOAT, 10},
  };
  build(&f, o, sizeof o / sizeof o[0]);
  ap_detect_options d;
  CHECK_EQ(ap_detect_parse_options(f.b, f.n, &d, NULL), AP_OK);
  CHECK(d.detections_per_class == 100 && !d.use_regular_nms && d.y_scale == 10.0f);
  /* Two classes per detection (TFLite's layout): A's two classes at 0 and 1, C's at 2, 3. */
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_OK);
  CHECK(r.out[1].dims[1] == 6 && r.count[0] == 2.0f);
  CHECK(r.classes[0] == 0 && r.classes[1] == 1 && r.classes[2] == 1 && r.classes[3] == 0);
  CHECK(r.scores[1] == 0.1f && r.scores[3] == 0.2f && r.scores[4] == 0);
  /* Every truncation of the options fails with a message, never a crash. */
  for (size_t cut = 0; cut < f.n; cut++) {
    flex t = f;
    t.n = cut;
    memmove(t.b, f.b + (f.n - cut), cut); /* keep the tail: the root moves with it */
    ap_status s = go(&r, &t, in, 3, 0);
    CHECK(s != AP_OK && r.err.msg[0]);
  }
}

static void test_hostile_inputs(void) {
  flex f;
  run r;
  ap_ktensor in[3];
  base_options(&f, 0, 3, 100);
  inputs(in);
  CHECK_EQ(go(&r, &f, in, 2, 0), AP_ERR_FORMAT);
  CHECK_CONTAINS(r.err.msg, "expected 3 inputs and 4 outputs");
  inputs(in);
  in[1].dims[1] = 2;
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_ERR_FORMAT);
  CHECK_CONTAINS(r.err.msg, "2 score rows for 3 boxes");
  inputs(in);
  in[0].dims[2] = 3;
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_ERR_FORMAT);
  inputs(in);
  in[2].dims[0] = 2;
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_ERR_FORMAT);
  CHECK_CONTAINS(r.err.msg, "anchors [2,4] for 3 boxes");
  inputs(in);
  in[0].type = AP_INT32;
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_ERR_UNSUPPORTED);
  inputs(in);
  in[1].rank = 2;
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_ERR_FORMAT);
  /* Model output shapes: room for 3 is enough; room for 2 is refused. */
  inputs(in);
  CHECK_EQ(go(&r, &f, in, 3, 3), AP_OK);
  CHECK(r.count[0] == 2.0f);
  CHECK_EQ(go(&r, &f, in, 3, 2), AP_ERR_FORMAT);
  CHECK_CONTAINS(r.err.msg, "outputs hold 2 detections, 3 are written");
  /* Zero boxes: nothing detected. */
  inputs(in);
  in[0].dims[1] = 0;
  in[1].dims[1] = 0;
  CHECK_EQ(go(&r, &f, in, 3, 0), AP_OK);
  CHECK(r.count[0] == 0.0f && r.scores[0] == 0);
}

int main(void) {
  test_fast();
  test_regular();
  test_ties_and_decoding();
  test_top_classes();
  test_uint8();
  test_hostile_options();
  test_hostile_inputs();
  return ap_test_done();
}
