/* A served model's tensors, probed once when it is registered. */
#include "serve_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void serve_model_free(serve_model *m) {
  if (!m) return;
  free(m->name);
  free(m->inputs);
  free(m->outputs);
  free(m->names);
  free(m);
}

static ap_status take(ap_interpreter *it, bool input, v2_tensor_sig *sig, size_t n, char **cursor,
                      char *err, size_t err_size) {
  for (size_t i = 0; i < n; i++) {
    ap_tensor t;
    ap_status st = input ? ap_interpreter_input(it, i, &t) : ap_interpreter_output(it, i, &t);
    if (st != AP_OK) return st;
    if (!v2_datatype_name(t.type) || t.is_dynamic) {
      snprintf(err, err_size, "%s %zu ('%s'): %s %s cannot be served", input ? "input" : "output",
               i, t.name ? t.name : "", t.is_dynamic ? "dynamic" : "type",
               t.is_dynamic ? "shape" : ap_dtype_name(t.type));
      return AP_ERR_UNSUPPORTED;
    }
    const char *name = t.name && t.name[0] ? t.name : NULL;
    char fallback[32];
    if (!name) {
      snprintf(fallback, sizeof fallback, "%s%zu", input ? "input" : "output", i);
      name = fallback;
    }
    strcpy(*cursor, name);
    sig[i].name = *cursor;
    *cursor += strlen(name) + 1;
    sig[i].dtype = t.type;
    sig[i].rank = t.rank;
    memcpy(sig[i].dims, t.dims, sizeof sig[i].dims);
    sig[i].bytes = t.bytes;
  }
  return AP_OK;
}

static size_t names_bytes(ap_interpreter *it, bool input, size_t n) {
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    ap_tensor t;
    if ((input ? ap_interpreter_input(it, i, &t) : ap_interpreter_output(it, i, &t)) != AP_OK)
      continue;
    total += (t.name && t.name[0] ? strlen(t.name) : 31) + 1;
  }
  return total;
}

ap_status serve_model_probe(serve_model *m, const ap_serve_model_config *cfg, char *err,
                            size_t err_size) {
  ap_model *model = NULL;
  ap_status st = ap_model_open(cfg->path, NULL, &model);
  if (st != AP_OK) {
    snprintf(err, err_size, "%s", model ? ap_model_error(model) : "out of memory");
    ap_model_destroy(model);
    return st;
  }
  ap_interpreter_options o = ap_interpreter_defaults();
  o.strategy = cfg->strategy;
  o.inplace = cfg->inplace;
  o.stream = cfg->stream;
  o.prepare = cfg->prepare;
  if (cfg->kernels >= 0) o.kernels = cfg->kernels;
  ap_interpreter *it = NULL;
  st = ap_interpreter_create(model, &o, &it);
  if (st == AP_OK) st = ap_interpreter_allocate(it);
  if (st != AP_OK) {
    snprintf(err, err_size, "%s", it ? ap_interpreter_error(it) : "out of memory");
  } else {
    m->input_count = ap_interpreter_input_count(it);
    m->output_count = ap_interpreter_output_count(it);
    size_t nb = names_bytes(it, true, m->input_count) + names_bytes(it, false, m->output_count);
    m->inputs = calloc(m->input_count + 1, sizeof *m->inputs);
    m->outputs = calloc(m->output_count + 1, sizeof *m->outputs);
    m->names = malloc(nb + 1);
    char *cursor = m->names;
    if (!m->inputs || !m->outputs || !m->names) {
      snprintf(err, err_size, "out of memory");
      st = AP_ERR_NOMEM;
    } else if ((st = take(it, true, m->inputs, m->input_count, &cursor, err, err_size)) == AP_OK) {
      st = take(it, false, m->outputs, m->output_count, &cursor, err, err_size);
    }
  }
  ap_interpreter_destroy(it);
  ap_model_destroy(model);
  return st;
}
