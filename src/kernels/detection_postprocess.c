/* TFLite_Detection_PostProcess: SSD box decoding against anchors, then fast (per-anchor best
 * classes) or regular (per-class) non-max suppression, as TFLite Micro's
 * detection_postprocess.cc computes it; uint8/int8 inputs are dequantized as TFLite's kernel
 * does (TFLite Micro takes float32 only).
 *
 * Where the two TFLite implementations differ, this follows TFLite Micro for float32 inputs
 * and TFLite for quantized ones (TFLite's is then the only reference): boxes whose decoded
 * corners coincide are refused by TFLite Micro's check (ymin >= ymax) but accepted by TFLite's
 * (ymin > ymax). With max_classes_per_detection > 1 TFLite Micro writes past its outputs; the
 * layout here is TFLite's (anchor i's classes at i * max_classes_per_detection + k, count =
 * anchors), with ties between equal class scores broken by the lower class index, as TFLite
 * Micro's sort does. Output entries no detection fills are zero (both leave them unwritten).
 * Regular NMS caps each class at min(detections_per_class, max_detections) as TFLite does;
 * TFLite Micro's uncapped lists give the same outputs, since a class's selections come in
 * score order and only the best max_detections can survive the merge. */
#include "kernels/kops_detect.h"
#include "model/flexbuf.h"

#include <math.h>
#include <string.h>

#define OP "TFLite_Detection_PostProcess"

_Static_assert(sizeof(ap_detect_params) <= AP_KPARAMS_SIZE, "detect params");

/* --- options --- */

static ap_status opt_find(const ap_flex *m, const char *key, bool *present, ap_flex *v) {
  *present = ap_flex_map_find(m, key, v) && v->type != AP_FLEX_NULL;
  return AP_OK;
}

static ap_status opt_int(const ap_flex *m, const char *key, bool required, int32_t def,
                         int32_t *out, ap_errbuf *err) {
  ap_flex v;
  bool present;
  opt_find(m, key, &present, &v);
  if (!present) {
    if (required) return ap_fail(err, AP_ERR_FORMAT, OP ": option %s is missing", key);
    *out = def;
    return AP_OK;
  }
  ap_errbuf e;
  int64_t x;
  if (ap_flex_as_int(&v, &x, &e) != AP_OK)
    return ap_fail(err, AP_ERR_FORMAT, OP ": option %s: %s", key, e.msg);
  if (x < INT32_MIN || x > INT32_MAX)
    return ap_fail(err, AP_ERR_FORMAT, OP ": option %s = %lld does not fit an int32", key,
                   (long long)x);
  *out = (int32_t)x;
  return AP_OK;
}

static ap_status opt_float(const ap_flex *m, const char *key, float *out, ap_errbuf *err) {
  ap_flex v;
  bool present;
  opt_find(m, key, &present, &v);
  if (!present) return ap_fail(err, AP_ERR_FORMAT, OP ": option %s is missing", key);
  ap_errbuf e;
  double d;
  if (ap_flex_as_float(&v, &d, &e) != AP_OK)
    return ap_fail(err, AP_ERR_FORMAT, OP ": option %s: %s", key, e.msg);
  *out = (float)d;
  return AP_OK;
}

