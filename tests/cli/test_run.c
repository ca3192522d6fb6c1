/* `arenaplan run`: --output and --dump-tensors agree with TFLite Micro's files byte for byte,
 * --input FILE gives the same outputs as the rule, summaries computed here from the oracle's
 * own output files, --arena, and the exact errors and exit statuses. */
#include "support/json.h"
#include "test.h"

#include <arenaplan/arenaplan.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static char tmp[] = "/tmp/ap_test_run_XXXXXX";

/* Runs `arenaplan run ARGS`: the exit status; stdout in *out, stderr in *err (either NULL). */
static int run(const char *args, char **out, char **err) {
  char cmd[16384];
  snprintf(cmd, sizeof cmd, "'%s' run %s 2>/dev/null", ap_test_cli(), args);
  int rc = ap_test_run(cmd, false, out);
  if (err) {
    snprintf(cmd, sizeof cmd, "'%s' run %s 2>&1 >/dev/null", ap_test_cli(), args);
    ap_test_run(cmd, false, err);
  }
  return rc;
}

static const char *model(char *buf, size_t size, const char *name) {
  return ap_test_path(buf, size, "models/%s.tflite", name);
}

/* DIR/FILE equals shared/oracle/tflm/REL byte for byte. */
static void same_file(const char *dir, const char *file, const char *rel) {
  char a[1024], b[1024];
  size_t na = 0, nb = 0;
  snprintf(a, sizeof a, "%s/%s", dir, file);
  uint8_t *x = ap_test_read_file(a, &na);
  uint8_t *y = ap_test_read_file(ap_test_path(b, sizeof b, "oracle/tflm/%s", rel), &nb);
  CHECK_MSG(x && y && na == nb && memcmp(x, y, na) == 0, "%s differs from %s", a, b);
  free(x);
  free(y);
}

static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char p[1024];
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    unlink(p);
  }
  if (d) closedir(d);
  rmdir(dir);
}

/* --output for a few models and seeds: the oracle's outputs, byte for byte. */
static void outputs(void) {
  static const struct {
    const char *name;
    int seed, outputs;
  } cases[] = {{"hello_world_int8", 2, 1},  {"micro_speech_int8", 3, 1},
               {"mlperf_ad_fc_int8", 2, 1}, {"person_detect_int8", 1, 1},
               {"multi_signatures", 3, 1},  {"mlperf_ic_resnet_float", 2, 1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char m[1024], args[8192], dir[512], file[64], rel[256];
    snprintf(dir, sizeof dir, "%s/out%zu", tmp, i);
    /* Builtin ops prepared once give the same outputs (i odd: --prepare once). */
    snprintf(args, sizeof args, "'%s' --seed %d --iterations 2 --output '%s'%s",
             model(m, sizeof m, cases[i].name), cases[i].seed, dir, i % 2 ? " --prepare once" : "");
    CHECK_EQ(run(args, NULL, NULL), 0);
    for (int k = 0; k < cases[i].outputs; k++) {
      snprintf(file, sizeof file, "output%d.bin", k);
      snprintf(rel, sizeof rel, "%s.seed%d.output%d.bin", cases[i].name, cases[i].seed, k);
      same_file(dir, file, rel);
    }
    remove_dir(dir);
  }
}

/* --input with the oracle's own input files gives its outputs; a buffer too small for the
 * interpreter's record and a large one. */
static void input_files_and_arena(void) {
  char m[1024], in[1024], args[16384], dir[512];
  snprintf(dir, sizeof dir, "%s/files", tmp);
  ap_test_path(in, sizeof in, "oracle/tflm/mlperf_ad_fc_int8.seed3.input0.bin");
  snprintf(args, sizeof args, "'%s' --input '%s' --iterations 2 --output '%s' --arena 1M",
           model(m, sizeof m, "mlperf_ad_fc_int8"), in, dir);
  CHECK_EQ(run(args, NULL, NULL), 0);
  same_file(dir, "output0.bin", "mlperf_ad_fc_int8.seed3.output0.bin");
  remove_dir(dir);

  char *out = NULL, *err = NULL, want[8192];
  snprintf(args, sizeof args, "'%s' --arena 100", m);
  CHECK_EQ(run(args, &out, &err), 1);
  snprintf(want, sizeof want,
           "arenaplan: %s: does not fit: arena too small: the 100-byte buffer cannot hold the "
           "interpreter's own record\n",
           m);
  CHECK_STR(err, want);
  CHECK_STR(out, "");
  free(out);
  free(err);
  /* The total `run --json` reports is the exact buffer that works; one byte less fails with
   * the library's message naming both sizes. */
  snprintf(args, sizeof args, "'%s' --json --iterations 1", m);
  CHECK_EQ(run(args, &out, NULL), 0);
  const char *tb = out ? strstr(out, "\"total_bytes\": ") : NULL;
  unsigned long long total = tb ? strtoull(tb + 15, NULL, 10) : 0;
  CHECK(total > 0);
  free(out);
  snprintf(args, sizeof args, "'%s' --iterations 1 --arena %llu", m, total);
  CHECK_EQ(run(args, NULL, NULL), 0);
  snprintf(args, sizeof args, "'%s' --iterations 1 --arena %llu", m, total - 1);
  CHECK_EQ(run(args, &out, &err), 1);
  snprintf(want, sizeof want,
           "arenaplan: %s: does not fit: arena too small: needs %llu bytes, buffer has %llu\n", m,
           total, total - 1);
  CHECK_STR(err, want);
  free(out);
  free(err);
}

/* --dump-tensors: every file equals the oracle's tensors/ file, and there is one per tensor
 * TENSORS.tsv lists for the model. */
static void dump_tensors(void) {
  char m[1024], args[8192], dir[512], path[1024];
  snprintf(dir, sizeof dir, "%s/dump", tmp);
  snprintf(args, sizeof args, "'%s' --iterations 1 --dump-tensors '%s'",
           model(m, sizeof m, "mlperf_sww_int8"), dir);
  CHECK_EQ(run(args, NULL, NULL), 0);
  size_t n = 0, rows = 0;
  uint8_t *tsv =
      ap_test_read_file(ap_test_path(path, sizeof path, "oracle/tflm/tensors/TENSORS.tsv"), &n);
  CHECK(tsv != NULL);
  char *text = calloc(1, n + 1), *save = NULL;
  if (tsv && text) memcpy(text, tsv, n);
  for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line;
       line = strtok_r(NULL, "\n", &save)) {
    char *f[10];
    size_t k = 0;
    for (char *p = line; k < 10; k++) {
      f[k] = p;
      char *tab = strchr(p, '\t');
      if (!tab) break;
      *tab = '\0';
      p = tab + 1;
    }
    if (k < 9 || strcmp(f[0], "mlperf_sww_int8") != 0 || strcmp(f[1], "1") != 0) continue;
    char file[64], rel[512];
    snprintf(file, sizeof file, "tensor%s.bin", f[2]);
    snprintf(rel, sizeof rel, "tensors/%s", f[9]);
    same_file(dir, file, rel);
    rows++;
  }
  size_t files = 0;
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)))
    files += e->d_name[0] != '.';
  if (d) closedir(d);
  CHECK(rows > 10);
  CHECK_EQ(files, rows);
  free(text);
  free(tsv);
  remove_dir(dir);
}

