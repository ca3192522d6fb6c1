/* arenaplan info MODEL: what a model holds — subgraphs, ops, tensors, weights, inputs and
 * outputs, signatures, metadata. */
#include "info.h"

#include <stdlib.h>
#include <string.h>

const char *const info_kind_names[KIND_COUNT] = {"constant", "variable", "input", "output",
                                                 "intermediate"};

static bool in_ivec(ap_ivec v, size_t t) {
  for (size_t i = 0; i < v.n; i++)
    if (v.v[i] >= 0 && (size_t)v.v[i] == t) return true;
  return false;
}

int info_tensor_kind(const ap_model *m, size_t sg, size_t t, const ap_tensor_info *ti) {
  /* A variable with initial data is state, not a weight. */
  if (ti->is_variable) return KIND_VARIABLE;
  if (ti->is_constant) return KIND_CONSTANT;
  if (in_ivec(ap_model_subgraph_inputs(m, sg), t)) return KIND_INPUT;
  if (in_ivec(ap_model_subgraph_outputs(m, sg), t)) return KIND_OUTPUT;
  return KIND_INTERMEDIATE;
}

void info_kinds(const ap_model *m, size_t sg, size_t counts[KIND_COUNT]) {
  memset(counts, 0, KIND_COUNT * sizeof counts[0]);
  ap_tensor_info ti;
  for (size_t t = 0; t < ap_model_tensor_count(m, sg); t++)
    if (ap_model_tensor(m, sg, t, &ti) == AP_OK) counts[info_tensor_kind(m, sg, t, &ti)]++;
}

const char *info_op_name(char *buf, size_t size, int32_t builtin, const char *custom) {
  if (builtin == AP_BUILTIN_CUSTOM)
    snprintf(buf, size, "CUSTOM(%s)", custom ? custom : "");
  else
    snprintf(buf, size, "%s", ap_builtin_name(builtin));
  return buf;
}

static int cmp_hist(const void *pa, const void *pb) {
  const info_hist *a = pa, *b = pb;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  char na[128], nb[128];
  return strcmp(info_op_name(na, sizeof na, a->builtin, a->custom),
                info_op_name(nb, sizeof nb, b->builtin, b->custom));
}

info_hist *info_histogram(const ap_model *m, size_t sg, size_t *n) {
  size_t cap = 16, len = 0;
  info_hist *h = malloc(cap * sizeof *h);
  for (size_t g = 0; h && g < ap_model_subgraph_count(m); g++) {
    if (sg != SIZE_MAX && g != sg) continue;
    ap_op_info op;
    for (size_t i = 0; i < ap_model_op_count(m, g); i++) {
      if (ap_model_op(m, g, i, &op) != AP_OK) continue;
      size_t k = 0;
      while (k < len && !(h[k].builtin == op.builtin && (op.builtin != AP_BUILTIN_CUSTOM ||
                                                         strcmp(h[k].custom ? h[k].custom : "",
                                                                op.custom ? op.custom : "") == 0)))
        k++;
      if (k == len) {
        if (len == cap) {
          info_hist *nh = realloc(h, 2 * cap * sizeof *h);
          if (!nh) {
            free(h);
            return NULL;
          }
          h = nh;
          cap *= 2;
        }
        h[len++] = (info_hist){op.builtin, op.custom, 0};
      }
      h[k].count++;
    }
  }
  if (h) qsort(h, len, sizeof *h, cmp_hist);
  *n = len;
  return h;
}

/* "[1,49,10,1]", where the dims shape_signature marks dynamic show as -1: "[-1,49,10,1]".
 * A "?" after it: the rank is unknown. */
static const char *shape_str(char *buf, size_t size, const ap_tensor_info *t) {
  size_t o = 0;
  ap_ivec s = t->shape;
  bool dyn = t->shape_signature.v && t->shape_signature.n == s.n;
  o += (size_t)snprintf(buf + o, size - o, "[");
  for (size_t k = 0; k < s.n && o < size; k++)
    o += (size_t)snprintf(buf + o, size - o, "%s%d", k ? "," : "",
                          dyn && t->shape_signature.v[k] == -1 ? -1 : (int)s.v[k]);
  if (o < size) o += (size_t)snprintf(buf + o, size - o, "]");
  if (!t->has_rank && o < size) snprintf(buf + o, size - o, "?");
  return buf;
}

