/* One model on a Cortex-M board: the model is a const array in flash (arenaplan header
 * --model-array), the interpreter and all its tensors live in one static buffer of exactly the
 * header's size, inputs follow the oracle's seeded rule, one invoke, and the outputs go out
 * over semihosting as hex for the host to compare. Also printed: the stack's peak (painted)
 * and the board timer's ticks around the invoke.
 *
 * With the host's plan (arenaplan header --plan: the header defines MODEL_PLAN_WORDS) the
 * interpreter is placed from it (ap_interpreter_create_planned): no heap, no planner, no
 * model verifier linked; the buffer is MODEL_PLAN_BUFFER_BYTES. Without it the device plans
 * (ap_model_from_buffer, ap_interpreter_allocate) in MODEL_BUFFER_BYTES plus a heap. */
#include "firmware.h"
#include "model_arena.h"

extern const unsigned char MODEL_DATA[]; /* model_data.c, from --model-array */

#include "arenaplan/model.h"
#include "arenaplan/planned.h"
#include "arenaplan/runtime.h"

#include <stddef.h>
#include <string.h>

#ifndef FW_SEED
#define FW_SEED 1u
#endif
/* The header says which plan its BUFFER_BYTES is for (--inplace, --stream): the interpreter
 * must plan the same, or the buffer is too small. */
#ifndef MODEL_INPLACE
#define MODEL_INPLACE 0
#endif
#ifndef MODEL_STREAM
#define MODEL_STREAM 0
#endif
#ifdef MODEL_PLAN_WORDS
static uint8_t buffer[MODEL_PLAN_BUFFER_BYTES] __attribute__((aligned(MODEL_BUFFER_ALIGNMENT)));
#else
static uint8_t buffer[MODEL_BUFFER_BYTES] __attribute__((aligned(MODEL_BUFFER_ALIGNMENT)));
MODEL_ASSERT_BUFFER_FITS(sizeof buffer);
#endif

/* The oracle's input rule (shared/oracle/tflm/README.md): xorshift64* seeded per input. */
static uint64_t rng;
static uint64_t next(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545F4914F6CDD1DULL;
}
static void fill_input(const ap_tensor *t) {
  uint8_t *d = t->data;
  size_t size = t->type == AP_INT16 ? 2 : t->type == AP_INT32 || t->type == AP_FLOAT32 ? 4 : 1;
  size_t n = t->bytes / size;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = next();
    switch (t->type) {
    case AP_INT8:
    case AP_UINT8: d[i] = (uint8_t)(r >> 56); break;
    case AP_BOOL: d[i] = (uint8_t)(r >> 63); break;
    case AP_INT16: {
      int16_t v = (int16_t)(r >> 48);
      memcpy(d + 2 * i, &v, 2);
      break;
    }
    case AP_INT32: {
      int32_t v = (int32_t)((r >> 32) % 201) - 100;
      memcpy(d + 4 * i, &v, 4);
      break;
    }
    case AP_FLOAT32: {
      float v = ((float)(r >> 40) / 16777216.0f) * 2 - 1;
      memcpy(d + 4 * i, &v, 4);
      break;
    }
    default: memset(d, 0, t->bytes); return;
    }
  }
}

static void put_u32(const char *what, uint32_t v) {
  char s[48], digits[12];
  size_t n = 0, o = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (*what && o < sizeof s - 16)
    s[o++] = *what++;
  s[o++] = ' ';
  while (n)
    s[o++] = digits[--n];
  s[o++] = '\n';
  s[o] = '\0';
  fw_puts(s);
}

/* "outputK HEX\n", 64 bytes a call so the line needs no big buffer. */
static void put_hex(size_t k, const uint8_t *d, size_t n) {
  static const char hex[] = "0123456789abcdef";
  char s[140];
  size_t o = 0;
  memcpy(s, "output", 6);
  o = 6;
  s[o++] = (char)('0' + k % 10);
  s[o++] = ' ';
  s[o] = '\0';
  fw_puts(s);
  for (size_t i = 0; i < n;) {
    o = 0;
    for (size_t j = 0; j < 64 && i < n; j++, i++) {
      s[o++] = hex[d[i] >> 4];
      s[o++] = hex[d[i] & 15];
    }
    s[o] = '\0';
    fw_puts(s);
  }
  fw_puts("\n");
}