static int cmp_desc(const void *pa, const void *pb) {
  const double *a = pa, *b = pb;
  return a[0] != b[0] ? (a[0] < b[0] ? 1 : -1) : (a[1] > b[1]) - (a[1] < b[1]);
}

/* The JSON's summary equals one computed here from the oracle's output file, dequantized with
 * the scale and zero point the model states. */
static void json_summary(const char *name, int seed) {
  char m[1024], args[8192], path[1024];
  char *out = NULL;
  snprintf(args, sizeof args, "'%s' --seed %d --iterations 3 --json", model(m, sizeof m, name),
           seed);
  CHECK_EQ(run(args, &out, NULL), 0);
  ap_json *j = out ? ap_json_parse(out) : NULL;
  CHECK_MSG(j != NULL, "%s: not JSON: %s", name, out ? out : "");
  ap_model *am = NULL;
  CHECK(ap_model_open(m, NULL, &am) == AP_OK);
  ap_tensor_info ti;
  ap_ivec outs = ap_model_subgraph_outputs(am, 0);
  CHECK(outs.n == 1 && ap_model_tensor(am, 0, (size_t)outs.v[0], &ti) == AP_OK);
  size_t n = 0;
  uint8_t *raw = ap_test_read_file(
      ap_test_path(path, sizeof path, "oracle/tflm/%s.seed%d.output0.bin", name, seed), &n);
  CHECK(raw != NULL);
  if (j && raw && am) {
    bool q = ti.type == AP_INT8;
    size_t count = q ? n : n / 4;
    double scale = q ? ti.scale[0] : 1, zp = q ? (double)ti.zero_point[0] : 0;
    double(*v)[2] = calloc(count, sizeof *v), sum = 0, mn = 0, mx = 0;
    for (size_t i = 0; v && i < count; i++) {
      float f;
      if (q)
        f = (float)(((double)(int8_t)raw[i] - zp) * scale);
      else
        memcpy(&f, raw + 4 * i, 4);
      double x = q ? ((double)(int8_t)raw[i] - zp) * scale : f;
      v[i][0] = x;
      v[i][1] = (double)i;
      sum += x;
      mn = i == 0 || x < mn ? x : mn;
      mx = i == 0 || x > mx ? x : mx;
    }
    double got;
    /* The JSON prints 9 significant digits: enough for a float32, not for a double. */
    CHECK(ap_json_f64(j, "outputs[0].min", &got) && fabs(got - mn) <= 1e-8 * fmax(1, fabs(mn)));
    CHECK(ap_json_f64(j, "outputs[0].max", &got) && fabs(got - mx) <= 1e-8 * fmax(1, fabs(mx)));
    double mean = sum / (double)count;
    CHECK(ap_json_f64(j, "outputs[0].mean", &got) &&
          fabs(got - mean) <= 1e-8 * fmax(1, fabs(mean)));
    qsort(v, count, sizeof *v, cmp_desc);
    size_t top = count < 5 ? count : 5;
    CHECK_EQ(ap_json_len(j, "outputs[0].top5"), (long)top);
    for (size_t k = 0; v && k < top; k++) {
      char key[64];
      int64_t cls;
      snprintf(key, sizeof key, "outputs[0].top5[%zu].class", k);
      CHECK_MSG(ap_json_i64(j, key, &cls) && cls == (int64_t)v[k][1], "%s top-5 #%zu", name, k);
    }
    CHECK_STR(ap_json_str(j, "outputs[0].type"), ap_dtype_name(ti.type));
    CHECK_EQ(ap_json_len(j, "outputs[0].shape"), (long)ti.shape.n);
    int64_t iters = 0, total = 0, arena = 0, pers = 0, tables = 0;
    double med = 0, min = 0;
    CHECK(ap_json_i64(j, "iterations", &iters) && iters == 3);
    CHECK(ap_json_f64(j, "invoke_us_median", &med) && ap_json_f64(j, "invoke_us_min", &min) &&
          min > 0 && min <= med);
    CHECK(ap_json_i64(j, "total_bytes", &total) && ap_json_i64(j, "arena_bytes", &arena) &&
          ap_json_i64(j, "persistent_bytes", &pers) && ap_json_i64(j, "tables_bytes", &tables));
    CHECK_EQ(total, arena + pers + tables);
    CHECK(arena > 0);
    free(v);
  }
  free(raw);
  ap_model_destroy(am);
  ap_json_free(j);
  free(out);
}