static const char *quant_str(char *buf, size_t size, const ap_tensor_info *t) {
  if (t->scale_count == 0 && t->zero_point_count == 0) return "-";
  if (t->scale_count == 1)
    snprintf(buf, size, "scale %.6g zp %lld", t->scale[0],
             t->zero_point_count ? (long long)t->zero_point[0] : 0LL);
  else
    snprintf(buf, size, "%zu scales on dim %d", t->scale_count, (int)t->quantized_dimension);
  return buf;
}

static void print_tensor_line(const ap_model *m, size_t sg, int32_t index, bool full) {
  ap_tensor_info t;
  char shape[256], q[64];
  if (index < 0 || ap_model_tensor(m, sg, (size_t)index, &t) != AP_OK) {
    printf("  %5d  (none)\n", (int)index);
    return;
  }
  shape_str(shape, sizeof shape, &t);
  if (full)
    printf("  %5d %-8s %-18s %6u %c %-26s %.28s\n", (int)index, ap_dtype_name(t.type), shape,
           t.buffer, t.is_variable ? 'v' : '-', quant_str(q, sizeof q, &t), t.name);
  else
    printf("  %5d %-8s %-18s %-26s %.37s\n", (int)index, ap_dtype_name(t.type), shape,
           quant_str(q, sizeof q, &t), t.name);
}

static void print_io_header(void) {
  printf("  %5s %-8s %-18s %-26s %s\n", "#", "type", "shape", "quantization", "name");
}

static size_t put_ivec(char *buf, size_t size, size_t o, ap_ivec v) {
  o += (size_t)snprintf(buf + o, o < size ? size - o : 0, "[");
  for (size_t i = 0; i < v.n; i++)
    o += (size_t)snprintf(buf + o, o < size ? size - o : 0, "%s%d", i ? "," : "", (int)v.v[i]);
  return o + (size_t)snprintf(buf + o, o < size ? size - o : 0, "]");
}

/* Prints `text` from column `col`, breaking after commas so no line passes 100 columns;
 * continuation lines start at column `col` too. */
static void print_wrapped(const char *text, size_t col) {
  const size_t width = 100 - col;
  while (strlen(text) > width) {
    size_t cut = width;
    while (cut > 0 && text[cut - 1] != ',' && text[cut - 1] != ' ')
      cut--;
    if (cut == 0) cut = width;
    printf("%.*s\n%*s", (int)cut, text, (int)col, "");
    text += cut;
  }
  printf("%s\n", text);
}

static void print_ops(const ap_model *m, size_t sg) {
  printf("  %5s %-28s %3s  %s\n", "op", "builtin", "ver", "inputs -> outputs (intermediates)");
  size_t cap = 1 << 16;
  char *io = malloc(cap);
  for (size_t i = 0; io && i < ap_model_op_count(m, sg); i++) {
    ap_op_info op;
    char name[128];
    if (ap_model_op(m, sg, i, &op) != AP_OK) continue;
    /* Up to 12 characters per index: grow for ops with very many inputs. */
    size_t need = 12 * (op.inputs.n + op.outputs.n + op.intermediates.n) + 16;
    if (need > cap) {
      char *bigger = realloc(io, need);
      if (!bigger) break;
      io = bigger;
      cap = need;
    }
    size_t o = put_ivec(io, cap, 0, op.inputs);
    o += (size_t)snprintf(io + o, cap - o, " -> ");
    o = put_ivec(io, cap, o, op.outputs);
    if (op.intermediates.n) {
      o += (size_t)snprintf(io + o, cap - o, " (");
      o = put_ivec(io, cap, o, op.intermediates);
      snprintf(io + o, cap - o, ")");
    }
    printf("  %5zu %-28.28s %3d  ", i, info_op_name(name, sizeof name, op.builtin, op.custom),
           (int)op.version);
    print_wrapped(io, 42);
  }
  free(io);
}

