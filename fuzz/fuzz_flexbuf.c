/* fuzz_flexbuf: the FlexBuffers reader (src/model/flexbuf.h) on untrusted bytes, as custom
 * ops' options are. Walks the value tree breadth-first with an explicit, bounded work list
 * (every element of every container, every map key, every scalar accessor) and looks up the
 * keys the built-in custom ops read; then TFLite_Detection_PostProcess's options parser on the
 * same bytes (it must fail with a one-line message or give checked values). Any read outside the
 * exact-size read-only copy is an ASan report; a string handed back outside the buffer or a failure
 * without a message aborts. */
#include "fuzz_common.h"
#include "kernels/detect_options.h"
#include "model/flexbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_VISITS = 4096, MAX_ELEMS = 64 };

static void check_span(const uint8_t *buf, size_t size, const char *s, size_t len) {
  const uint8_t *p = (const uint8_t *)s;
  if (p < buf || p > buf + size || len > (size_t)(buf + size - p))
    fuzz_die("flexbuf", "string outside the buffer");
}

static void check_fail(ap_status st, const ap_errbuf *err) {
  if (st != AP_OK && !err->msg[0]) fuzz_die("flexbuf", "failure without a message");
}

static void visit_scalars(const ap_flex *v, const uint8_t *buf, size_t size) {
  ap_errbuf err;
  int64_t i;
  double d;
  bool b;
  const char *s;
  size_t len;
  err.msg[0] = 0;
  check_fail(ap_flex_as_int(v, &i, &err), &err);
  err.msg[0] = 0;
  check_fail(ap_flex_as_float(v, &d, &err), &err);
  err.msg[0] = 0;
  check_fail(ap_flex_as_bool(v, &b, &err), &err);
  err.msg[0] = 0;
  ap_status st = ap_flex_as_string(v, &s, &len, &err);
  check_fail(st, &err);
  if (st == AP_OK) check_span(buf, size, s, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t map_size;
  uint8_t *buf = fuzz_readonly_copy(data, size, &map_size);
  if (!buf) return 0;
  ap_errbuf err = {{0}};
  ap_flex root;
  ap_status st = ap_flex_root(buf, size, &root, &err);
  check_fail(st, &err);
  if (st == AP_OK) {
    static const char *const keys[] = {"max_detections",
                                       "max_classes_per_detection",
                                       "detections_per_class",
                                       "use_regular_nms",
                                       "nms_score_threshold",
                                       "nms_iou_threshold",
                                       "num_classes",
                                       "y_scale",
                                       "x_scale",
                                       "h_scale",
                                       "w_scale",
                                       "",
                                       "zzzz"};
    ap_flex v;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
      if (ap_flex_map_find(&root, keys[k], &v)) visit_scalars(&v, buf, size);
    /* Breadth-first over a fixed work list: the depth and count are bounded, not the stack. */
    static ap_flex work[MAX_VISITS];
    size_t head = 0, tail = 0;
    work[tail++] = root;
    while (head < tail) {
      ap_flex cur = work[head++];
      visit_scalars(&cur, buf, size);
      size_t len = 0;
      err.msg[0] = 0;
      st = ap_flex_length(&cur, &len, &err);
      check_fail(st, &err);
      if (st != AP_OK) continue;
      for (size_t i = 0; i < len && i < MAX_ELEMS; i++) {
        ap_flex e;
        err.msg[0] = 0;
        st = ap_flex_at(&cur, i, &e, &err);
        check_fail(st, &err);
        if (st == AP_OK && tail < MAX_VISITS) work[tail++] = e;
        if (cur.type == AP_FLEX_MAP) {
          const char *s;
          size_t klen;
          err.msg[0] = 0;
          st = ap_flex_map_key(&cur, i, &s, &klen, &err);
          check_fail(st, &err);
          if (st == AP_OK) {
            check_span(buf, size, s, klen + 1);
            char key[64];
            if (klen < sizeof key) {
              memcpy(key, s, klen + 1);
              (void)ap_flex_map_find(&cur, key, &e);
            }
          }
        }
      }
    }
  }
  ap_detect_options o;
  err.msg[0] = 0;
  st = ap_detect_parse_options(buf, size, &o, &err);
  check_fail(st, &err);
  if (st != AP_OK && strchr(err.msg, '\n')) fuzz_die("detect options", "multi-line message");
  if (st == AP_OK && (o.max_detections < 0 || o.max_classes_per_detection < 1 ||
                      o.num_classes < 1 || !(o.iou_threshold > 0 && o.iou_threshold <= 1)))
    fuzz_die("detect options", "out-of-range value accepted");
  fuzz_readonly_free(buf, map_size);
  return 0;
}