ap_status ap_detect_parse_options(const uint8_t *bytes, size_t size, ap_detect_options *o,
                                  ap_errbuf *err) {
  ap_flex m;
  ap_errbuf e;
  if (!o) return ap_fail(err, AP_ERR_ARG, OP ": NULL options");
  if (!bytes || !size) return ap_fail(err, AP_ERR_FORMAT, OP ": no custom options");
  if (ap_flex_root(bytes, size, &m, &e) != AP_OK)
    return ap_fail(err, AP_ERR_FORMAT, OP ": custom options: %s", e.msg);
  if (m.type != AP_FLEX_MAP)
    return ap_fail(err, AP_ERR_FORMAT, OP ": custom options are not a FlexBuffer map");
  memset(o, 0, sizeof *o);
  ap_status s = opt_int(&m, "max_detections", true, 0, &o->max_detections, err);
  if (s == AP_OK)
    s = opt_int(&m, "max_classes_per_detection", true, 0, &o->max_classes_per_detection, err);
  if (s == AP_OK)
    s = opt_int(&m, "detections_per_class", false, 100, &o->detections_per_class, err);
  if (s == AP_OK) s = opt_int(&m, "num_classes", true, 0, &o->num_classes, err);
  if (s != AP_OK) return s;
  ap_flex v;
  bool present;
  opt_find(&m, "use_regular_nms", &present, &v);
  if (present && ap_flex_as_bool(&v, &o->use_regular_nms, &e) != AP_OK)
    return ap_fail(err, AP_ERR_FORMAT, OP ": option use_regular_nms: %s", e.msg);
  s = opt_float(&m, "nms_score_threshold", &o->score_threshold, err);
  if (s == AP_OK) s = opt_float(&m, "nms_iou_threshold", &o->iou_threshold, err);
  if (s == AP_OK) s = opt_float(&m, "y_scale", &o->y_scale, err);
  if (s == AP_OK) s = opt_float(&m, "x_scale", &o->x_scale, err);
  if (s == AP_OK) s = opt_float(&m, "h_scale", &o->h_scale, err);
  if (s == AP_OK) s = opt_float(&m, "w_scale", &o->w_scale, err);
  if (s != AP_OK) return s;
  if (o->max_detections < 0)
    return ap_fail(err, AP_ERR_FORMAT, OP ": max_detections = %d is negative", o->max_detections);
  if (o->max_classes_per_detection < 1)
    return ap_fail(err, AP_ERR_FORMAT, OP ": max_classes_per_detection = %d, not positive",
                   o->max_classes_per_detection);
  if (o->detections_per_class < (o->use_regular_nms ? 1 : 0))
    return ap_fail(err, AP_ERR_FORMAT, OP ": detections_per_class = %d is out of range",
                   o->detections_per_class);
  if (o->num_classes < 1)
    return ap_fail(err, AP_ERR_FORMAT, OP ": num_classes = %d, not positive", o->num_classes);
  if (!(o->iou_threshold > 0.0f && o->iou_threshold <= 1.0f))
    return ap_fail(err, AP_ERR_FORMAT, OP ": nms_iou_threshold = %g is not in (0, 1]",
                   (double)o->iou_threshold);
  if ((int64_t)o->max_detections * o->max_classes_per_detection > INT32_MAX)
    return ap_fail(err, AP_ERR_FORMAT,
                   OP ": max_detections * max_classes_per_detection overflows int32");
  return AP_OK;
}

/* --- prepare --- */

static bool quant_type(int t) {
  return t == AP_UINT8 || t == AP_INT8;
}

/* Appends a block of n elements of es bytes to the scratch layout. */
static bool block(size_t *total, size_t n, size_t es, size_t *off) {
  size_t bytes;
  if (!ap_mul_size(n, es, &bytes)) return false;
  *off = *total;
  return ap_add_size(*total, ap_kscratch_round(bytes), total) && *total >= *off;
}

