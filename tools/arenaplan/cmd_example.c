/* arenaplan example: writes a small, realistic float32 model with the model writer, so the
 * demo and new users have a model to try without ../shared. Weights are pseudo-random from a
 * fixed seed: the same command always writes the same bytes. */
#include "commands.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* BuiltinOperator codes (tflite/schema.fbs). */
enum {
  OP_ADD = 0,
  OP_AVERAGE_POOL_2D = 1,
  OP_CONV_2D = 3,
  OP_DEPTHWISE_CONV_2D = 4,
  OP_FULLY_CONNECTED = 9,
  OP_RESHAPE = 22,
  OP_SOFTMAX = 25
};

typedef struct builder {
  ap_writer *w;
  ap_status status; /* the first failure; later calls do nothing */
  uint64_t rng;
  size_t tensors, ops, weight_bytes;
} builder;

static float next_uniform(builder *b) {
  /* xorshift64*: small, fixed, and the same on every platform. */
  uint64_t x = b->rng;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  b->rng = x;
  uint64_t r = x * 0x2545F4914F6CDD1Dull;
  return (float)((double)(r >> 40) / (double)(1ull << 24) * 2.0 - 1.0); /* [-1, 1) */
}

static int32_t tensor(builder *b, const char *name, int type, const int32_t *shape, size_t rank,
                      uint32_t buffer) {
  int32_t index = -1;
  if (b->status == AP_OK)
    b->status = ap_writer_add_tensor(b->w, 0,
                                     &(ap_writer_tensor){.name = name,
                                                         .type = type,
                                                         .shape = shape,
                                                         .rank = rank,
                                                         .buffer = buffer,
                                                         .has_rank = true},
                                     &index);
  if (b->status == AP_OK) b->tensors++;
  return index;
}

static int32_t activation(builder *b, const char *name, const int32_t *shape, size_t rank) {
  return tensor(b, name, AP_FLOAT32, shape, rank, 0);
}

/* A float32 constant of `count` values uniform in [-bound, bound). */
static int32_t constant(builder *b, const char *name, const int32_t *shape, size_t rank,
                        size_t count, float bound) {
  if (b->status != AP_OK) return -1;
  float *v = malloc(count * sizeof *v);
  if (!v) {
    b->status = AP_ERR_NOMEM;
    return -1;
  }
  for (size_t i = 0; i < count; i++)
    v[i] = next_uniform(b) * bound;
  uint32_t buf = 0;
  /* Buffers hold little-endian bytes; arenaplan supports little-endian hosts only. */
  b->status = ap_writer_add_buffer(b->w, v, count * sizeof *v, &buf);
  free(v);
  if (b->status == AP_OK) b->weight_bytes += count * sizeof(float);
  return tensor(b, name, AP_FLOAT32, shape, rank, buf);
}

/* He-style bound: keeps activations of a ReLU network in a sensible range. */
static float he_bound(int32_t fan_in) {
  return sqrtf(6.0f / (float)fan_in);
}

static void op(builder *b, uint32_t opcode, const int32_t *inputs, size_t n, int32_t output,
               const ap_options *options) {
  if (b->status == AP_OK)
    b->status = ap_writer_add_op(b->w, 0,
                                 &(ap_writer_op){.opcode = opcode,
                                                 .inputs = inputs,
                                                 .input_count = n,
                                                 .outputs = &output,
                                                 .output_count = 1,
                                                 .options = options},
                                 NULL);
  if (b->status == AP_OK) b->ops++;
}

static uint32_t opcode(builder *b, int32_t builtin) {
  uint32_t index = 0;
  if (b->status == AP_OK) b->status = ap_writer_add_opcode(b->w, builtin, 1, &index);
  return index;
}

/* An image classifier in miniature: a strided conv, a depthwise-separable block with a
 * residual ADD (the first conv's output stays live across the block, so lifetimes overlap),
 * global average pooling and a dense softmax head. Filters follow TFLite's layouts:
 * CONV_2D [out, kh, kw, in], DEPTHWISE_CONV_2D [1, kh, kw, out], FULLY_CONNECTED [out, in]. */
