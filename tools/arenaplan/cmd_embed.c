/* arenaplan embed: writes our plan into the model as TFLite Micro's OfflineMemoryAllocation
 * metadata, so TFLite Micro's head shrinks to ours with no code change; or (--check) reads the
 * plan a model carries and checks it against TFLite Micro's lifetimes. */
#include "commands.h"
#include "reorder_cli.h"

#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const ap_command cmd_embed = {
    "embed", "write our plan into the model as TFLite Micro's offline plan", run,
    "usage: arenaplan embed MODEL -o OUT.tflite [options]\n"
    "       arenaplan embed MODEL --check [--json]\n"
    "  -o, --output FILE  where to write the model with the plan (metadata\n"
    "                     \"OfflineMemoryAllocation\" and its buffer added; nothing else\n"
    "                     changes; a plan already there is replaced)\n"
    "  --strategy S       the strategy planning TFLite Micro's buffers (default best)\n"
    "  --reorder          first put the operators in the order `arenaplan reorder` finds\n"
    "  --check            read the plan the model carries, show it and check it\n"
    "  --json             machine-readable output\n"
    "The plan covers TFLite Micro's own problem (its lifetimes, its kernels' scratch requests):\n"
    "tensors get fixed offsets, scratch buffers stay online and fill the gaps, as TFLite\n"
    "Micro's greedy planner places them. exit status: 1 when --check finds the plan invalid.\n"};

typedef struct embed_args {
  const char *model, *out, *strategy;
  bool check, json, reorder;
} embed_args;

static int parse(int argc, char **argv, embed_args *a) {
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
      if (!(a->out = cli_value(&cmd_embed, argc, argv, &i))) return AP_EXIT_USAGE;
    } else if (!strcmp(arg, "--strategy")) {
      if (!(a->strategy = cli_value(&cmd_embed, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_check_strategy(&cmd_embed, a->strategy)) return AP_EXIT_USAGE;
    } else if (!strcmp(arg, "--check")) {
      a->check = true;
    } else if (!strcmp(arg, "--reorder")) {
      a->reorder = true;
    } else if (!strcmp(arg, "--json")) {
      a->json = true;
    } else if (arg[0] == '-' && arg[1]) {
      return cli_usage_error(&cmd_embed, "unknown option %s", arg);
    } else if (!a->model) {
      a->model = arg;
    } else {
      return cli_usage_error(&cmd_embed, "one model at a time (got \"%s\" too)", arg);
    }
  }
  if (!a->model) return cli_usage_error(&cmd_embed, "no model given");
  if (!a->check && !a->out)
    return cli_usage_error(&cmd_embed, "no output file given (-o OUT.tflite), or --check");
  if (a->check && a->out) return cli_usage_error(&cmd_embed, "--check writes nothing: no -o");
  return AP_EXIT_OK;
}