static ap_status check_inputs(ap_kctx *c, ap_detect_params *p) {
  const ap_ktensor *b = c->inputs[0], *s = c->inputs[1], *a = c->inputs[2];
  if (b->rank != 3 || s->rank != 3 || a->rank != 2)
    return ap_fail(c->err, AP_ERR_FORMAT,
                   OP ": boxes, scores and anchors must have rank 3, 3 and 2 (have %d, %d, %d)",
                   b->rank, s->rank, a->rank);
  if (b->dims[0] != 1 || s->dims[0] != 1)
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, OP ": batch must be 1");
  p->num_boxes = b->dims[1];
  p->box_stride = b->dims[2];
  p->num_scores = s->dims[2];
  if (p->num_boxes < 0 || p->box_stride < 4)
    return ap_fail(c->err, AP_ERR_FORMAT, OP ": box encodings [1,%d,%d]: need [1,N,>=4]",
                   p->num_boxes, p->box_stride);
  if (s->dims[1] != p->num_boxes)
    return ap_fail(c->err, AP_ERR_FORMAT, OP ": %d score rows for %d boxes", s->dims[1],
                   p->num_boxes);
  if (a->dims[0] < p->num_boxes || a->dims[1] != 4)
    return ap_fail(c->err, AP_ERR_FORMAT, OP ": anchors [%d,%d] for %d boxes: need [N,4]",
                   a->dims[0], a->dims[1], p->num_boxes);
  int label_offset = p->num_scores - p->o.num_classes;
  if (label_offset < 0 || label_offset > 1)
    return ap_fail(c->err, AP_ERR_FORMAT,
                   OP ": %d score columns for num_classes = %d (need it or one more)",
                   p->num_scores, p->o.num_classes);
  if ((int64_t)p->num_boxes * p->num_scores > INT32_MAX)
    return ap_fail(c->err, AP_ERR_FORMAT, OP ": %d boxes x %d classes overflows int32",
                   p->num_boxes, p->num_scores);
  p->box_type = b->type;
  p->score_type = s->type;
  p->anchor_type = a->type;
  if (b->type != AP_FLOAT32 && !quant_type(b->type))
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, OP ": box encodings of type %s",
                   ap_ktype_name(b->type));
  if (s->type != AP_FLOAT32 && !quant_type(s->type))
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, OP ": class predictions of type %s",
                   ap_ktype_name(s->type));
  /* TFLite reads float anchors with float boxes and quantized ones with quantized boxes. */
  if (a->type != b->type)
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, OP ": anchors of type %s with boxes of type %s",
                   ap_ktype_name(a->type), ap_ktype_name(b->type));
  p->box_scale = b->scale;
  p->box_zp = b->zero_point;
  p->score_scale = s->scale;
  p->score_zp = s->zero_point;
  p->anchor_scale = a->scale;
  p->anchor_zp = a->zero_point;
  return AP_OK;
}

/* Output shapes: TFLite's when the model leaves them unknown (rank 0), else the model's, which
 * must hold what eval writes. */
static ap_status set_outputs(ap_kctx *c, ap_detect_params *p) {
  int32_t d = p->o.max_detections * p->o.max_classes_per_detection;
  int64_t cap = INT32_MAX;
  for (int k = 0; k < 4; k++) {
    ap_ktensor *t = c->outputs[k];
    if (t->type != AP_FLOAT32)
      return ap_fail(c->err, AP_ERR_FORMAT, OP ": output %d is %s, not FLOAT32", k,
                     ap_ktype_name(t->type));
    if (t->rank == 0) {
      int32_t dims[3] = {1, d, 4};
      t->rank = k == 0 ? 3 : k == 3 ? 1 : 2;
      memcpy(t->dims, dims, sizeof dims);
    }
    size_t n;
    if (!ap_ktensor_count(t, &n))
      return ap_fail(c->err, AP_ERR_FORMAT, OP ": output %d has an invalid shape", k);
    int64_t entries = k == 0 ? (int64_t)(n / 4) : (int64_t)n;
    if (k < 3 && entries < cap) cap = entries;
    if (k == 3 && n < 1) return ap_fail(c->err, AP_ERR_FORMAT, OP ": output 3 is empty");
  }
  int32_t need = p->o.use_regular_nms ? p->o.max_detections : d;
  if (cap < need)
    return ap_fail(c->err, AP_ERR_FORMAT, OP ": outputs hold %lld detections, %d are written",
                   (long long)cap, need);
  p->out_capacity = need;
  return AP_OK;
}