static void build_cnn(builder *b, int32_t *in, int32_t *out) {
  enum { H = 32, W = 32, C = 3, F = 8, CLASSES = 10 };
  uint32_t conv = opcode(b, OP_CONV_2D), dw = opcode(b, OP_DEPTHWISE_CONV_2D),
           add = opcode(b, OP_ADD), pool = opcode(b, OP_AVERAGE_POOL_2D),
           reshape = opcode(b, OP_RESHAPE), fc = opcode(b, OP_FULLY_CONNECTED),
           softmax = opcode(b, OP_SOFTMAX);

  *in = activation(b, "input", (const int32_t[]){1, H, W, C}, 4);
  const int32_t act_shape[] = {1, H / 2, W / 2, F};

  int32_t w1 = constant(b, "conv1/filter", (const int32_t[]){F, 3, 3, C}, 4, F * 3 * 3 * C,
                        he_bound(3 * 3 * C));
  int32_t b1 = constant(b, "conv1/bias", (const int32_t[]){F}, 1, F, 0.1f);
  int32_t conv1 = activation(b, "conv1", act_shape, 4);
  ap_options o = ap_options_conv2d(AP_PADDING_SAME, 2, 2, AP_ACT_RELU, 1, 1);
  op(b, conv, (const int32_t[]){*in, w1, b1}, 3, conv1, &o);

  int32_t w2 =
      constant(b, "dwconv/filter", (const int32_t[]){1, 3, 3, F}, 4, 3 * 3 * F, he_bound(3 * 3));
  int32_t b2 = constant(b, "dwconv/bias", (const int32_t[]){F}, 1, F, 0.1f);
  int32_t dwout = activation(b, "dwconv", act_shape, 4);
  o = ap_options_depthwise_conv2d(AP_PADDING_SAME, 1, 1, 1, AP_ACT_RELU6, 1, 1);
  op(b, dw, (const int32_t[]){conv1, w2, b2}, 3, dwout, &o);

  int32_t w3 = constant(b, "conv2/filter", (const int32_t[]){F, 1, 1, F}, 4, F * F, he_bound(F));
  int32_t b3 = constant(b, "conv2/bias", (const int32_t[]){F}, 1, F, 0.1f);
  int32_t conv2 = activation(b, "conv2", act_shape, 4);
  o = ap_options_conv2d(AP_PADDING_SAME, 1, 1, AP_ACT_NONE, 1, 1);
  op(b, conv, (const int32_t[]){dwout, w3, b3}, 3, conv2, &o);

  int32_t residual = activation(b, "residual", act_shape, 4);
  o = ap_options_add(AP_ACT_RELU);
  op(b, add, (const int32_t[]){conv1, conv2}, 2, residual, &o);

  int32_t pooled = activation(b, "pool", (const int32_t[]){1, 1, 1, F}, 4);
  o = ap_options_pool2d(AP_PADDING_VALID, W / 2, H / 2, W / 2, H / 2, AP_ACT_NONE);
  op(b, pool, (const int32_t[]){residual}, 1, pooled, &o);

  /* RESHAPE takes its new shape both as an int32 constant input and as options. */
  const int32_t flat_shape[] = {1, F};
  uint32_t shape_buf = 0;
  if (b->status == AP_OK)
    b->status = ap_writer_add_buffer(b->w, flat_shape, sizeof flat_shape, &shape_buf);
  int32_t shape_t = tensor(b, "flatten/shape", AP_INT32, (const int32_t[]){2}, 1, shape_buf);
  int32_t flat = activation(b, "flatten", flat_shape, 2);
  o = ap_options_reshape(flat_shape, 2);
  op(b, reshape, (const int32_t[]){pooled, shape_t}, 2, flat, &o);

  int32_t w4 =
      constant(b, "dense/weights", (const int32_t[]){CLASSES, F}, 2, CLASSES * F, he_bound(F));
  int32_t b4 = constant(b, "dense/bias", (const int32_t[]){CLASSES}, 1, CLASSES, 0.1f);
  int32_t logits = activation(b, "logits", (const int32_t[]){1, CLASSES}, 2);
  o = ap_options_fully_connected(AP_ACT_NONE, false);
  op(b, fc, (const int32_t[]){flat, w4, b4}, 3, logits, &o);

  *out = activation(b, "probabilities", (const int32_t[]){1, CLASSES}, 2);
  o = ap_options_softmax(1.0f);
  op(b, softmax, (const int32_t[]){logits}, 1, *out, &o);
}