/* --check: the plan the model carries. */
static int check(const embed_args *a, const ap_model *m) {
  ap_offline_plan p;
  bool found;
  char err[512] = "";
  if (ap_model_offline_plan(m, NULL, &p, &found, err, sizeof err) != AP_OK) {
    if (a->json) {
      printf("{\n  \"schema_version\": 1,\n  \"model\": ");
      cli_json_string(stdout, a->model);
      printf(",\n  \"valid\": false,\n  \"error\": ");
      cli_json_string(stdout, err);
      printf("\n}\n");
    }
    fprintf(stderr, "arenaplan: %s: %s\n", a->model, err);
    return AP_EXIT_CHECK;
  }
  if (!found) {
    ap_offline_plan_free(&p, NULL);
    return cli_fail(a->model, "carries no %s metadata", AP_OFFLINE_PLAN_METADATA);
  }
  ap_tflm_offline_result r;
  ap_status st = ap_tflm_offline_check(m, p.offsets, p.count, NULL, &r, err, sizeof err);
  if (a->json) {
    printf("{\n  \"schema_version\": 1,\n  \"model\": ");
    cli_json_string(stdout, a->model);
    printf(",\n  \"version\": %u,\n  \"subgraphs\": %u,\n  \"offsets\": [", p.version, p.subgraphs);
    for (size_t i = 0; i < p.count; i++)
      printf("%s%d", i ? ", " : "", p.offsets[i]);
    printf("],\n  \"valid\": %s", st ? "false" : "true");
    if (st) {
      printf(",\n  \"error\": ");
      cli_json_string(stdout, err);
    } else {
      printf(",\n  \"tflm_head_bytes\": %llu,\n  \"lower_bound_bytes\": %llu,\n"
             "  \"offline_buffers\": %zu,\n  \"online_buffers\": %zu,\n  \"note\": ",
             (unsigned long long)r.head_bytes, (unsigned long long)r.lower_bound, r.offline_buffers,
             r.online_buffers);
      cli_json_string(stdout, r.note);
    }
    printf("\n}\n");
  } else {
    printf("model:        %s\n", a->model);
    printf("plan:         %s version %u, %u subgraph(s), %zu offsets\n", AP_OFFLINE_PLAN_METADATA,
           p.version, p.subgraphs, p.count);
    size_t sg = 0, base = 0;
    for (size_t i = 0; i < p.count; i++) {
      while (sg < ap_model_subgraph_count(m) && i >= base + ap_model_tensor_count(m, sg))
        base += ap_model_tensor_count(m, sg++);
      ap_tensor_info ti;
      if (ap_model_tensor(m, sg, i - base, &ti) != AP_OK) continue;
      char sz[64], at[32] = "online";
      if (p.offsets[i] >= 0) snprintf(at, sizeof at, "offset %d", p.offsets[i]);
      printf("  tensor %3zu %-36.36s %22s  %s\n", i - base, ti.name,
             ti.is_constant ? "(constant)" : cli_size(sz, sizeof sz, ti.bytes), at);
    }
    if (st) {
      printf("invalid:      %s\n", err);
    } else {
      char h[64], l[64];
      printf("valid:        %zu buffers at fixed offsets, %zu placed by TFLite Micro\n",
             r.offline_buffers, r.online_buffers);
      printf("TFLite Micro head with this plan: %s (lower bound %s)\n",
             cli_size(h, sizeof h, r.head_bytes), cli_size(l, sizeof l, r.lower_bound));
      if (r.note[0]) printf("note:         %s\n", r.note);
    }
  }
  ap_offline_plan_free(&p, NULL);
  return st ? AP_EXIT_CHECK : AP_EXIT_OK;
}

/* The new model's plan, read back from its bytes and checked as TFLite Micro applies it. */
static ap_status verify(const ap_model *m2, ap_tflm_offline_result *r, char *err, size_t n) {
  ap_offline_plan p;
  bool found;
  ap_status st = ap_model_offline_plan(m2, NULL, &p, &found, err, n);
  if (!st && !found) {
    snprintf(err, n, "the written model has no plan");
    st = AP_ERR_FORMAT;
  }
  if (!st) st = ap_tflm_offline_check(m2, p.offsets, p.count, NULL, r, err, n);
  ap_offline_plan_free(&p, NULL);
  return st;
}