ap_status ap_detect_prepare(ap_kctx *c, size_t *scratch) {
  if (!c || !scratch || !c->params || !c->options || c->n_inputs != 3 || c->n_outputs != 4 ||
      !c->inputs || !c->outputs || !c->inputs[0] || !c->inputs[1] || !c->inputs[2] ||
      !c->outputs[0] || !c->outputs[1] || !c->outputs[2] || !c->outputs[3])
    return ap_fail(c ? c->err : NULL, AP_ERR_FORMAT, OP ": expected 3 inputs and 4 outputs");
  ap_detect_params *p = c->params;
  memset(p, 0, sizeof *p);
  ap_status s = ap_detect_parse_options(c->options->custom_options, c->options->custom_options_size,
                                        &p->o, c->err);
  if (s == AP_OK) s = check_inputs(c, p);
  if (s == AP_OK) s = set_outputs(c, p);
  if (s != AP_OK) return s;

  size_t n = (size_t)p->num_boxes, nc = (size_t)p->o.num_classes, total = 0;
  size_t ncat = AP_MIN((size_t)p->o.max_classes_per_detection, nc), cells;
  bool ok = ap_mul_size(n, (size_t)p->num_scores, &cells) &&
            block(&total, n, 16, &p->off_decoded) &&
            block(&total, p->score_type == AP_FLOAT32 ? 0 : cells, 4, &p->off_scores) &&
            block(&total, n, 4, &p->off_class) && block(&total, n, 4, &p->off_keep_scores) &&
            block(&total, n, 4, &p->off_keep_idx) && block(&total, n, 4, &p->off_sorted) &&
            block(&total, n, 4, &p->off_tmp) && block(&total, n, 4, &p->off_selected) &&
            block(&total, n, 1, &p->off_active);
  if (ok && !p->o.use_regular_nms) {
    size_t k;
    ok = ap_mul_size(n, ncat, &k) && block(&total, k, 4, &p->off_cls_idx);
  } else if (ok) {
    /* The merged list never exceeds max_detections nor every (box, class) pair. */
    size_t pairs, m;
    ok = ap_mul_size(n, nc, &pairs);
    m = AP_MIN((size_t)p->o.max_detections, pairs);
    ok = ok && m <= INT32_MAX && block(&total, m, 4, &p->off_m_idx) &&
         block(&total, m, 4, &p->off_m_score) && block(&total, m, 4, &p->off_m_idx2) &&
         block(&total, m, 4, &p->off_m_score2);
    p->merge_capacity = (int32_t)m;
  }
  if (!ok) return ap_fail(c->err, AP_ERR_OVERFLOW, OP ": scratch size overflows");
  *scratch = total;
  return AP_OK;
}

/* --- eval --- */

typedef struct work {
  const ap_detect_params *p;
  unsigned char *scratch;
  const float *decoded; /* N boxes: ymin, xmin, ymax, xmax */
} work;

#define AT(w, off, T) ((T *)(void *)((w)->scratch + (w)->p->off))

static float dq(int32_t q, int32_t zp, float scale) {
  return ((float)q - (float)zp) * scale;
}

static int32_t qval(const void *data, int type, size_t i) {
  return type == AP_UINT8 ? ((const uint8_t *)data)[i] : ((const int8_t *)data)[i];
}

