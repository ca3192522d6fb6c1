/* docs/c-api.md stays true: each call its table says is refused is made here, and the message
 * the table quotes must be what the error reporter hears (and the call must fail as the table
 * says); every refusal this test knows must be in the table. Also the extensions the page
 * shows: a caller-owned buffer of exactly arenaplan_interpreter_memory's total runs the model
 * with the same output bytes, one byte less is refused with a message, a custom op given
 * through arenaplan_options_add_custom_op replaces the builtin it names, and inputs are kept
 * across invokes unless arenaplan_options_set_preserve_inputs says otherwise. */
#include "arenaplan/arenaplan.h"
#include "capi_test.h"
#include "tensorflow/lite/c/c_api_experimental.h"

#include <stdlib.h>

static heard h;

/* A delegate handle as a program would have one from a delegate's create call. */
static TfLiteOpaqueDelegate *fake_delegate(void) {
  static char storage[64];
  return (TfLiteOpaqueDelegate *)(void *)storage;
}

/* Each refusal: make the call, check the failure the table describes. */
static void refuse_options(int which) {
  TfLiteModel *m = capi_model("hello_world_float");
  TfLiteInterpreterOptions *o = heard_options(&h);
  if (which == 0) TfLiteInterpreterOptionsAddDelegate(o, fake_delegate());
  if (which == 1)
    TfLiteInterpreterOptionsAddRegistrationExternal(o, (TfLiteRegistrationExternal *)(void *)o);
  if (which == 2) TfLiteInterpreterOptionsAddOperator(o, (TfLiteOperator *)(void *)o);
  TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
  CHECK(it == NULL);
  CHECK_CONTAINS(h.text, "TfLiteInterpreterCreate: refused: ");
  TfLiteInterpreterDelete(it);
  TfLiteInterpreterOptionsDelete(o);
  TfLiteModelDelete(m);
}
static void refuse_delegate(void) {
  refuse_options(0);
}
static void refuse_registration(void) {
  refuse_options(1);
}
static void refuse_operator(void) {
  refuse_options(2);
}

static void refuse_modify(void) {
  TfLiteInterpreter *it = capi_interpreter("hello_world_float", &h);
  if (!it) return;
  heard_reset(&h);
  CHECK(TfLiteInterpreterModifyGraphWithDelegate(it, fake_delegate()) == kTfLiteDelegateError);
  TfLiteInterpreterDelete(it);
}

static void refuse_cancel(void) {
  TfLiteInterpreter *it = capi_interpreter("hello_world_float", &h);
  if (!it) return;
  heard_reset(&h);
  CHECK(TfLiteInterpreterCancel(it) == kTfLiteError);
  TfLiteInterpreterDelete(it);
}

static const struct refusal {
  const char *call;
  void (*make)(void);
  bool seen;
} refusals_init[] = {
    {"TfLiteInterpreterOptionsAddDelegate", refuse_delegate, false},
    {"TfLiteInterpreterModifyGraphWithDelegate", refuse_modify, false},
    {"TfLiteInterpreterOptionsAddRegistrationExternal", refuse_registration, false},
    {"TfLiteInterpreterOptionsAddOperator", refuse_operator, false},
    {"TfLiteInterpreterCancel", refuse_cancel, false},
};

/* The text between the first pair of backticks at or after p, into out. */
static bool backticked(const char *p, const char *end, char *out, size_t size) {
  const char *a = memchr(p, '`', (size_t)(end - p));
  const char *b = a ? memchr(a + 1, '`', (size_t)(end - a - 1)) : NULL;
  if (!b || (size_t)(b - a - 1) >= size) return false;
  memcpy(out, a + 1, (size_t)(b - a - 1));
  out[b - a - 1] = '\0';
  return true;
}

static void check_table(void) {
  struct refusal refusals[sizeof refusals_init / sizeof refusals_init[0]];
  memcpy(refusals, refusals_init, sizeof refusals);
  size_t n = sizeof refusals / sizeof refusals[0];
  size_t size = 0;
  char *doc = (char *)ap_test_read_file(AP_SOURCE_DIR "/docs/c-api.md", &size);
  CHECK(doc != NULL);
  if (!doc) return;
  int rows = 0;
  for (char *line = doc; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    char *eol = strchr(line, '\n');
    if (!eol) eol = line + strlen(line);
    if (strncmp(line, "| `", 3) != 0) continue;
    /* | `call` ... | refused... | `message` | */
    char *c2 = memchr(line + 1, '|', (size_t)(eol - line - 1));
    char *c3 = c2 ? memchr(c2 + 1, '|', (size_t)(eol - c2 - 1)) : NULL;
    if (!c3 || strncmp(c2 + 1, " refused", 8) != 0) continue;
    char call[128], msg[512];
    CHECK(backticked(line, c2, call, sizeof call));
    CHECK(backticked(c3, eol, msg, sizeof msg));
    rows++;
    bool known = false;
    for (size_t i = 0; i < n; i++)
      if (strcmp(refusals[i].call, call) == 0) {
        known = refusals[i].seen = true;
        heard_reset(&h);
        refusals[i].make();
        CHECK_MSG(strstr(h.text, msg) != NULL,
                  "docs/c-api.md: %s: reporter heard \"%s\", not \"%s\"", call, h.text, msg);
        CHECK_MSG(strstr(h.text, call) != NULL, "%s: the message does not name the call: %s", call,
                  h.text);
      }
    CHECK_MSG(known, "docs/c-api.md lists %s as refused: this test does not make that call", call);
  }
  for (size_t i = 0; i < n; i++)
    CHECK_MSG(refusals[i].seen, "docs/c-api.md does not list the refused %s", refusals[i].call);
  CHECK_EQ(rows, (int)n);
  free(doc);
}

