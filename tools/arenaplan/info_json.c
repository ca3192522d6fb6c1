/* `arenaplan info --json`: the same facts as the text output, complete, for machines.
 * "schema_version" changes whenever a key changes meaning or goes away. */
#include "info.h"

#include <stdlib.h>

static void ivec(FILE *f, ap_ivec v) {
  fputc('[', f);
  for (size_t i = 0; i < v.n; i++)
    fprintf(f, "%s%d", i ? "," : "", (int)v.v[i]);
  fputc(']', f);
}

static void key(FILE *f, const char *k) {
  cli_json_string(f, k);
  fputc(':', f);
}

static void str_or_null(FILE *f, const char *s) {
  if (s)
    cli_json_string(f, s);
  else
    fputs("null", f);
}

static void tensor(FILE *f, const ap_model *m, size_t sg, size_t i) {
  ap_tensor_info t;
  if (ap_model_tensor(m, sg, i, &t) != AP_OK) {
    fputs("null", f);
    return;
  }
  fprintf(f, "{\"index\":%zu,\"name\":", i);
  cli_json_string(f, t.name);
  fprintf(f, ",\"type\":\"%s\",\"shape\":", ap_dtype_name(t.type));
  ivec(f, t.shape);
  fputs(",\"shape_signature\":", f);
  if (t.shape_signature.v)
    ivec(f, t.shape_signature);
  else
    fputs("null", f);
  fprintf(f,
          ",\"has_rank\":%s,\"buffer\":%u,\"is_variable\":%s,\"constant\":%s,\"kind\":\"%s\","
          "\"bytes\":%zu,\"quantization\":",
          t.has_rank ? "true" : "false", t.buffer, t.is_variable ? "true" : "false",
          t.is_constant ? "true" : "false", info_kind_names[info_tensor_kind(m, sg, i, &t)],
          t.bytes);
  if (!t.scale_count && !t.zero_point_count) {
    fputs("null}", f);
    return;
  }
  fputs("{\"scale\":[", f);
  /* %.9g round-trips a float32 exactly. */
  for (size_t k = 0; k < t.scale_count; k++)
    fprintf(f, "%s%.9g", k ? "," : "", t.scale[k]);
  fputs("],\"zero_point\":[", f);
  for (size_t k = 0; k < t.zero_point_count; k++)
    fprintf(f, "%s%lld", k ? "," : "", (long long)t.zero_point[k]);
  fprintf(f, "],\"quantized_dimension\":%d}}", (int)t.quantized_dimension);
}

static void op(FILE *f, const ap_model *m, size_t sg, size_t i) {
  ap_op_info o;
  char name[128];
  if (ap_model_op(m, sg, i, &o) != AP_OK) {
    fputs("null", f);
    return;
  }
  fprintf(f, "{\"index\":%zu,\"builtin\":\"%s\",\"builtin_code\":%d,\"name\":", i,
          ap_builtin_name(o.builtin), (int)o.builtin);
  cli_json_string(f, info_op_name(name, sizeof name, o.builtin, o.custom));
  fputs(",\"custom\":", f);
  str_or_null(f, o.custom);
  fprintf(f, ",\"opcode_index\":%u,\"version\":%d,\"inputs\":", o.opcode_index, (int)o.version);
  ivec(f, o.inputs);
  fputs(",\"outputs\":", f);
  ivec(f, o.outputs);
  fputs(",\"intermediates\":", f);
  ivec(f, o.intermediates);
  fprintf(f, ",\"options_type\":%u,\"custom_options_bytes\":%zu,\"options\":", o.options_type,
          o.custom_options_size);
  info_options_json(f, m, sg, i);
  fputc('}', f);
}

static bool hist(FILE *f, const ap_model *m, size_t sg) {
  size_t n;
  char name[128];
  info_hist *h = info_histogram(m, sg, &n);
  if (!h) return false;
  fputc('{', f);
  for (size_t i = 0; i < n; i++) {
    if (i) fputc(',', f);
    key(f, info_op_name(name, sizeof name, h[i].builtin, h[i].custom));
    fprintf(f, "%zu", h[i].count);
  }
  fputc('}', f);
  free(h);
  return true;
}

static void io(FILE *f, const ap_model *m, size_t sg, ap_ivec v) {
  fputc('[', f);
  for (size_t i = 0; i < v.n; i++) {
    if (i) fputc(',', f);
    tensor(f, m, sg, (size_t)v.v[i]); /* verified: in range */
  }
  fputc(']', f);
}