/* A keyword-spotting-sized multilayer perceptron: FC layers only, a plain chain. */
static void build_mlp(builder *b, int32_t *in, int32_t *out) {
  enum { IN = 64, HIDDEN = 32, CLASSES = 10 };
  uint32_t fc = opcode(b, OP_FULLY_CONNECTED), softmax = opcode(b, OP_SOFTMAX);
  *in = activation(b, "input", (const int32_t[]){1, IN}, 2);
  const char *names[3][3] = {{"fc1/weights", "fc1/bias", "fc1"},
                             {"fc2/weights", "fc2/bias", "fc2"},
                             {"fc3/weights", "fc3/bias", "logits"}};
  const int32_t dims[4] = {IN, HIDDEN, HIDDEN, CLASSES};
  int32_t x = *in;
  for (int l = 0; l < 3; l++) {
    int32_t n_in = dims[l], n_out = dims[l + 1];
    int32_t wt = constant(b, names[l][0], (const int32_t[]){n_out, n_in}, 2,
                          (size_t)n_out * (size_t)n_in, he_bound(n_in));
    int32_t bias = constant(b, names[l][1], (const int32_t[]){n_out}, 1, (size_t)n_out, 0.1f);
    int32_t y = activation(b, names[l][2], (const int32_t[]){1, n_out}, 2);
    ap_options o = ap_options_fully_connected(l < 2 ? AP_ACT_RELU : AP_ACT_NONE, false);
    op(b, fc, (const int32_t[]){x, wt, bias}, 3, y, &o);
    x = y;
  }
  *out = activation(b, "probabilities", (const int32_t[]){1, CLASSES}, 2);
  ap_options o = ap_options_softmax(1.0f);
  op(b, softmax, (const int32_t[]){x}, 1, *out, &o);
}

typedef struct kind {
  const char *name;
  const char *description;
  void (*build)(builder *b, int32_t *in, int32_t *out);
} kind;

static const kind kinds[] = {
    {"cnn", "arenaplan example: a small float32 image classifier (32x32x3 -> 10 classes)",
     build_cnn},
    {"mlp", "arenaplan example: a small float32 multilayer perceptron (64 -> 10 classes)",
     build_mlp},
};

static int run(int argc, char **argv);

const ap_command cmd_example = {
    "example",
    "write a small float32 model to try arenaplan on",
    run,
    "usage: arenaplan example -o OUT.tflite [--kind cnn|mlp] [--seed N] [--json]\n"
    "\n"
    "Writes a small but realistic float32 TFLite model, built with arenaplan's model writer,\n"
    "so there is a model to try without any other tool. The weights are pseudo-random from\n"
    "the seed: the same command always writes the same bytes.\n"
    "\n"
    "  -o, --output OUT  the .tflite file to write\n"
    "  --kind cnn        (default) 1x32x32x3 input -> CONV_2D (ReLU, stride 2) ->\n"
    "                    DEPTHWISE_CONV_2D -> CONV_2D 1x1 -> ADD with the first conv's\n"
    "                    output (a residual branch) -> AVERAGE_POOL_2D -> RESHAPE ->\n"
    "                    FULLY_CONNECTED -> SOFTMAX over 10 classes\n"
    "  --kind mlp        1x64 input -> 3 FULLY_CONNECTED layers -> SOFTMAX over 10 classes\n"
    "  --seed N          the weights' seed (default 1)\n"
    "  --json            print what was written as JSON\n"
    "\n"
    "The model has one signature def, \"serving_default\" (input \"input\", output\n"
    "\"probabilities\"), a description, and a metadata entry \"arenaplan_example\".\n"
    "Exit status: 0 written, 2 bad usage or the file cannot be written.\n",
};