/* person_detect_int8 once with the allocator, then inside a caller buffer of the reported
 * total: the same output bytes. */
static void caller_buffer(void) {
  TfLiteModel *m = capi_model("person_detect_int8");
  if (!m) return;
  TfLiteInterpreterOptions *o = heard_options(&h);
  TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
  CHECK(it && TfLiteInterpreterAllocateTensors(it) == kTfLiteOk);
  arenaplan_memory mem = {0};
  CHECK(arenaplan_interpreter_memory(it, &mem) == kTfLiteOk);
  CHECK(mem.arena >= mem.arena_lower_bound && mem.arena_lower_bound > 0);
  CHECK(mem.total >= mem.arena + mem.persistent + mem.tables);
  CHECK(arenaplan_interpreter(it) != NULL);
  TfLiteTensor *in = TfLiteInterpreterGetInputTensor(it, 0);
  size_t in_bytes = TfLiteTensorByteSize(in);
  uint8_t *input = malloc(in_bytes);
  for (size_t i = 0; i < in_bytes; i++)
    input[i] = (uint8_t)(i * 7 + 3);
  uint8_t want[2] = {0}, got[2] = {0};
  CHECK(TfLiteTensorCopyFromBuffer(in, input, in_bytes) == kTfLiteOk);
  CHECK(TfLiteInterpreterInvoke(it) == kTfLiteOk);
  CHECK(TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(it, 0), want, 2) == kTfLiteOk);
  TfLiteInterpreterDelete(it);

  size_t total = (size_t)mem.total;
  /* A buffer too small for the interpreter's own record: refused at create. */
  static _Alignas(16) uint8_t tiny[64];
  CHECK(arenaplan_options_set_arena(o, tiny, sizeof tiny) == kTfLiteOk);
  heard_reset(&h);
  CHECK(TfLiteInterpreterCreate(m, o) == NULL);
  CHECK_CONTAINS(h.text, "arena too small: the buffer of 64 bytes");
  uint8_t *buf = aligned_alloc(16, (total + 15) / 16 * 16);
  /* One byte short: refused at allocate, with the numbers. */
  CHECK(arenaplan_options_set_arena(o, buf, total - 1) == kTfLiteOk);
  it = TfLiteInterpreterCreate(m, o);
  heard_reset(&h);
  CHECK(it && TfLiteInterpreterAllocateTensors(it) == kTfLiteError);
  CHECK_CONTAINS(h.text, "TfLiteInterpreterAllocateTensors: arena too small");
  TfLiteInterpreterDelete(it);
  CHECK(arenaplan_options_set_arena(o, buf, total) == kTfLiteOk);
  it = TfLiteInterpreterCreate(m, o);
  CHECK(it && TfLiteInterpreterAllocateTensors(it) == kTfLiteOk);
  in = TfLiteInterpreterGetInputTensor(it, 0);
  uint8_t *data = TfLiteTensorData(in);
  CHECK(data >= buf && data + in_bytes <= buf + total);
  CHECK(TfLiteTensorCopyFromBuffer(in, input, in_bytes) == kTfLiteOk);
  CHECK(TfLiteInterpreterInvoke(it) == kTfLiteOk);
  CHECK(TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(it, 0), got, 2) == kTfLiteOk);
  CHECK(memcmp(want, got, 2) == 0);
  TfLiteInterpreterDelete(it);
  free(buf);
  free(input);
  TfLiteInterpreterOptionsDelete(o);
  TfLiteModelDelete(m);
}

/* ADD replaced by y = 10 x through arenaplan's kernel interface. */
static ap_status times_ten(ap_op_context *c) {
  ap_tensor a, y;
  if (!ap_op_input(c, 0, &a) || !ap_op_output(c, 0, &y)) return AP_ERR_ARG;
  for (size_t i = 0; i < y.bytes / 4; i++)
    ((float *)y.data)[i] = ((const float *)a.data)[i] * 10.0f;
  return AP_OK;
}

