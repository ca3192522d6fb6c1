/* arenaplan tflm MODEL: the kTensorArenaSize TFLite Micro needs for the model, from the file
 * alone: the smallest arena that allocates, arena_used_bytes, head and tail by category, and
 * beside it what arenaplan's runtime and an embedded arenaplan plan would need. */
#include "commands.h"

#include <string.h>

static int run(int argc, char **argv);

const ap_command cmd_tflm = {
    "tflm", "MODEL: the kTensorArenaSize TFLite Micro needs (head, tail, peaks)", run,
    "usage: arenaplan tflm MODEL [--target host64|mcu32] [--recording] [--items] [--json]\n"
    "\n"
    "What TensorFlow Lite Micro (tflite-micro 90b983c2, reference kernels) needs for the\n"
    "model in `MicroInterpreter(model, resolver, arena, size)`, computed from the file alone:\n"
    "the smallest kTensorArenaSize (a multiple of 16, for a 16-byte-aligned buffer:\n"
    "alignas(16) uint8_t tensor_arena[...]) for which AllocateTensors() succeeds,\n"
    "a recommendation with margin, arena_used_bytes = head (its GreedyMemoryPlanner over\n"
    "activations and kernel scratch buffers) + tail (persistent allocations by\n"
    "RecordingMicroAllocator category), and the transient peaks that make small models need\n"
    "more than arena_used_bytes. Beside it: what arenaplan's own runtime needs, and what\n"
    "TFLite Micro's head would be with an embedded arenaplan plan.\n"
    "\n"
    "  --target T    host64 (x86-64, default) or mcu32 (32-bit pointers, measured on i386;\n"
    "                ARM Cortex-M aligns double/int64 members to 8 where i386 uses 4: see\n"
    "                the note in the output)\n"
    "  --recording   TFLite Micro's benchmark setup (RecordingMicroAllocator and 100\n"
    "                resource-variable slots) instead of a plain MicroInterpreter\n"
    "  --items       also every tail allocation, in TFLite Micro's order\n"
    "  --json        machine-readable output (\"schema_version\": 1)\n"
    "\n"
    "Ops whose allocation is not modelled are named, with the allowance added for each.\n"
    "Exit status: 0; 1 when TFLite Micro cannot allocate the model (the reason is printed);\n"
    "2 on bad usage or an unreadable model.\n"};

/* A margin over the exact minimum for what the model does not see: another TFLite Micro
 * version, ARM's alignment of 8-byte members, a few bytes of arena-start misalignment. */
static uint64_t recommended(uint64_t min) {
  uint64_t margin = min / 20 > 256 ? min / 20 : 256;
  return (min + margin + 15) / 16 * 16;
}

typedef struct beside {
  bool runtime_ok;
  ap_memory_usage runtime;
  char runtime_error[256];
  bool embedded_ok;
  uint64_t embedded_head, embedded_min;
} beside;

static void compute_beside(const ap_model *m, const ap_tflm_result *r, beside *b) {
  memset(b, 0, sizeof *b);
  ap_interpreter *it = NULL;
  ap_interpreter_options io = ap_interpreter_defaults();
  ap_status st = ap_interpreter_create(m, &io, &it);
  if (!st) st = ap_interpreter_allocate(it);
  if (!st) st = ap_interpreter_memory(it, &b->runtime);
  b->runtime_ok = st == AP_OK;
  if (!b->runtime_ok)
    snprintf(b->runtime_error, sizeof b->runtime_error, "%s",
             it ? ap_interpreter_error(it) : "out of memory");
  ap_interpreter_destroy(it);

  ap_problem *p = NULL;
  char err[256];
  if (ap_tflm_problem(m, NULL, &p, err, sizeof err) == AP_OK) {
    ap_plan *plan = NULL;
    if (ap_plan_create(p, &(ap_plan_options){.strategy = "best"}, &plan) == AP_OK) {
      b->embedded_ok = true;
      b->embedded_head = ap_plan_arena(plan);
      b->embedded_min = ap_tflm_min_arena_with_head(r, b->embedded_head);
    }
    ap_plan_destroy(plan);
  }
  ap_problem_destroy(p);
}

/* SOFTMAX's OpData holds a double: 8-aligned on ARM, 4 on i386. */
static size_t eight_byte_kernels(const ap_model *m) {
  size_t n = 0;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    for (size_t i = 0; i < ap_model_op_count(m, sg); i++) {
      ap_op_info op;
      if (ap_model_op(m, sg, i, &op) == AP_OK && !op.custom &&
          strcmp(ap_builtin_name(op.builtin), "SOFTMAX") == 0)
        n++;
    }
  return n;
}

