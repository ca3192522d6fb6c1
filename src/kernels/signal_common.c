/* What the Signal ops share: their options (a FlexBuffers map), the checks of their tensors,
 * and TFLite Micro's integer square root and logarithm. */
#include "kernels/kops_signal.h"

#include <string.h>

ap_status ap_sig_io(ap_kctx *c, const char *op, int n_in, int n_out) {
  bool ok = c && c->options && c->params && c->n_inputs == n_in && c->n_outputs == n_out &&
            (n_in == 0 || c->inputs) && c->outputs;
  for (int i = 0; ok && i < n_in; i++)
    ok = c->inputs[i] != NULL;
  for (int i = 0; ok && i < n_out; i++)
    ok = c->outputs[i] != NULL;
  if (!ok)
    return ap_fail(c ? c->err : NULL, AP_ERR_FORMAT, "%s: expected %d input%s and %d output%s", op,
                   n_in, n_in == 1 ? "" : "s", n_out, n_out == 1 ? "" : "s");
  return AP_OK;
}

ap_status ap_sig_check(ap_kctx *c, const char *op, const char *what, const ap_ktensor *t, int type,
                       int rank, size_t *count) {
  size_t n;
  if (!ap_ktensor_count(t, &n) || n > INT32_MAX)
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: %s has an invalid shape", op, what);
  if (t->type != type)
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "%s: %s is %s, expected %s", op, what,
                   ap_ktype_name(t->type), ap_ktype_name(type));
  if (rank >= 0 ? t->rank != rank : t->rank < 1)
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: %s has rank %d, expected %s%d", op, what, t->rank,
                   rank >= 0 ? "" : "at least ", rank >= 0 ? rank : 1);
  if (count) *count = n;
  return AP_OK;
}

ap_status ap_sig_options(ap_kctx *c, const char *op, ap_flex *root) {
  const ap_kop_options *o = c->options;
  ap_errbuf e = {{0}};
  if (!o->custom_options || o->custom_options_size == 0)
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: the op has no options (a FlexBuffers map)", op);
  if (ap_flex_root(o->custom_options, o->custom_options_size, root, &e) != AP_OK)
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: options: %s", op, e.msg);
  if (root->type != AP_FLEX_MAP)
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: options are not a FlexBuffers map", op);
  return AP_OK;
}

ap_status ap_sig_opt_int(ap_kctx *c, const char *op, const ap_flex *root, const char *key,
                         int64_t lo, int64_t hi, int32_t *out) {
  ap_flex v;
  int64_t x;
  ap_errbuf e = {{0}};
  if (!ap_flex_map_find(root, key, &v))
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "%s: option \"%s\" is missing (or the options map is malformed)", op, key);
  if (ap_flex_as_int(&v, &x, &e) != AP_OK)
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: option \"%s\": %s", op, key, e.msg);
  if (x < lo || x > hi)
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "%s: option \"%s\" is %lld, expected %lld to %lld",
                   op, key, (long long)x, (long long)lo, (long long)hi);
  *out = (int32_t)x;
  return AP_OK;
}

ap_status ap_sig_opt_bool(ap_kctx *c, const char *op, const ap_flex *root, const char *key,
                          bool *out) {
  ap_flex v;
  ap_errbuf e = {{0}};
  if (!ap_flex_map_find(root, key, &v))
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "%s: option \"%s\" is missing (or the options map is malformed)", op, key);
  if (ap_flex_as_bool(&v, out, &e) != AP_OK)
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: option \"%s\": %s", op, key, e.msg);
  return AP_OK;
}

int ap_sig_bits32(uint32_t x) {
  return x ? 32 - __builtin_clz(x) : 0;
}

int ap_sig_bits64(uint64_t x) {
  return x ? 64 - __builtin_clzll(x) : 0;
}

/* floor(sqrt(x)), and x minus its square. */
static uint64_t floor_sqrt(uint64_t x, uint64_t *rest) {
  uint64_t r = 0;
  for (int b = 31; b >= 0; b--) {
    uint64_t t = r | (UINT64_C(1) << b);
    if (t * t <= x) r = t;
  }
  *rest = x - r * r;
  return r;
}

/* TFLite Micro's digit-by-digit root ends with floor(sqrt(x)) and its remainder, then rounds up
 * when the remainder exceeds the root (x > r^2 + r), unless r is the type's largest value. */
uint16_t ap_sig_sqrt32(uint32_t x) {
  uint64_t rest, r = floor_sqrt(x, &rest);
  if (rest > r && r != UINT16_MAX) r++;
  return (uint16_t)r;
}

uint32_t ap_sig_sqrt64(uint64_t x) {
  if (x >> 32 == 0) return ap_sig_sqrt32((uint32_t)x); /* its shortcut, and its off-by-one */
  uint64_t rest, r = floor_sqrt(x, &rest);
  if (rest > r && r != UINT32_MAX) r++;
  return (uint32_t)r;
}

const uint16_t ap_sig_log_table[130] = {
    0,    224,  442,  654,  861,  1063, 1259, 1450, 1636, 1817, 1992, 2163, 2329, 2490, 2646,
    2797, 2944, 3087, 3224, 3358, 3487, 3611, 3732, 3848, 3960, 4068, 4172, 4272, 4368, 4460,
    4549, 4633, 4714, 4791, 4864, 4934, 5001, 5063, 5123, 5178, 5231, 5280, 5326, 5368, 5408,
    5444, 5477, 5507, 5533, 5557, 5578, 5595, 5610, 5622, 5631, 5637, 5640, 5641, 5638, 5633,
    5626, 5615, 5602, 5586, 5568, 5547, 5524, 5498, 5470, 5439, 5406, 5370, 5332, 5291, 5249,
    5203, 5156, 5106, 5054, 5000, 4944, 4885, 4825, 4762, 4697, 4630, 4561, 4490, 4416, 4341,
    4264, 4184, 4103, 4020, 3935, 3848, 3759, 3668, 3575, 3481, 3384, 3286, 3186, 3084, 2981,
    2875, 2768, 2659, 2549, 2437, 2323, 2207, 2090, 1971, 1851, 1729, 1605, 1480, 1353, 1224,
    1094, 963,  830,  695,  559,  421,  282,  142,  0,    0};

/* log2(x) in 16.16 fixed point: the integer part from the top bit, the fraction f (the bits
 * below it, as 16 bits) plus the table's correction log2(1 + f) - f, interpolated linearly
 * between its 128 segments (the interpolation's product is signed and floors). Then times
 * ln 2 (45426 / 65536) and out_scale / 65536, rounding each product, in TFLite Micro's widths:
 * the last product wraps in 32 bits. */
uint32_t ap_sig_log32(uint32_t x, uint32_t out_scale) {
  int top = ap_sig_bits32(x) - 1;
  int32_t f = (int32_t)(x - (UINT32_C(1) << top));
  f = top < 16 ? f << (16 - top) : f >> (top - 16);
  int32_t seg = f >> 9;
  int32_t c0 = ap_sig_log_table[seg], c1 = ap_sig_log_table[seg + 1];
  int32_t step = ((c1 - c0) * (f - seg * 512)) >> 16;
  uint32_t log2 = ((uint32_t)top << 16) + (uint32_t)(f + c0 + step);
  uint32_t ln = (uint32_t)((UINT64_C(45426) * log2 + 32768) >> 16);
  return (out_scale * ln + 32768u) >> 16;
}