static void print_hist(info_hist *h, size_t n) {
  char name[128];
  for (size_t i = 0; i < n; i++)
    printf("  %-34s %6zu\n", info_op_name(name, sizeof name, h[i].builtin, h[i].custom),
           h[i].count);
}

/* The ops this build cannot run, before anyone calls `run`. */
static void print_unsupported(const ap_model *m) {
  size_t bad = 0, total = 0;
  char why[256], name[128];
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    for (size_t i = 0; i < ap_model_op_count(m, sg); i++, total++) {
      if (ap_op_supported(m, sg, i, why, sizeof why) == AP_OK) continue;
      ap_op_info op;
      if (!bad++) printf("cannot run here (see arenaplan ops):\n");
      if (ap_model_op(m, sg, i, &op) == AP_OK)
        printf("  subgraph %zu op %-5zu %-28.28s %s\n", sg, i,
               info_op_name(name, sizeof name, op.builtin, op.custom), why);
    }
  if (!bad) printf("runtime: this build has a kernel for all %zu ops\n", total);
}

static int human(const ap_model *m, bool tensors, bool ops) {
  char s1[64], s2[64];
  size_t size, nsg = ap_model_subgraph_count(m);
  ap_model_bytes(m, &size);
  printf("%s: TFLite schema version %u, %s\n", ap_model_path(m), ap_model_version(m),
         cli_size(s1, sizeof s1, size));
  const char *desc = ap_model_description(m);
  if (desc) printf("description: %.80s\n", desc);
  size_t nw;
  uint64_t w = ap_model_weight_bytes(m, &nw);
  printf("weights: %s in %zu buffers (model has %zu buffers, %zu operator codes)\n",
         cli_size(s2, sizeof s2, w), nw, ap_model_buffer_count(m), ap_model_opcode_count(m));
  printf("\nsubgraphs: %zu\n", nsg);
  printf("  %3s %-24s %7s %6s %6s %6s %6s %6s %6s\n", "#", "name", "tensors", "ops", "const", "var",
         "in", "out", "inter");
  for (size_t sg = 0; sg < nsg; sg++) {
    size_t k[KIND_COUNT];
    info_kinds(m, sg, k);
    printf("  %3zu %-24.24s %7zu %6zu %6zu %6zu %6zu %6zu %6zu\n", sg,
           ap_model_subgraph_name(m, sg), ap_model_tensor_count(m, sg), ap_model_op_count(m, sg),
           k[KIND_CONSTANT], k[KIND_VARIABLE], k[KIND_INPUT], k[KIND_OUTPUT], k[KIND_INTERMEDIATE]);
  }
  size_t nh;
  info_hist *h = info_histogram(m, SIZE_MAX, &nh);
  if (!h) return cli_fail(ap_model_path(m), "out of memory");
  printf("\nops: %zu kinds\n", nh);
  print_hist(h, nh);
  free(h);
  print_unsupported(m);
  for (size_t sg = 0; sg < nsg; sg++) {
    ap_ivec in = ap_model_subgraph_inputs(m, sg), out = ap_model_subgraph_outputs(m, sg);
    printf("\nsubgraph %zu inputs%s\n", sg, in.n ? ":" : ": none");
    if (in.n) print_io_header();
    for (size_t i = 0; i < in.n; i++)
      print_tensor_line(m, sg, in.v[i], false);
    printf("subgraph %zu outputs%s\n", sg, out.n ? ":" : ": none");
    if (out.n) print_io_header();
    for (size_t i = 0; i < out.n; i++)
      print_tensor_line(m, sg, out.v[i], false);
  }
  if (ap_model_signature_count(m)) printf("\nsignatures:\n");
  for (size_t i = 0; i < ap_model_signature_count(m); i++) {
    ap_signature_info sig;
    ap_tensor_map tm;
    if (ap_model_signature(m, i, &sig) != AP_OK) continue;
    printf("  %-24.24s subgraph %u, %zu inputs, %zu outputs\n", sig.key, sig.subgraph,
           sig.input_count, sig.output_count);
    for (size_t k = 0; k < sig.input_count; k++)
      if (ap_model_signature_input(m, i, k, &tm) == AP_OK)
        printf("    in  %-32.32s tensor %u\n", tm.name, tm.tensor);
    for (size_t k = 0; k < sig.output_count; k++)
      if (ap_model_signature_output(m, i, k, &tm) == AP_OK)
        printf("    out %-32.32s tensor %u\n", tm.name, tm.tensor);
  }
  if (ap_model_metadata_count(m)) printf("\nmetadata:\n");
  for (size_t i = 0; i < ap_model_metadata_count(m); i++) {
    ap_metadata_info md;
    size_t bytes;
    if (ap_model_metadata(m, i, &md) != AP_OK) continue;
    ap_model_buffer(m, md.buffer, &bytes);
    printf("  %-40.40s buffer %u, %s\n", md.name, md.buffer, cli_size(s1, sizeof s1, bytes));
  }
  for (size_t sg = 0; tensors && sg < nsg; sg++) {
    printf("\nsubgraph %zu tensors:\n  %5s %-8s %-18s %6s %c %-26s %s\n", sg, "#", "type", "shape",
           "buffer", 'v', "quantization", "name");
    for (size_t t = 0; t < ap_model_tensor_count(m, sg); t++)
      print_tensor_line(m, sg, (int32_t)t, true);
  }
  for (size_t sg = 0; ops && sg < nsg; sg++) {
    printf("\nsubgraph %zu operators:\n", sg);
    print_ops(m, sg);
  }
  return AP_EXIT_OK;
}