static void print_json(const char *path, const ap_tflm_options *o, const ap_tflm_result *r,
                       const beside *b, bool items) {
  printf("{\n  \"schema_version\": 1,\n  \"model\": ");
  cli_json_string(stdout, path);
  printf(
      ",\n  \"tflm_version\": \"90b983c2\",\n  \"target\": \"%s\",\n  \"interpreter\": \"%s\",\n",
      ap_tflm_target_name(o->target), o->recording ? "recording" : "plain");
  printf("  \"min_arena_bytes\": %llu,\n  \"recommended_arena_bytes\": %llu,\n"
         "  \"arena_used_bytes\": %llu,\n  \"head_bytes\": %llu,\n  \"tail_bytes\": %llu,\n"
         "  \"prepare_peak_bytes\": %llu,\n  \"planning_peak_bytes\": %llu,\n"
         "  \"planned_buffers\": %zu,\n  \"scratch_requests\": %zu,\n  \"categories\": {",
         (unsigned long long)r->min_arena_bytes,
         (unsigned long long)recommended(r->min_arena_bytes),
         (unsigned long long)r->arena_used_bytes, (unsigned long long)r->head_bytes,
         (unsigned long long)r->tail_bytes, (unsigned long long)r->prepare_peak_bytes,
         (unsigned long long)r->planning_peak_bytes, r->planned_buffers, r->scratch_requests);
  for (int c = 0; c < AP_TFLM_CATEGORY_COUNT; c++)
    printf("%s\n    \"%s\": {\"bytes\": %llu, \"count\": %u, \"tflm_name\": \"%s\"}", c ? "," : "",
           ap_tflm_category_name((ap_tflm_category)c), (unsigned long long)r->category_bytes[c],
           r->category_count[c], ap_tflm_category_tflm_name((ap_tflm_category)c));
  printf("\n  },\n  \"unmodelled\": [");
  for (size_t i = 0; i < r->unmodelled_count; i++) {
    const ap_tflm_unmodelled *u = &r->unmodelled[i];
    printf("%s\n    {\"subgraph\": %u, \"op\": %u, \"name\": ", i ? "," : "", u->subgraph, u->op);
    cli_json_string(stdout, u->name);
    printf(", \"allowance_bytes\": %llu}", (unsigned long long)u->allowance);
  }
  printf("%s],\n", r->unmodelled_count ? "\n  " : "");
  if (b->runtime_ok)
    printf("  \"arenaplan_runtime_bytes\": %llu,\n", (unsigned long long)b->runtime.total);
  else {
    printf("  \"arenaplan_runtime_bytes\": null,\n  \"arenaplan_runtime_error\": ");
    cli_json_string(stdout, b->runtime_error);
    printf(",\n");
  }
  if (b->embedded_ok)
    printf("  \"embedded_plan_head_bytes\": %llu,\n  \"embedded_plan_min_arena_bytes\": %llu",
           (unsigned long long)b->embedded_head, (unsigned long long)b->embedded_min);
  else
    printf("  \"embedded_plan_head_bytes\": null,\n  \"embedded_plan_min_arena_bytes\": null");
  if (items) {
    printf(",\n  \"items\": [");
    for (size_t i = 0; i < r->item_count; i++) {
      const ap_tflm_item *it = &r->items[i];
      printf("%s\n    {\"phase\": \"%s\", \"category\": \"%s\", \"subgraph\": %d, \"op\": %d, "
             "\"what\": ",
             i ? "," : "", ap_tflm_phase_name(it->phase), ap_tflm_category_name(it->category),
             it->subgraph, it->op);
      cli_json_string(stdout, it->what);
      printf(", \"requested\": %llu, \"alignment\": %u, \"consumed\": %llu}",
             (unsigned long long)it->requested, it->alignment, (unsigned long long)it->consumed);
    }
    printf("\n  ]");
  }
  printf("\n}\n");
}