static void signatures(FILE *f, const ap_model *m) {
  fputc('[', f);
  for (size_t i = 0; i < ap_model_signature_count(m); i++) {
    ap_signature_info s;
    ap_tensor_map tm;
    if (ap_model_signature(m, i, &s) != AP_OK) continue;
    fputs(i ? ",{\"key\":" : "{\"key\":", f);
    cli_json_string(f, s.key);
    fprintf(f, ",\"subgraph\":%u", s.subgraph);
    for (int out = 0; out < 2; out++) {
      size_t n = out ? s.output_count : s.input_count;
      fprintf(f, ",\"%s\":[", out ? "outputs" : "inputs");
      for (size_t k = 0; k < n; k++) {
        ap_status st =
            out ? ap_model_signature_output(m, i, k, &tm) : ap_model_signature_input(m, i, k, &tm);
        if (st != AP_OK) continue;
        fputs(k ? ",{\"name\":" : "{\"name\":", f);
        cli_json_string(f, tm.name);
        fprintf(f, ",\"tensor\":%u}", tm.tensor);
      }
      fputc(']', f);
    }
    fputc('}', f);
  }
  fputc(']', f);
}

int info_json(const ap_model *m, bool tensors, bool ops) {
  FILE *f = stdout;
  size_t size, nw;
  ap_model_bytes(m, &size);
  uint64_t w = ap_model_weight_bytes(m, &nw);
  fputs("{\"schema_version\":1,\"file\":", f);
  cli_json_string(f, ap_model_path(m));
  fprintf(f, ",\"bytes\":%zu,\"version\":%u,\"description\":", size, ap_model_version(m));
  str_or_null(f, ap_model_description(m));
  fprintf(f, ",\"weights\":{\"bytes\":%llu,\"buffers\":%zu},\"buffer_count\":%zu,\"op_histogram\":",
          (unsigned long long)w, nw, ap_model_buffer_count(m));
  if (!hist(f, m, SIZE_MAX)) return cli_fail(ap_model_path(m), "out of memory");
  fputs(",\"opcodes\":[", f);
  for (size_t i = 0; i < ap_model_opcode_count(m); i++) {
    ap_opcode_info oc;
    if (ap_model_opcode(m, i, &oc) != AP_OK) continue;
    fprintf(f, "%s{\"index\":%zu,\"builtin\":\"%s\",\"builtin_code\":%d,\"custom\":", i ? "," : "",
            i, ap_builtin_name(oc.builtin), (int)oc.builtin);
    str_or_null(f, oc.custom);
    fprintf(f, ",\"version\":%d}", (int)oc.version);
  }
  fputs("],\"subgraphs\":[", f);
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++) {
    size_t k[KIND_COUNT];
    info_kinds(m, sg, k);
    fprintf(f, "%s{\"index\":%zu,\"name\":", sg ? "," : "", sg);
    cli_json_string(f, ap_model_subgraph_name(m, sg));
    fprintf(f, ",\"tensor_count\":%zu,\"op_count\":%zu,\"tensor_kinds\":{",
            ap_model_tensor_count(m, sg), ap_model_op_count(m, sg));
    for (int i = 0; i < KIND_COUNT; i++)
      fprintf(f, "%s\"%s\":%zu", i ? "," : "", info_kind_names[i], k[i]);
    fputs("},\"op_histogram\":", f);
    if (!hist(f, m, sg)) return cli_fail(ap_model_path(m), "out of memory");
    fputs(",\"inputs\":", f);
    io(f, m, sg, ap_model_subgraph_inputs(m, sg));
    fputs(",\"outputs\":", f);
    io(f, m, sg, ap_model_subgraph_outputs(m, sg));
    if (tensors) {
      fputs(",\"tensors\":[", f);
      for (size_t t = 0; t < ap_model_tensor_count(m, sg); t++) {
        if (t) fputc(',', f);
        tensor(f, m, sg, t);
      }
      fputc(']', f);
    }
    if (ops) {
      fputs(",\"operators\":[", f);
      for (size_t i = 0; i < ap_model_op_count(m, sg); i++) {
        if (i) fputc(',', f);
        op(f, m, sg, i);
      }
      fputc(']', f);
    }
    fputc('}', f);
  }
  fputs("],\"unsupported_ops\":[", f);
  size_t bad = 0;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    for (size_t i = 0; i < ap_model_op_count(m, sg); i++) {
      char why[256];
      if (ap_op_supported(m, sg, i, why, sizeof why) == AP_OK) continue;
      fprintf(f, "%s{\"subgraph\":%zu,\"op\":%zu,\"why\":", bad++ ? "," : "", sg, i);
      cli_json_string(f, why);
      fputc('}', f);
    }
  fputs("],\"signatures\":", f);
  signatures(f, m);
  fputs(",\"metadata\":[", f);
  for (size_t i = 0; i < ap_model_metadata_count(m); i++) {
    ap_metadata_info md;
    size_t bytes;
    if (ap_model_metadata(m, i, &md) != AP_OK) continue;
    ap_model_buffer(m, md.buffer, &bytes);
    fputs(i ? ",{\"name\":" : "{\"name\":", f);
    cli_json_string(f, md.name);
    fprintf(f, ",\"buffer\":%u,\"bytes\":%zu}", md.buffer, bytes);
  }
  fputs("]}\n", f);
  return AP_EXIT_OK;
}