/* One run's exit status is 2 and stderr is exactly `want` (or contains it when !exact). */
static void check_error(const char *args, const char *want, bool exact) {
  char *out = NULL, *err = NULL;
  CHECK_EQ(run(args, &out, &err), 2);
  if (exact)
    CHECK_STR(err, want);
  else
    CHECK_CONTAINS(err, want);
  CHECK_STR(out, "");
  free(out);
  free(err);
}

static void errors(void) {
  char m[1024], args[8192], want[8192], path[1024];
  model(m, sizeof m, "mlperf_ad_fc_int8");
  check_error("", "arenaplan: run: no model given\n(see 'arenaplan run --help')\n", true);
  snprintf(args, sizeof args, "'%s' --bogus", m);
  check_error(args, "arenaplan: run: unknown option --bogus\n", false);
  snprintf(args, sizeof args, "'%s' --prepare twice", m);
  check_error(args, "arenaplan: run: --prepare \"twice\": expected each or once\n", false);
  snprintf(args, sizeof args, "'%s' --iterations 0", m);
  check_error(args, "arenaplan: run: --iterations \"0\": expected 1 to 1000000\n", false);
  snprintf(args, sizeof args, "'%s' --arena 0", m);
  check_error(args, "arenaplan: run: --arena \"0\": expected a size", false);
  snprintf(args, sizeof args, "'%s' --strategy nope", m);
  check_error(args, "unknown strategy \"nope\"", false);
  snprintf(args, sizeof args, "'%s' --dump-tensors %s/d --strategy tflm", m, tmp);
  check_error(args, "--dump-tensors plans with no reuse; --strategy does not apply", false);
  /* A file of the wrong size names the input, its type, shape and size. */
  snprintf(path, sizeof path, "%s/short.bin", tmp);
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite("12345", 1, 5, f) == 5);
  if (f) fclose(f);
  snprintf(args, sizeof args, "'%s' --input '%s'", m, path);
  snprintf(want, sizeof want,
           "arenaplan: %s: is 5 bytes, but input 0 (\"input_1\", INT8 [1,640]) takes 640 bytes\n",
           path);
  check_error(args, want, true);
  snprintf(args, sizeof args, "'%s' --input '%s' '%s'", m, path, path);
  snprintf(want, sizeof want, "arenaplan: %s: has 1 input, --input gave 2 files\n", m);
  check_error(args, want, true);
  unlink(path);
  snprintf(args, sizeof args, "'%s' --input %s/missing.bin", m, tmp);
  snprintf(want, sizeof want, "arenaplan: %s/missing.bin: cannot open: No such file or directory\n",
           tmp);
  check_error(args, want, true);
  /* Ops we have no kernel for: the op, its code, subgraph and index, and for custom ops how to
   * register one. Every builtin in the shared models runs, so the builtin case is a model
   * written here: one LSH_PROJECTION (builtin 15), which arenaplan has no kernel for. */
  ap_writer *w = NULL;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  const int32_t shape[] = {1, 4};
  ap_writer_tensor t = {.shape = shape, .rank = 2};
  int32_t x, y;
  uint32_t code;
  CHECK(ap_writer_add_tensor(w, 0, &t, &x) == AP_OK && ap_writer_add_tensor(w, 0, &t, &y) == AP_OK);
  CHECK(ap_writer_set_subgraph_io(w, 0, &x, 1, &y, 1) == AP_OK);
  CHECK(ap_writer_add_opcode(w, 15, 1, &code) == AP_OK);
  ap_writer_op op = {
      .opcode = code, .inputs = &x, .input_count = 1, .outputs = &y, .output_count = 1};
  CHECK(ap_writer_add_op(w, 0, &op, NULL) == AP_OK);
  snprintf(m, sizeof m, "%s/lsh.tflite", tmp);
  CHECK(ap_writer_save(w, m) == AP_OK);
  ap_writer_destroy(w);
  snprintf(args, sizeof args, "'%s'", m);
  snprintf(want, sizeof want,
           "arenaplan: %s: unsupported op LSH_PROJECTION (builtin 15) at subgraph 0 op 0 (the CLI "
           "runs builtin kernels only; 'arenaplan plan' still plans this model)\n",
           m);
  check_error(args, want, true);
  unlink(m);
  snprintf(args, sizeof args, "'%s'", model(m, sizeof m, "person_detect_vela"));
  check_error(args,
              "unsupported custom op \"ethos-u\" at subgraph 0 op 0: register it with "
              "ap_interpreter_options.custom_ops",
              false);
}