/* The ops we do not model, grouped by name: "TANH x150 (subgraph:op 0:234, 0:235, ...)". */
static void print_unmodelled(const ap_tflm_result *r) {
  if (!r->unmodelled_count) return;
  char s1[64];
  printf("  not modelled (an allowance of %s B each is included; a kernel whose buffers grow\n"
         "  with its tensors can need more, and TFLite Micro may have no kernel for it):\n",
         cli_thousands(s1, sizeof s1, AP_TFLM_UNMODELLED_ALLOWANCE));
  for (size_t i = 0; i < r->unmodelled_count; i++) {
    const char *name = r->unmodelled[i].name;
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++)
      seen = strcmp(r->unmodelled[j].name, name) == 0;
    if (seen) continue;
    size_t n = 0;
    for (size_t j = i; j < r->unmodelled_count; j++)
      n += strcmp(r->unmodelled[j].name, name) == 0;
    printf("    %s x%zu (subgraph:op", name, n);
    size_t shown = 0;
    for (size_t j = i; j < r->unmodelled_count && shown < 6; j++)
      if (strcmp(r->unmodelled[j].name, name) == 0)
        printf("%s %u:%u", shown++ ? "," : "", r->unmodelled[j].subgraph, r->unmodelled[j].op);
    printf("%s)\n", n > shown ? ", ..." : "");
  }
  printf("    total allowance: %s B\n", cli_thousands(s1, sizeof s1, r->unmodelled_bytes));
}

static void print_text(const char *path, const ap_model *m, const ap_tflm_options *o,
                       const ap_tflm_result *r, const beside *b, bool items) {
  char s1[64], s2[64], s3[64], s4[64];
  printf("%s: TFLite Micro 90b983c2, reference kernels, %s, target %s\n\n", path,
         o->recording ? "RecordingMicroAllocator (benchmark setup)"
                      : "MicroInterpreter(model, resolver, arena, size)",
         o->target == AP_TFLM_MCU32 ? "mcu32 (32-bit, i386 ABI)" : "host64 (x86-64)");
  printf("  kTensorArenaSize >= %s  smallest that allocates (a multiple of 16,\n"
         "                      for a 16-byte-aligned buffer)\n",
         cli_size(s1, sizeof s1, r->min_arena_bytes));
  printf("  recommended:        %s  (+5%%, at least 256 B)\n",
         cli_size(s1, sizeof s1, recommended(r->min_arena_bytes)));
  printf("  arena_used_bytes:   %s  = head %s + tail %s\n",
         cli_size(s1, sizeof s1, r->arena_used_bytes), cli_thousands(s2, sizeof s2, r->head_bytes),
         cli_thousands(s3, sizeof s3, r->tail_bytes));
  uint64_t used16 = (r->arena_used_bytes + 15) / 16 * 16;
  if (r->min_arena_bytes > used16)
    printf("  note: AllocateTensors() fails with arena_used_bytes: it needs %s B more while\n"
           "        %s\n        (prepare peak %s B, planning peak %s B)\n",
           cli_thousands(s1, sizeof s1, r->min_arena_bytes - r->arena_used_bytes),
           r->planning_peak_bytes >= r->prepare_peak_bytes
               ? "planning (an AllocationInfo per tensor, 40 B per planned buffer)"
               : "kernels prepare (temporary TfLiteTensors, scratch-request array)",
           cli_thousands(s2, sizeof s2, r->prepare_peak_bytes),
           cli_thousands(s3, sizeof s3, r->planning_peak_bytes));
  printf("\n  head (GreedyMemoryPlanner): %s, %zu buffers, %zu scratch requests (%s B)\n",
         cli_size(s1, sizeof s1, r->head_bytes), r->planned_buffers, r->scratch_requests,
         cli_thousands(s2, sizeof s2, r->scratch_bytes));
  printf("  tail (persistent):          %s\n", cli_size(s1, sizeof s1, r->tail_bytes));
  for (int c = 0; c < AP_TFLM_CATEGORY_COUNT; c++) {
    if (!r->category_bytes[c] && c != AP_TFLM_OP_DATA) continue;
    ap_tflm_category cat = (ap_tflm_category)c;
    bool recorded = c < AP_TFLM_ALLOCATOR_OBJECTS;
    printf("    %-40s %12s B  %6u\n",
           recorded ? ap_tflm_category_tflm_name(cat) : ap_tflm_category_name(cat),
           cli_thousands(s1, sizeof s1, r->category_bytes[c]), r->category_count[c]);
  }
  printf("    (kOpData is never recorded by this TFLite Micro: OpData is in "
         "kPersistentBufferData)\n");
  if (r->resource_variables)
    printf("    includes MicroResourceVariables with %s slots (the model uses resource "
           "variables)\n",
           o->resource_variable_slots ? "the given" : "100");
  print_unmodelled(r);
  if (o->target == AP_TFLM_MCU32) {
    size_t k = eight_byte_kernels(m);
    printf("  ARM Cortex-M: i386 aligns double/int64 struct members to 4, ARM AAPCS to 8");
    if (k)
      printf("; %zu kernel(s) here (SOFTMAX)\n    hold one: up to %zu B more tail on ARM\n", k,
             16 * k);
    else
      printf("; no kernel here holds one\n");
  }
  printf("\n  beside it:\n");
  if (b->runtime_ok)
    printf("    arenaplan runtime needs:  %s  (arena %s + persistent %s + tables %s)\n",
           cli_size(s1, sizeof s1, b->runtime.total),
           cli_thousands(s2, sizeof s2, b->runtime.arena),
           cli_thousands(s3, sizeof s3, b->runtime.persistent),
           cli_thousands(s4, sizeof s4, b->runtime.tables));
  else
    printf("    arenaplan runtime: does not run this model (%s)\n", b->runtime_error);
  if (b->embedded_ok) {
    printf("    embedded arenaplan plan:  TFLite Micro's head %s",
           cli_size(s1, sizeof s1, b->embedded_head));
    if (b->embedded_head < r->head_bytes)
      printf(" instead of %s (-%.1f%%)", cli_thousands(s2, sizeof s2, r->head_bytes),
             100.0 * (double)(r->head_bytes - b->embedded_head) / (double)r->head_bytes);
    else
      printf(" (the same: its GreedyMemoryPlanner is as good here)");
    printf("\n      kTensorArenaSize would be >= %s\n", cli_size(s1, sizeof s1, b->embedded_min));
  }
  if (items) {
    printf("\n  tail allocations, in order:\n    %-8s %-24s %4s %5s %-28s %10s %5s %10s\n", "phase",
           "category", "sg", "op", "what", "requested", "align", "consumed");
    for (size_t i = 0; i < r->item_count; i++) {
      const ap_tflm_item *it = &r->items[i];
      printf("    %-8s %-24s %4d %5d %-28s %10llu %5u %10llu\n", ap_tflm_phase_name(it->phase),
             ap_tflm_category_name(it->category), it->subgraph, it->op, it->what,
             (unsigned long long)it->requested, it->alignment, (unsigned long long)it->consumed);
    }
  }
}