static int fail(const char *what, const char *msg) {
  fw_puts("error: ");
  fw_puts(what);
  fw_puts(": ");
  fw_puts(msg);
  fw_puts("\n");
  return 1;
}

/* The interpreter, placed by the host's plan or planned here. */
static ap_interpreter *create(void) {
  ap_interpreter *it = NULL;
#ifdef MODEL_PLAN_WORDS
#ifdef MODEL_PLAN_STREAMED
  ap_status s = ap_interpreter_create_planned_streamed(
      MODEL_DATA, MODEL_MODEL_BYTES, MODEL_PLAN, MODEL_PLAN_WORDS, buffer, sizeof buffer, &it);
#else
  ap_status s = ap_interpreter_create_planned(MODEL_DATA, MODEL_MODEL_BYTES, MODEL_PLAN,
                                              MODEL_PLAN_WORDS, buffer, sizeof buffer, &it);
#endif
  if (s != AP_OK) {
    fail("create", it ? ap_interpreter_error(it) : "another model's plan, or no room");
    return NULL;
  }
#else
  ap_model *m = NULL;
  /* The model handle and the planning temporaries come from malloc (startup.c's heap);
   * everything the interpreter keeps lives in `buffer`. */
  if (ap_model_from_buffer(MODEL_DATA, MODEL_MODEL_BYTES, "model", NULL, &m) != AP_OK) {
    fail("model", ap_model_error(m));
    return NULL;
  }
  ap_interpreter_options o = ap_interpreter_defaults();
  o.arena = buffer;
  o.arena_size = sizeof buffer;
  o.inplace = MODEL_INPLACE;
  o.stream = MODEL_STREAM;
#ifdef FW_STRATEGY
  o.strategy = FW_STRATEGY; /* the header's --strategy: its BUFFER_BYTES is this plan's */
#endif
  if (ap_interpreter_create(m, &o, &it) != AP_OK || ap_interpreter_allocate(it) != AP_OK) {
    fail("allocate", it ? ap_interpreter_error(it) : "no interpreter");
    return NULL;
  }
#endif
  return it;
}

int main(void) {
  ap_interpreter *it = create();
  if (!it) return 1;
  for (size_t k = 0; k < ap_interpreter_input_count(it); k++) {
    ap_tensor t;
    if (ap_interpreter_input(it, k, &t) != AP_OK) return fail("input", "out of range");
    rng = (FW_SEED + k) * 0x9E3779B97F4A7C15ULL + 1;
    fill_input(&t);
  }
  uint32_t setup_stack = fw_stack_peak();
  fw_stack_paint();
  fw_timer_start();
  ap_status s = ap_interpreter_invoke(it);
  uint32_t ticks = fw_timer_ticks();
  uint32_t invoke_stack = fw_stack_peak();
  if (s != AP_OK) return fail("invoke", ap_interpreter_error(it));
  for (size_t k = 0; k < ap_interpreter_output_count(it); k++) {
    ap_tensor t;
    if (ap_interpreter_output(it, k, &t) != AP_OK) return fail("output", "out of range");
    put_hex(k, t.data, t.bytes);
  }
  put_u32("buffer_bytes", (uint32_t)sizeof buffer);
  put_u32("heap_peak_bytes", fw_heap_peak());
  put_u32("heap_size", fw_heap_size());
  put_u32("stack_setup_bytes", setup_stack);
  put_u32("stack_invoke_bytes", invoke_stack);
  put_u32("stack_size", fw_stack_size());
  put_u32("timer_ticks", ticks);
  put_u32("timer_hz", fw_timer_hz());
  ap_interpreter_destroy(it); /* the model's handle (if not planned) stays: the firmware ends */
  return 0;
}
