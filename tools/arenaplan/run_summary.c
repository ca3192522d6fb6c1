/* `arenaplan run` output summaries: min, max, mean and, for classifiers, the top 5. */
#include "run.h"

#include <string.h>

const char *run_shape(char *buf, size_t size, const ap_tensor *t) {
  size_t o = 0;
  o += (size_t)snprintf(buf, size, "[");
  for (int d = 0; d < t->rank && d < AP_MAX_DIMS && o < size; d++)
    o += (size_t)snprintf(buf + o, size - o, "%s%d", d ? "," : "", (int)t->dims[d]);
  if (o < size) snprintf(buf + o, size - o, "]");
  return buf;
}

/* Bytes per element of the types summaries read; 0 for the others. */
static size_t elem_size(int type) {
  switch (type) {
  case AP_INT8:
  case AP_UINT8:
  case AP_BOOL: return 1;
  case AP_INT16: return 2;
  case AP_INT32:
  case AP_FLOAT32: return 4;
  case AP_INT64:
  case AP_FLOAT64: return 8;
  default: return 0;
  }
}

static double element(const ap_tensor *t, size_t i) {
  const unsigned char *p = t->data;
  switch (t->type) {
  case AP_INT8: return (double)(int8_t)p[i];
  case AP_UINT8:
  case AP_BOOL: return (double)p[i];
  case AP_INT16: {
    int16_t v;
    memcpy(&v, p + 2 * i, 2);
    return v;
  }
  case AP_INT32: {
    int32_t v;
    memcpy(&v, p + 4 * i, 4);
    return v;
  }
  case AP_FLOAT32: {
    float v;
    memcpy(&v, p + 4 * i, 4);
    return v;
  }
  case AP_INT64: {
    int64_t v;
    memcpy(&v, p + 8 * i, 8);
    return (double)v;
  }
  default: {
    double v;
    memcpy(&v, p + 8 * i, 8);
    return v;
  }
  }
}

/* The number of classes when t is a classifier's output: one dim >= 2 outside the batch
 * dimension (dim 0 of a rank >= 2 tensor), every other dim 1. 0 otherwise. */
static size_t classes(const ap_tensor *t) {
  size_t n = 0;
  for (int d = 0; d < t->rank; d++) {
    if (t->dims[d] == 1) continue;
    if (t->rank >= 2 && d == 0) return 0; /* a batch of several: not one answer */
    if (t->dims[d] < 2 || n) return 0;
    n = (size_t)t->dims[d];
  }
  return n;
}

void run_summarize(const ap_tensor *t, run_summary *s) {
  memset(s, 0, sizeof *s);
  size_t es = elem_size(t->type);
  if (!es || !t->data) return;
  size_t n = t->bytes / es;
  double scale = 1, zp = 0;
  if ((t->type == AP_INT8 || t->type == AP_UINT8) && t->scale > 0) {
    scale = t->scale;
    zp = t->zero_point;
    s->dequantized = true;
  }
  s->has_stats = n > 0;
  s->count = n;
  double sum = 0;
  for (size_t i = 0; i < n; i++) {
    double v = (element(t, i) - zp) * scale;
    if (i == 0 || v < s->min) s->min = v;
    if (i == 0 || v > s->max) s->max = v;
    sum += v;
  }
  s->mean = n ? sum / (double)n : 0;
  if (classes(t) != n || n < 2) return;
  /* Top 5 by value, ties to the lower class index: a few passes over the classes. */
  for (int k = 0; k < 5 && (size_t)k < n; k++) {
    bool found = false;
    size_t best = 0;
    double bv = 0;
    for (size_t i = 0; i < n; i++) {
      bool taken = false;
      for (int j = 0; j < k; j++)
        taken |= s->top_class[j] == i;
      double v = (element(t, i) - zp) * scale;
      if (taken || (found && !(v > bv))) continue;
      found = true;
      best = i;
      bv = v;
    }
    s->top_class[k] = best;
    s->top_value[k] = bv;
    s->top_n = k + 1;
  }
}