static int run(int argc, char **argv) {
  if (cli_wants_help(&cmd_tflm, argc, argv)) return AP_EXIT_OK;
  const char *path = NULL;
  bool json = false, items = false;
  ap_tflm_options o = {0};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0)
      json = true;
    else if (strcmp(argv[i], "--items") == 0)
      items = true;
    else if (strcmp(argv[i], "--recording") == 0)
      o.recording = true;
    else if (strcmp(argv[i], "--target") == 0) {
      const char *v = cli_value(&cmd_tflm, argc, argv, &i);
      if (!v) return AP_EXIT_USAGE;
      if (!ap_tflm_parse_target(v, &o.target))
        return cli_usage_error(&cmd_tflm, "unknown target \"%s\" (host64 or mcu32)", v);
    } else if (argv[i][0] == '-' && argv[i][1])
      return cli_usage_error(&cmd_tflm, "unknown option %s", argv[i]);
    else if (!path)
      path = argv[i];
    else
      return cli_usage_error(&cmd_tflm, "one model at a time (got \"%s\" too)", argv[i]);
  }
  if (!path) return cli_usage_error(&cmd_tflm, "no model given");
  ap_model *m = cli_open_model(path);
  if (!m) return AP_EXIT_USAGE;
  ap_tflm_result r;
  ap_status st = ap_tflm_estimate(m, &o, NULL, &r);
  if (st) {
    fprintf(stderr, "arenaplan: %s: %s\n", path, r.error);
    ap_model_destroy(m);
    return st == AP_ERR_UNSUPPORTED ? AP_EXIT_CHECK : AP_EXIT_USAGE;
  }
  beside b;
  compute_beside(m, &r, &b);
  if (json)
    print_json(path, &o, &r, &b, items);
  else
    print_text(path, m, &o, &r, &b, items);
  ap_tflm_result_free(&r, NULL);
  ap_model_destroy(m);
  return AP_EXIT_OK;
}
