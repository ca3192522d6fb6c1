/* `--what-if int8`: re-typing a model's float32 tensors and planning the result (whatif.h). */
#include "whatif.h"

#include <stdlib.h>
#include <string.h>

/* ROLE_FIXED: float32 by definition, whatever the model's precision: the outputs of
 * TFLite_Detection_PostProcess, a QUANTIZE's float input, a DEQUANTIZE's float output of a
 * quantized activation. */
enum { ROLE_NONE, ROLE_WEIGHT, ROLE_BIAS, ROLE_CELL, ROLE_FIXED };

/* Builtin codes (schema.fbs) of the ops whose inputs have roles. */
enum {
  OP_CONV_2D = 3,
  OP_DEQUANTIZE = 6,
  OP_QUANTIZE = 114,
  OP_DEPTHWISE_CONV_2D = 4,
  OP_FULLY_CONNECTED = 9,
  OP_LSTM = 16,
  OP_UNIDIRECTIONAL_SEQUENCE_LSTM = 44,
  OP_TRANSPOSE_CONV = 67
};

static int role_of_input(int32_t builtin, size_t k) {
  switch (builtin) {
  case OP_CONV_2D:
  case OP_DEPTHWISE_CONV_2D:
  case OP_FULLY_CONNECTED: return k == 2 ? ROLE_BIAS : ROLE_NONE;
  case OP_TRANSPOSE_CONV: return k == 3 ? ROLE_BIAS : ROLE_NONE;
  case OP_LSTM:
  case OP_UNIDIRECTIONAL_SEQUENCE_LSTM:
    return k >= 12 && k <= 15 ? ROLE_BIAS : k == 19 ? ROLE_CELL : ROLE_NONE;
  default: return ROLE_NONE;
  }
}

static uint64_t round16(uint64_t v) {
  return (v + 15) / 16 * 16;
}

typedef struct retype {
  size_t total;                      /* tensors in all subgraphs */
  size_t *base;                      /* first model-wide id of each subgraph */
  uint8_t *role;                     /* per model-wide id */
  uint64_t *bytes;                   /* re-typed bytes, io int8 */
  uint64_t in_f, in_q, out_f, out_q; /* subgraph 0's io: float bytes and int8 bytes */
} retype;

static void retype_free(retype *r) {
  free(r->base);
  free(r->role);
  free(r->bytes);
}

static bool has(ap_ivec v, size_t t) {
  for (size_t i = 0; i < v.n; i++)
    if (v.v[i] == (int32_t)t) return true;
  return false;
}