static void help_and_human(void) {
  char *out = NULL, m[1024], args[8192];
  CHECK_EQ(run("--help", &out, NULL), 0);
  CHECK_CONTAINS(out, "usage: arenaplan run MODEL");
  CHECK_CONTAINS(out, "exit status: 0 ran; 1 the model does not fit in --arena SIZE; 2");
  free(out);
  /* The reference kernels: their scratch is TFLite Micro's (none), the fast ones pack weights. */
  snprintf(args, sizeof args, "'%s' --iterations 2 --strategy tflm --kernels reference",
           model(m, sizeof m, "mlperf_ic_resnet_float"));
  CHECK_EQ(run(args, &out, NULL), 0);
  CHECK_CONTAINS(out, "strategy    tflm\n");
  CHECK_CONTAINS(out, "inputs      random, seed 1 (TFLite Micro oracle rule)\n");
  CHECK_CONTAINS(out, "over 2 iterations\n");
  /* TFLite Micro's arena for this model is 196,608 bytes of planned tensors: ours too. */
  CHECK_CONTAINS(out, "arena       196,608 B (192.0 KiB)\n");
  CHECK_CONTAINS(out, "  0 Identity FLOAT32 [1,10]\n");
  CHECK_CONTAINS(out, "    top-5: 4 (");
  free(out);
  /* dynamic_shapes: the rule's z lies in [-1, 1), CAST makes it 0 rows; its 18 dynamic tensors
   * each get the smallest block (16 bytes, even for no elements): 288 B. */
  snprintf(args, sizeof args, "'%s'", model(m, sizeof m, "dynamic_shapes"));
  CHECK_EQ(run(args, &out, NULL), 0);
  CHECK_CONTAINS(out, "\ndynamic     288 B in 18 tensors shaped while running (allocator blocks, "
                      "not in total)\n");
  CHECK_CONTAINS(out, "  0 Identity FLOAT32 [8,0,1024]\n");
  free(out);
}

int main(void) {
  ap_test_require_shared();
  CHECK(mkdtemp(tmp) != NULL);
  help_and_human();
  errors();
  outputs();
  input_files_and_arena();
  dump_tensors();
  json_summary("mlperf_ic_resnet_float", 1);
  json_summary("person_detect_int8", 2);
  json_summary("mlperf_ad_fc_int8", 1);
  rmdir(tmp);
  return ap_test_done();
}