static void decode(const ap_detect_params *p, const ap_ktensor *boxes, const ap_ktensor *anchors,
                   float *out) {
  const ap_detect_options *o = &p->o;
  for (int32_t i = 0; i < p->num_boxes; i++) {
    float e[4], a[4];
    size_t bi = (size_t)i * (size_t)p->box_stride, ai = (size_t)i * 4;
    for (int k = 0; k < 4; k++) {
      if (p->box_type == AP_FLOAT32) {
        e[k] = ((const float *)boxes->data)[bi + k];
        a[k] = ((const float *)anchors->data)[ai + k];
      } else {
        e[k] = dq(qval(boxes->data, p->box_type, bi + k), p->box_zp, p->box_scale);
        a[k] = dq(qval(anchors->data, p->anchor_type, ai + k), p->anchor_zp, p->anchor_scale);
      }
    }
    /* Centre-size (y, x, h, w) to corners, in double as the reference computes it. */
    float yc = (float)((double)e[0] / (double)o->y_scale * (double)a[2] + (double)a[0]);
    float xc = (float)((double)e[1] / (double)o->x_scale * (double)a[3] + (double)a[1]);
    float hh = (float)(0.5 * exp((double)e[2] / (double)o->h_scale) * (double)a[2]);
    float hw = (float)(0.5 * exp((double)e[3] / (double)o->w_scale) * (double)a[3]);
    float *b = out + (size_t)i * 4;
    b[0] = yc - hh;
    b[1] = xc - hw;
    b[2] = yc + hh;
    b[3] = xc + hw;
  }
}

/* std::max<float> / std::min<float>, NaN behaviour included. */
static float smax(float a, float b) {
  return a < b ? b : a;
}
static float smin(float a, float b) {
  return b < a ? b : a;
}

static float iou(const float *boxes, int32_t i, int32_t j) {
  const float *a = boxes + (size_t)i * 4, *b = boxes + (size_t)j * 4;
  float area_a = (a[2] - a[0]) * (a[3] - a[1]);
  float area_b = (b[2] - b[0]) * (b[3] - b[1]);
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  float ymin = smax(a[0], b[0]), xmin = smax(a[1], b[1]);
  float ymax = smin(a[2], b[2]), xmax = smin(a[3], b[3]);
  float inter = smax(ymax - ymin, 0.0f) * smax(xmax - xmin, 0.0f);
  return inter / (area_a + area_b - inter);
}

/* Stable sort of idx[0..n) by decreasing v[idx], bottom-up merges through tmp. */
static void sort_desc(const float *v, int32_t *idx, int32_t *tmp, int32_t n) {
  for (int32_t i = 0; i < n; i++)
    idx[i] = i;
  for (int32_t width = 1; width < n; width *= 2) {
    for (int32_t lo = 0; lo < n; lo += 2 * width) {
      int32_t mid = AP_MIN(lo + width, n), hi = AP_MIN(lo + 2 * width, n);
      int32_t l = lo, r = mid, k = lo;
      while (k < hi) {
        if (l < mid && !(r < hi && v[idx[r]] > v[idx[l]]))
          tmp[k++] = idx[l++];
        else
          tmp[k++] = idx[r++];
      }
    }
    memcpy(idx, tmp, (size_t)n * sizeof *idx);
    if (width > n / 2) break;
  }
}

/* Greedy NMS over one score per box: the selected boxes, best first; returns their count. */
static int32_t nms(const work *w, const float *scores, int32_t max_out, int32_t *selected) {
  const ap_detect_params *p = w->p;
  float *keep_scores = AT(w, off_keep_scores, float);
  int32_t *keep_idx = AT(w, off_keep_idx, int32_t), *sorted = AT(w, off_sorted, int32_t);
  uint8_t *active = AT(w, off_active, uint8_t);
  int32_t kept = 0;
  for (int32_t i = 0; i < p->num_boxes; i++) {
    if (scores[i] >= p->o.score_threshold) {
      keep_scores[kept] = scores[i];
      keep_idx[kept++] = i;
    }
  }
  sort_desc(keep_scores, sorted, AT(w, off_tmp, int32_t), kept);
  int32_t out_size = AP_MIN(kept, max_out), n_sel = 0, n_active = kept;
  memset(active, 1, (size_t)kept);
  for (int32_t i = 0; i < kept; i++) {
    if (n_active == 0 || n_sel >= out_size) break;
    if (!active[i]) continue;
    int32_t bi = keep_idx[sorted[i]];
    selected[n_sel++] = bi;
    active[i] = 0;
    n_active--;
    for (int32_t j = i + 1; j < kept; j++) {
      if (active[j] && iou(w->decoded, bi, keep_idx[sorted[j]]) > p->o.iou_threshold) {
        active[j] = 0;
        n_active--;
      }
    }
  }
  return n_sel;
}