static ap_status build(const ap_model *m, retype *r, whatif *w, char *err, size_t n) {
  size_t sgs = ap_model_subgraph_count(m);
  r->base = calloc(sgs + 1, sizeof *r->base);
  if (!r->base) return AP_ERR_NOMEM;
  for (size_t sg = 0; sg < sgs; sg++) {
    size_t c = ap_model_tensor_count(m, sg);
    if (r->base[sg] > SIZE_MAX - c) {
      snprintf(err, n, "too many tensors");
      return AP_ERR_OVERFLOW;
    }
    r->base[sg + 1] = r->base[sg] + c;
  }
  r->total = r->base[sgs];
  r->role = calloc(r->total ? r->total : 1, 1);
  r->bytes = calloc(r->total ? r->total : 1, sizeof *r->bytes);
  if (!r->role || !r->bytes) return AP_ERR_NOMEM;
  for (size_t sg = 0; sg < sgs; sg++)
    for (size_t op = 0; op < ap_model_op_count(m, sg); op++) {
      ap_op_info oi;
      if (ap_model_op(m, sg, op, &oi) != AP_OK) continue;
      size_t nt = r->base[sg + 1] - r->base[sg];
      for (size_t k = 0; k < oi.inputs.n; k++) {
        int32_t t = oi.inputs.v[k];
        int role = oi.builtin == OP_QUANTIZE ? ROLE_FIXED : role_of_input(oi.builtin, k);
        if (t >= 0 && (size_t)t < nt && role != ROLE_NONE)
          r->role[r->base[sg] + (size_t)t] = (uint8_t)role;
      }
      ap_tensor_info src;
      bool fixed_out =
          (oi.custom && strcmp(oi.custom, "TFLite_Detection_PostProcess") == 0) ||
          (oi.builtin == OP_DEQUANTIZE && oi.inputs.n > 0 && oi.inputs.v[0] >= 0 &&
           ap_model_tensor(m, sg, (size_t)oi.inputs.v[0], &src) == AP_OK && !src.is_constant);
      for (size_t k = 0; fixed_out && k < oi.outputs.n; k++)
        if (oi.outputs.v[k] >= 0 && (size_t)oi.outputs.v[k] < nt)
          r->role[r->base[sg] + (size_t)oi.outputs.v[k]] = ROLE_FIXED;
    }
  size_t floats = 0;
  ap_ivec in = ap_model_subgraph_inputs(m, 0), out = ap_model_subgraph_outputs(m, 0);
  for (size_t sg = 0; sg < sgs; sg++)
    for (size_t t = 0; t < r->base[sg + 1] - r->base[sg]; t++) {
      ap_tensor_info ti;
      size_t id = r->base[sg] + t;
      if (ap_model_tensor(m, sg, t, &ti) != AP_OK) continue;
      r->bytes[id] = ti.bytes;
      /* 0 bytes: an LSTM's intermediates, no real numbers either. */
      if (ti.type != AP_FLOAT32 || ti.bytes == 0 || r->role[id] == ROLE_FIXED) continue;
      floats++;
      uint64_t elems = ti.bytes / 4, after = elems;
      if (ti.is_constant && !ti.is_variable) {
        bool bias = r->role[id] == ROLE_BIAS;
        after = bias ? elems * 4 : elems;
        if (bias)
          w->biases++;
        else
          w->weights++;
      } else if (ti.is_variable) {
        after = r->role[id] == ROLE_CELL ? elems * 2 : elems;
        w->variables++;
      } else {
        w->activations++;
      }
      r->bytes[id] = after;
      if (sg == 0 && has(in, t)) {
        r->in_f += round16(ti.bytes);
        r->in_q += round16(after);
      }
      if (sg == 0 && has(out, t) && !has(in, t)) {
        r->out_f += round16(ti.bytes);
        r->out_q += round16(after);
      }
    }
  if (!floats) {
    snprintf(err, n, "no float32 tensors to re-type: the model is already %s",
             "quantized (or holds no real numbers)");
    return AP_ERR_UNSUPPORTED;
  }
  return AP_OK;
}

/* Constant data, each buffer once (tensors may share one), before and after re-typing. */
static void weights(const ap_model *m, const retype *r, whatif *w) {
  size_t nb = ap_model_buffer_count(m);
  uint8_t *seen = calloc(nb ? nb : 1, 1);
  if (!seen) return;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    for (size_t t = 0; t < r->base[sg + 1] - r->base[sg]; t++) {
      ap_tensor_info ti;
      if (ap_model_tensor(m, sg, t, &ti) != AP_OK || !ti.is_constant || ti.is_variable ||
          ti.buffer >= nb || seen[ti.buffer])
        continue;
      seen[ti.buffer] = 1;
      size_t sz = 0;
      ap_model_buffer(m, ti.buffer, &sz);
      w->weights_before += sz;
      w->weights_after += ti.type == AP_FLOAT32 ? r->bytes[r->base[sg] + t] : sz;
    }
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    for (size_t t = 0; t < r->base[sg + 1] - r->base[sg]; t++) {
      ap_tensor_info ti;
      if (ap_model_tensor(m, sg, t, &ti) != AP_OK || !ti.is_variable) continue;
      w->persistent_before += round16(ti.bytes);
      w->persistent_after += round16(r->bytes[r->base[sg] + t]);
    }
  free(seen);
}

static ap_status plan(const ap_model *m, const ap_model_plan_options *base, const uint64_t *bytes,
                      size_t n, uint64_t *arena, uint64_t *lb, char *err, size_t err_size) {
  ap_model_plan_options o = base ? *base : ap_model_plan_defaults();
  o.tensor_bytes = bytes;
  o.tensor_bytes_count = bytes ? n : 0;
  ap_model_plan *mp = NULL;
  ap_status s = ap_model_plan_create(m, &o, NULL, &mp);
  if (s == AP_OK) {
    *arena = ap_model_plan_arena(mp);
    if (lb) *lb = ap_model_plan_lower_bound(mp);
  } else {
    snprintf(err, err_size, "%s", mp ? ap_model_plan_error(mp) : "out of memory");
  }
  ap_model_plan_destroy(mp);
  return s;
}