static int run(int argc, char **argv) {
  if (cli_wants_help(&cmd_example, argc, argv)) return AP_EXIT_OK;
  const char *path = NULL, *kind_name = "cnn";
  uint64_t seed = 1;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      if (!has_value) return cli_usage_error(&cmd_example, "%s needs a file name", a);
      path = argv[++i];
    } else if (strcmp(a, "--kind") == 0) {
      if (!has_value) return cli_usage_error(&cmd_example, "--kind needs a value (cnn, mlp)");
      kind_name = argv[++i];
    } else if (strcmp(a, "--seed") == 0) {
      if (!has_value || !cli_parse_uint(argv[i + 1], UINT64_MAX, &seed))
        return cli_usage_error(&cmd_example, "--seed needs a non-negative integer");
      i++;
    } else if (strcmp(a, "--json") == 0) {
      json = true;
    } else {
      return cli_usage_error(&cmd_example, "unexpected argument '%s'", a);
    }
  }
  if (!path) return cli_usage_error(&cmd_example, "no output file (-o OUT.tflite)");
  const kind *k = NULL;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(kinds[i].name, kind_name) == 0) k = &kinds[i];
  if (!k) return cli_usage_error(&cmd_example, "unknown kind '%s' (cnn, mlp)", kind_name);

  builder b = {.rng = seed ? seed : 0x9E3779B97F4A7C15ull};
  if (ap_writer_create(NULL, &b.w) != AP_OK) return cli_fail(path, "out of memory");
  int32_t in = -1, out = -1;
  k->build(&b, &in, &out);
  if (b.status == AP_OK) b.status = ap_writer_set_subgraph_io(b.w, 0, &in, 1, &out, 1);
  if (b.status == AP_OK) b.status = ap_writer_set_subgraph_name(b.w, 0, "main");
  if (b.status == AP_OK) b.status = ap_writer_set_description(b.w, k->description);
  if (b.status == AP_OK)
    b.status =
        ap_writer_add_signature(b.w, "serving_default", 0, &(ap_tensor_map){"input", (uint32_t)in},
                                1, &(ap_tensor_map){"probabilities", (uint32_t)out}, 1, NULL);
  char meta[64];
  snprintf(meta, sizeof meta, "kind=%s seed=%llu", k->name, (unsigned long long)seed);
  if (b.status == AP_OK)
    b.status = ap_writer_add_metadata_bytes(b.w, "arenaplan_example", meta, strlen(meta), NULL);
  const uint8_t *bytes = NULL;
  size_t size = 0;
  if (b.status == AP_OK) b.status = ap_writer_save(b.w, path);
  if (b.status == AP_OK) b.status = ap_writer_finish(b.w, &bytes, &size);
  if (b.status != AP_OK) {
    const char *msg = ap_writer_error(b.w);
    size_t n = strlen(path);
    /* Save's messages already start with the path; say it once. */
    if (strncmp(msg, path, n) == 0 && strncmp(msg + n, ": ", 2) == 0) msg += n + 2;
    int rc = *msg ? cli_fail(path, "%s", msg) : cli_fail(path, "%s", ap_status_name(b.status));
    ap_writer_destroy(b.w);
    return rc;
  }
  char sz[64], wsz[64];
  if (json) {
    printf("{\"path\": ");
    cli_json_string(stdout, path);
    printf(", \"kind\": \"%s\", \"seed\": %llu, \"bytes\": %zu, \"weight_bytes\": %zu, "
           "\"tensors\": %zu, \"ops\": %zu}\n",
           k->name, (unsigned long long)seed, size, b.weight_bytes, b.tensors, b.ops);
  } else {
    /* "float weights": `info` also counts the int32 RESHAPE shape as constant data. */
    printf("wrote %s: %s example, %zu ops, %zu tensors, %s, of which %s B float weights\n", path,
           k->name, b.ops, b.tensors, cli_size(sz, sizeof sz, size),
           cli_thousands(wsz, sizeof wsz, b.weight_bytes));
  }
  ap_writer_destroy(b.w);
  return AP_EXIT_OK;
}