static int run(int argc, char **argv);

const ap_command cmd_info = {
    "info", "what a model holds: subgraphs, ops, tensors, weights, inputs, outputs", run,
    "usage: arenaplan info MODEL [--json] [--tensors] [--ops]\n"
    "\n"
    "Prints what a .tflite model holds: its subgraphs, the op histogram, tensor counts by\n"
    "kind (each tensor counted once, the first of: variable, constant, graph input, graph\n"
    "output, intermediate), the weight bytes (distinct buffers tensors use as constants),\n"
    "every graph input and output (type, shape with -1 for the dynamic dims of\n"
    "shape_signature, quantization), signature defs, metadata and the description.\n"
    "\n"
    "  --json     machine-readable output (\"schema_version\": 1)\n"
    "  --tensors  also every tensor: type, shape, shape_signature, buffer, is_variable,\n"
    "             quantization\n"
    "  --ops      also every operator: builtin, opcode version, inputs, outputs,\n"
    "             intermediates\n"
    "\n"
    "Exit status: 0, or 2 with one line 'arenaplan: FILE: what is wrong' for a file that is\n"
    "missing, empty, not a TFLite model, truncated or corrupt.\n"};

static int run(int argc, char **argv) {
  if (cli_wants_help(&cmd_info, argc, argv)) return AP_EXIT_OK;
  bool json = false, tensors = false, ops = false, dashdash = false;
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (!dashdash && strcmp(argv[i], "--") == 0)
      dashdash = true;
    else if (!dashdash && strcmp(argv[i], "--json") == 0)
      json = true;
    else if (!dashdash && strcmp(argv[i], "--tensors") == 0)
      tensors = true;
    else if (!dashdash && strcmp(argv[i], "--ops") == 0)
      ops = true;
    else if (!dashdash && argv[i][0] == '-' && argv[i][1])
      return cli_usage_error(&cmd_info, "unknown option '%s'", argv[i]);
    else if (path)
      return cli_usage_error(&cmd_info, "one MODEL only ('%s' and '%s')", path, argv[i]);
    else
      path = argv[i];
  }
  if (!path) return cli_usage_error(&cmd_info, "missing MODEL");
  ap_model *m = NULL;
  if (ap_model_open(path, NULL, &m) != AP_OK) {
    /* The library's message already starts with the file name. */
    fprintf(stderr, "arenaplan: %s\n", ap_model_error(m));
    ap_model_destroy(m);
    return AP_EXIT_USAGE;
  }
  int rc = json ? info_json(m, tensors, ops) : human(m, tensors, ops);
  ap_model_destroy(m);
  return rc;
}