ap_status whatif_int8(const ap_model *m, const ap_model_plan_options *base, whatif *w, char *err,
                      size_t err_size) {
  memset(w, 0, sizeof *w);
  retype r = {0};
  ap_status s = build(m, &r, w, err, err_size);
  if (s == AP_ERR_NOMEM) snprintf(err, err_size, "out of memory");
  if (s == AP_OK) s = plan(m, base, NULL, 0, &w->arena_before, NULL, err, err_size);
  if (s == AP_OK)
    s = plan(m, base, r.bytes, r.total, &w->io_int8.arena, &w->io_int8.lower_bound, err, err_size);
  if (s == AP_OK) {
    weights(m, &r, w);
    uint64_t in_peak = r.in_f + r.in_q, out_peak = r.out_f + r.out_q;
    w->io_float = w->io_int8;
    w->io_float.io_peak = in_peak > out_peak ? in_peak : out_peak;
    if (w->io_float.io_peak > w->io_float.arena) w->io_float.arena = w->io_float.io_peak;
    if (w->io_float.io_peak > w->io_float.lower_bound)
      w->io_float.lower_bound = w->io_float.io_peak;
  }
  retype_free(&r);
  return s;
}

bool whatif_parse(const ap_command *cmd, const char *v) {
  if (strcmp(v, "int8") == 0) return true;
  cli_usage_error(cmd, "--what-if \"%s\": the one what-if is int8", v);
  return false;
}

static void row(const char *what, uint64_t before, uint64_t a, uint64_t b) {
  char x[64], y[64], z[64];
  printf("  %-12s %-22s %-24s %s\n", what, before ? cli_size(x, sizeof x, before) : "-",
         cli_size(y, sizeof y, a), cli_size(z, sizeof z, b));
}

void whatif_print(const whatif *w, uint64_t device_extra) {
  printf("\nwhat if int8: %zu float32 activations -> int8, %zu weights -> int8 (per channel for "
         "conv-like ops), %zu biases -> int32",
         w->activations, w->weights, w->biases);
  if (w->variables) printf(", %zu variables -> int8 (LSTM cell state int16)", w->variables);
  printf("\n  %-12s %-22s %-24s %s\n", "", "now (float32)", "int8, inputs/outputs int8",
         "int8, inputs/outputs kept float");
  row("arena", w->arena_before, w->io_int8.arena, w->io_float.arena);
  row("lower bound", 0, w->io_int8.lower_bound, w->io_float.lower_bound);
  row("weights", w->weights_before, w->weights_after, w->weights_after);
  if (device_extra) {
    uint64_t a = w->io_int8.arena + w->persistent_after + device_extra;
    uint64_t b = w->io_float.arena + w->persistent_after + device_extra;
    row("device", 0, a, b);
    row("total", 0, a + w->weights_after, b + w->weights_after);
  }
  if (w->io_float.io_peak)
    printf("  kept float: QUANTIZE/DEQUANTIZE steps hold a float tensor and its int8 copy: %llu B"
           "\n",
           (unsigned long long)w->io_float.io_peak);
  printf("  (arenas planned without kernel scratch: the re-typed sizes, the same lifetimes; int8 "
         "kernels' scratch is not known before converting)\n");
}

static void json_variant(const char *name, const whatif_variant *v, const whatif *w,
                         uint64_t device_extra) {
  printf("{\"io\": \"%s\", \"arena_bytes\": %llu, \"lower_bound_bytes\": %llu, "
         "\"io_steps_bytes\": %llu, \"weights_bytes\": %llu, \"persistent_bytes\": %llu",
         name, (unsigned long long)v->arena, (unsigned long long)v->lower_bound,
         (unsigned long long)v->io_peak, (unsigned long long)w->weights_after,
         (unsigned long long)w->persistent_after);
  if (device_extra) {
    uint64_t d = v->arena + w->persistent_after + device_extra;
    printf(", \"device_bytes\": %llu, \"total_bytes\": %llu", (unsigned long long)d,
           (unsigned long long)(d + w->weights_after));
  }
  printf("}");
}

void whatif_json(const whatif *w, uint64_t device_extra, const char *indent) {
  printf("{\n%s  \"retyped\": {\"activations\": %zu, \"weights\": %zu, \"biases\": %zu, "
         "\"variables\": %zu},\n",
         indent, w->activations, w->weights, w->biases, w->variables);
  printf("%s  \"arena_bytes_now\": %llu,\n%s  \"weights_bytes_now\": %llu,\n", indent,
         (unsigned long long)w->arena_before, indent, (unsigned long long)w->weights_before);
  printf("%s  \"io_int8\": ", indent);
  json_variant("int8", &w->io_int8, w, device_extra);
  printf(",\n%s  \"io_float\": ", indent);
  json_variant("float", &w->io_float, w, device_extra);
  printf("\n%s}", indent);
}