static void custom_op(void) {
  TfLiteModel *m = capi_model("multi_signatures");
  if (!m) return;
  TfLiteInterpreterOptions *o = heard_options(&h);
  ap_custom_op op = {.name = NULL, .builtin = 0 /* ADD */, .kernel = {NULL, times_ten}};
  CHECK(arenaplan_options_add_custom_op(o, &op) == kTfLiteOk);
  TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
  CHECK(it && TfLiteInterpreterAllocateTensors(it) == kTfLiteOk);
  float x = 1.5f, y = 0;
  CHECK(TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(it, 0), &x, 4) == kTfLiteOk);
  CHECK(TfLiteInterpreterInvoke(it) == kTfLiteOk);
  CHECK(TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(it, 0), &y, 4) == kTfLiteOk);
  CHECK(y == 15.0f);
  TfLiteInterpreterDelete(it);
  for (int i = 0; i < 64; i++)
    arenaplan_options_add_custom_op(o, &op);
  heard_reset(&h);
  CHECK(arenaplan_options_add_custom_op(o, &op) == kTfLiteError);
  CHECK_CONTAINS(h.text, "at most 64 custom ops");
  TfLiteInterpreterOptionsDelete(o);
  TfLiteModelDelete(m);
}

/* Fills every input with a pattern, invokes; returns whether every input still holds it
 * (outputs into out: out_size bytes at most). */
static bool invoke_keeps_inputs(TfLiteInterpreter *it, uint8_t *out, size_t out_size) {
  bool kept = true;
  size_t n = (size_t)TfLiteInterpreterGetInputTensorCount(it);
  uint8_t **want = calloc(n, sizeof *want);
  for (size_t k = 0; k < n; k++) {
    TfLiteTensor *t = TfLiteInterpreterGetInputTensor(it, (int32_t)k);
    size_t bytes = TfLiteTensorByteSize(t);
    want[k] = malloc(bytes ? bytes : 1);
    for (size_t i = 0; i < bytes; i++)
      want[k][i] = (uint8_t)(i * 31 + k + 7) & 0x3f; /* small values: valid for every type */
    CHECK(TfLiteTensorCopyFromBuffer(t, want[k], bytes) == kTfLiteOk);
  }
  CHECK(TfLiteInterpreterInvoke(it) == kTfLiteOk);
  for (size_t k = 0; k < n; k++) {
    const TfLiteTensor *t = TfLiteInterpreterGetInputTensor(it, (int32_t)k);
    if (memcmp(TfLiteTensorData(t), want[k], TfLiteTensorByteSize(t)) != 0) kept = false;
    free(want[k]);
  }
  free(want);
  const TfLiteTensor *o = TfLiteInterpreterGetOutputTensor(it, 0);
  size_t bytes = TfLiteTensorByteSize(o);
  CHECK(bytes <= out_size && TfLiteTensorCopyToBuffer(o, out, bytes) == kTfLiteOk);
  return kept;
}

/* Inputs keep their bytes across invokes as in TFLite (a second invoke without copying them
 * again gives the same output); arenaplan_options_set_preserve_inputs(o, false) trades that for
 * a smaller arena, where the plan then reuses an input's bytes. */
static void inputs_kept(void) {
  static const char *const models[] = {"person_detect_int8", "mobilenet_v2_torch_int8",
                                       "mlperf_ad_fc_int8",  "magic_wand_float",
                                       "micro_speech_int8",  "mlperf_ic_resnet_int8"};
  static uint8_t first[1 << 16], second[1 << 16];
  int smaller = 0, overwritten = 0;
  for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
    arenaplan_memory kept_mem = {0}, reuse_mem = {0};
    for (int reuse = 0; reuse < 2; reuse++) {
      TfLiteModel *m = capi_model(models[i]);
      TfLiteInterpreterOptions *o = heard_options(&h);
      if (reuse) CHECK(arenaplan_options_set_preserve_inputs(o, false) == kTfLiteOk);
      TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
      TfLiteInterpreterOptionsDelete(o);
      TfLiteModelDelete(m);
      CHECK(it && TfLiteInterpreterAllocateTensors(it) == kTfLiteOk);
      if (!it) continue;
      CHECK(arenaplan_interpreter_memory(it, reuse ? &reuse_mem : &kept_mem) == kTfLiteOk);
      bool kept = invoke_keeps_inputs(it, first, sizeof first);
      if (!reuse) {
        CHECK_MSG(kept, "%s: an invoke changed an input", models[i]);
        size_t bytes = TfLiteTensorByteSize(TfLiteInterpreterGetOutputTensor(it, 0));
        CHECK(TfLiteInterpreterInvoke(it) == kTfLiteOk);
        CHECK(TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(it, 0), second, bytes) ==
              kTfLiteOk);
        CHECK_MSG(memcmp(first, second, bytes) == 0, "%s: a second invoke differs", models[i]);
      } else if (!kept) {
        overwritten++;
      }
      TfLiteInterpreterDelete(it);
    }
    CHECK(reuse_mem.arena <= kept_mem.arena);
    if (reuse_mem.arena < kept_mem.arena) smaller++;
  }
  /* The option does something: some plans are smaller and reuse an input's bytes. */
  CHECK(smaller > 0 && overwritten > 0);
  printf("preserve_inputs off: %d of 6 arenas smaller, %d inputs overwritten\n", smaller,
         overwritten);
}

int main(void) {
  ap_test_require_shared();
  check_table();
  inputs_kept();
  caller_buffer();
  custom_op();
  return ap_test_done();
}