static void put_box(float *out, int32_t at, const float *decoded, int32_t box) {
  memcpy(out + (size_t)at * 4, decoded + (size_t)box * 4, 4 * sizeof(float));
}

static void fast_nms(const work *w, const float *scores, float *boxes, float *classes,
                     float *out_scores, float *count) {
  const ap_detect_params *p = w->p;
  int32_t nc = p->o.num_classes, stride = p->num_scores, off = stride - nc;
  int32_t ncat = AP_MIN(p->o.max_classes_per_detection, nc);
  float *max_scores = AT(w, off_class, float);
  int32_t *cls = AT(w, off_cls_idx, int32_t), *selected = AT(w, off_selected, int32_t);
  for (int32_t row = 0; row < p->num_boxes; row++) {
    const float *s = scores + (size_t)row * (size_t)stride + off;
    int32_t *top = cls + (size_t)row * (size_t)ncat;
    /* The ncat best classes, by decreasing score then increasing index: one pass keeping a
     * sorted list (a later class displaces only a strictly lower score), which for ncat 1 is
     * TFLite's ArgMaxVector. */
    int32_t cnt = 0;
    for (int32_t j = 0; j < nc; j++) {
      if (cnt == ncat && !(s[j] > s[top[cnt - 1]])) continue;
      int32_t at = cnt < ncat ? cnt++ : cnt - 1;
      while (at > 0 && s[j] > s[top[at - 1]]) {
        top[at] = top[at - 1];
        at--;
      }
      top[at] = j;
    }
    max_scores[row] = s[top[0]];
  }
  int32_t n_sel = nms(w, max_scores, p->o.max_detections, selected);
  for (int32_t i = 0; i < n_sel; i++) {
    int32_t b = selected[i];
    const float *s = scores + (size_t)b * (size_t)stride + off;
    for (int32_t k = 0; k < ncat; k++) {
      int32_t at = p->o.max_classes_per_detection * i + k;
      put_box(boxes, at, w->decoded, b);
      classes[at] = (float)cls[(size_t)b * (size_t)ncat + (size_t)k];
      out_scores[at] = s[cls[(size_t)b * (size_t)ncat + (size_t)k]];
    }
  }
  *count = (float)n_sel;
}

static void regular_nms(const work *w, const float *scores, float *boxes, float *classes,
                        float *out_scores, float *count) {
  const ap_detect_params *p = w->p;
  int32_t nc = p->o.num_classes, stride = p->num_scores, off = stride - nc;
  int32_t max_det = p->o.max_detections, cap = AP_MIN(p->o.detections_per_class, max_det);
  float *cs = AT(w, off_class, float), *ms = AT(w, off_m_score, float);
  float *ms2 = AT(w, off_m_score2, float);
  int32_t *selected = AT(w, off_selected, int32_t), *mi = AT(w, off_m_idx, int32_t);
  int32_t *mi2 = AT(w, off_m_idx2, int32_t), n = 0;
  for (int32_t col = 0; col < nc && max_det > 0; col++) {
    for (int32_t row = 0; row < p->num_boxes; row++)
      cs[row] = scores[(size_t)row * (size_t)stride + (size_t)(col + off)];
    int32_t n_sel = nms(w, cs, cap, selected);
    /* Stable merge: on equal scores the earlier classes' entries stay first. */
    int32_t a = 0, b = 0, k = 0, lim = AP_MIN(n + n_sel, p->merge_capacity);
    while (k < lim) {
      if (a < n && !(b < n_sel && cs[selected[b]] > ms[a])) {
        mi2[k] = mi[a];
        ms2[k++] = ms[a++];
      } else {
        mi2[k] = selected[b] * stride + col + off;
        ms2[k++] = cs[selected[b++]];
      }
    }
    n = AP_MIN(lim, max_det);
    memcpy(mi, mi2, (size_t)n * sizeof *mi);
    memcpy(ms, ms2, (size_t)n * sizeof *ms);
  }
  for (int32_t i = 0; i < n; i++) {
    int32_t anchor = mi[i] / stride;
    put_box(boxes, i, w->decoded, anchor);
    classes[i] = (float)(mi[i] - anchor * stride - off);
    out_scores[i] = ms[i];
  }
  *count = (float)n;
}