/* `before` is the model as given; m the one the plan is for (reordered with --reorder). */
static int embed(const embed_args *a, const ap_model *before_model, const ap_model *m) {
  char err[512] = "";
  ap_offline_plan p;
  if (ap_tflm_offline_build(m, a->strategy, NULL, &p, err, sizeof err) != AP_OK)
    return cli_fail(a->model, "%s", cli_unprefixed(a->model, err));
  uint8_t *words = NULL;
  size_t nwords = 0;
  ap_model_patch pt = {0};
  ap_model *m2 = NULL;
  int rc = AP_EXIT_USAGE;
  ap_tflm_offline_result r;
  if (ap_offline_plan_encode(&p, NULL, &words, &nwords) != AP_OK) {
    cli_fail(a->model, "out of memory encoding the plan");
  } else if (ap_model_patch_metadata(m, AP_OFFLINE_PLAN_METADATA, words, nwords, NULL, &pt) !=
             AP_OK) {
    cli_fail(a->model, "%s", cli_unprefixed(a->model, pt.error));
  } else if (ap_model_from_buffer(pt.bytes, pt.size, a->out, NULL, &m2) != AP_OK) {
    cli_fail(a->model, "the written model does not load: %s", ap_model_error(m2));
  } else if (verify(m2, &r, err, sizeof err) != AP_OK) {
    cli_fail(a->model, "the embedded plan does not check: %s", err);
  } else if (cli_write_file(a->out, pt.bytes, pt.size)) {
    ap_tflm_result before;
    bool known = ap_tflm_estimate(before_model, NULL, NULL, &before) == AP_OK;
    uint64_t min_after = known ? ap_tflm_min_arena_with_head(&before, r.head_bytes) : 0;
    size_t fixed = 0;
    for (size_t i = 0; i < p.count; i++)
      fixed += p.offsets[i] >= 0;
    char s1[64], s2[64], s3[64];
    if (a->json) {
      printf("{\n  \"schema_version\": 1,\n  \"model\": ");
      cli_json_string(stdout, a->model);
      printf(",\n  \"output\": ");
      cli_json_string(stdout, a->out);
      printf(",\n  \"strategy\": \"%s\",\n  \"fixed_offsets\": %zu,\n  \"offsets\": %zu,\n"
             "  \"offline_buffers\": %zu,\n  \"online_buffers\": %zu,\n"
             "  \"tflm_head_after_bytes\": %llu,\n  \"lower_bound_bytes\": %llu,\n"
             "  \"reordered\": %s",
             a->strategy ? a->strategy : "best", fixed, p.count, r.offline_buffers,
             r.online_buffers, (unsigned long long)r.head_bytes, (unsigned long long)r.lower_bound,
             m != before_model ? "true" : "false");
      if (known)
        printf(",\n  \"tflm_head_before_bytes\": %llu,\n  \"tflm_min_arena_before_bytes\": %llu,\n"
               "  \"tflm_min_arena_after_bytes\": %llu",
               (unsigned long long)before.head_bytes, (unsigned long long)before.min_arena_bytes,
               (unsigned long long)min_after);
      printf("\n}\n");
    } else {
      printf("model:        %s\n", a->model);
      printf("plan:         %s of TFLite Micro's %zu buffers: %zu tensors at fixed offsets, "
             "%zu buffers placed by TFLite Micro\n",
             a->strategy ? a->strategy : "best", r.offline_buffers + r.online_buffers,
             r.offline_buffers, r.online_buffers);
      if (known) {
        printf("TFLite Micro head:   before %s, after %s (lower bound %s)\n",
               cli_size(s1, sizeof s1, before.head_bytes), cli_size(s2, sizeof s2, r.head_bytes),
               cli_size(s3, sizeof s3, r.lower_bound));
        printf("TFLite Micro arena:  before %s, after %s (kTensorArenaSize, %s)\n",
               cli_size(s1, sizeof s1, before.min_arena_bytes), cli_size(s2, sizeof s2, min_after),
               ap_tflm_target_name(before.target));
      } else {
        printf("TFLite Micro head:   %s with this plan (lower bound %s); before: %s\n",
               cli_size(s2, sizeof s2, r.head_bytes), cli_size(s3, sizeof s3, r.lower_bound),
               before.error);
      }
      printf("wrote %s (metadata %s added%s)\n", a->out, AP_OFFLINE_PLAN_METADATA,
             m != before_model ? ", operators reordered" : "; nothing else changed");
    }
    if (known) ap_tflm_result_free(&before, NULL);
    rc = AP_EXIT_OK;
  }
  ap_model_destroy(m2);
  ap_model_patch_free(&pt, NULL);
  free(words);
  ap_offline_plan_free(&p, NULL);
  return rc;
}

static int run(int argc, char **argv) {
  if (cli_wants_help(&cmd_embed, argc, argv)) return AP_EXIT_OK;
  embed_args a = {0};
  int rc = parse(argc, argv, &a);
  if (rc != AP_EXIT_OK) return rc;
  ap_model *m = cli_open_model(a.model);
  if (!m) return AP_EXIT_USAGE;
  cli_reordered x = {0};
  if (a.check)
    rc = check(&a, m);
  else if (a.reorder && !cli_reorder(a.model, m, NULL, &x))
    rc = AP_EXIT_USAGE;
  else
    rc = embed(&a, m, cli_reordered_model(&x, m));
  cli_reordered_free(&x);
  ap_model_destroy(m);
  return rc;
}