static bool same_dims(const ap_ktensor *t, int rank, int32_t d0, int32_t d1, int32_t d2) {
  int32_t d[3] = {d0, d1, d2};
  if (t->rank != rank || !t->data) return false;
  for (int i = 0; i < rank; i++)
    if (t->dims[i] != d[i]) return false;
  return true;
}

ap_status ap_detect_eval(ap_kctx *c) {
  if (!c || !c->params || c->n_inputs != 3 || c->n_outputs != 4 || !c->inputs || !c->outputs)
    return AP_ERR_ARG;
  const ap_detect_params *p = c->params;
  const ap_ktensor *bx = c->inputs[0], *sc = c->inputs[1], *an = c->inputs[2];
  for (int k = 0; k < 4; k++)
    if (!c->outputs[k] || !c->outputs[k]->data) return AP_ERR_ARG;
  size_t nb, ns, nn, need = (size_t)p->out_capacity;
  if (!bx || !sc || !an || !same_dims(bx, 3, 1, p->num_boxes, p->box_stride) ||
      !same_dims(sc, 3, 1, p->num_boxes, p->num_scores) || !an->data || an->rank != 2 ||
      an->dims[0] < p->num_boxes || an->dims[1] != 4 || bx->type != p->box_type ||
      sc->type != p->score_type || !ap_ktensor_count(c->outputs[0], &nb) ||
      !ap_ktensor_count(c->outputs[1], &ns) || !ap_ktensor_count(c->outputs[2], &nn) ||
      nb / 4 < need || ns < need || nn < need || (!c->scratch && p->num_boxes > 0))
    return AP_ERR_ARG;
  work w = {p, c->scratch, NULL};
  float *decoded = AT(&w, off_decoded, float);
  w.decoded = decoded;
  decode(p, bx, an, decoded);
  const float *scores = sc->data;
  if (p->score_type != AP_FLOAT32) {
    float *deq = AT(&w, off_scores, float);
    size_t cells = (size_t)p->num_boxes * (size_t)p->num_scores;
    double scale = p->score_scale;
    for (size_t i = 0; i < cells; i++)
      deq[i] = (float)(scale * (qval(sc->data, p->score_type, i) - p->score_zp));
    scores = deq;
  }
  /* Both references refuse inverted boxes; TFLite Micro also refuses empty ones. */
  bool strict = p->box_type == AP_FLOAT32;
  for (int32_t i = 0; i < p->num_boxes; i++) {
    const float *b = decoded + (size_t)i * 4;
    if (strict ? (b[0] >= b[2] || b[1] >= b[3]) : (b[0] > b[2] || b[1] > b[3]))
      return ap_fail(c->err, AP_ERR_KERNEL, OP ": decoded box %d is %s", i,
                     strict ? "empty or inverted" : "inverted");
  }
  float *boxes = c->outputs[0]->data, *classes = c->outputs[1]->data;
  float *out_scores = c->outputs[2]->data, *count = c->outputs[3]->data;
  memset(boxes, 0, need * 4 * sizeof(float));
  memset(classes, 0, need * sizeof(float));
  memset(out_scores, 0, need * sizeof(float));
  if (p->o.use_regular_nms)
    regular_nms(&w, scores, boxes, classes, out_scores, count);
  else
    fast_nms(&w, scores, boxes, classes, out_scores, count);
  return AP_OK;
}
