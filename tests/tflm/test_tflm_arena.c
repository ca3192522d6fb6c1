/* Our model of TFLite Micro's allocator against TFLite Micro itself: for every model it can
 * allocate on a host, the plain interpreter's smallest working arena, arena_used_bytes, head
 * and tail (../shared/bench/tflm_arena.tsv, measured with tflite-micro 90b983c2) on both
 * targets, and the recording (benchmark) setup's categories. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>

/* Compares our tail, item by item, with TFLite Micro's (tflm_arena_items.tsv: every tail
 * allocation of the plain layout, in order). Returns the number of rows compared. */
static size_t check_items(const char *name, int bits, const ap_tflm_result *r) {
  static char *text;
  static size_t size;
  char path[4096];
  if (!text) {
    text = (char *)ap_test_read_file(ap_test_path(path, sizeof path, "bench/tflm_arena_items.tsv"),
                                     &size);
    if (!text) return 0;
    text[size - 1] = '\0';
  }
  size_t rows = 0;
  bool reported = false;
  for (const char *line = text; line && *line;
       line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    char model[64], phase[16], op[96], source[128];
    int b, seq, sg, node;
    unsigned long long req, align, consumed, after;
    if (sscanf(line,
               "%63[^\t]\t%d\t%d\t%15[^\t]\t%d\t%d\t%95[^\t]\t%127[^\t]\t%llu\t%llu\t%llu\t%llu",
               model, &b, &seq, phase, &sg, &node, op, source, &req, &align, &consumed,
               &after) != 12 ||
        strcmp(model, name) != 0 || b != bits)
      continue;
    rows++;
    if (reported) continue;
    bool ok = (size_t)seq < r->item_count;
    const ap_tflm_item *it = ok ? &r->items[seq] : NULL;
    if (ok) {
      bool per_op = it->phase == AP_TFLM_PHASE_PARSE || it->phase == AP_TFLM_PHASE_INIT ||
                    it->phase == AP_TFLM_PHASE_PREPARE;
      ok = strcmp(ap_tflm_phase_name(it->phase), phase) == 0 && it->requested == req &&
           it->alignment == align && it->consumed == consumed &&
           (!per_op || (it->subgraph == sg && it->op == node));
    }
    if (!ok) {
      reported = true;
      CHECK_MSG(ok,
                "%s %d-bit item %d: TFLite Micro %s %d/%d %s %llu@%llu -> %llu; ours %s %d/%d %s "
                "%llu@%u -> %llu",
                name, bits, seq, phase, sg, node, source, req, align, consumed,
                it ? ap_tflm_phase_name(it->phase) : "-", it ? it->subgraph : -1, it ? it->op : -1,
                it ? it->what : "-", it ? (unsigned long long)it->requested : 0ULL,
                it ? it->alignment : 0u, it ? (unsigned long long)it->consumed : 0ULL);
    }
  }
  CHECK_MSG(rows == r->item_count, "%s %d-bit: %zu items, TFLite Micro %zu", name, bits,
            r->item_count, rows);
  return rows;
}

/* The scratch requests as tflm_arena.tsv writes them: "node:bytes;s/node:bytes", or "-". */
static void check_scratch(const char *name, const ap_tflm_result *r) {
  char path[4096], want[4096] = "?", ours[4096] = "-";
  size_t size, len = strlen(name);
  char *text =
      (char *)ap_test_read_file(ap_test_path(path, sizeof path, "bench/tflm_arena.tsv"), &size);
  if (!text) return;
  text[size - 1] = '\0';
  for (char *line = strchr(text, '\n'); line; line = strchr(line + 1, '\n')) {
    if (strncmp(line + 1, name, len) != 0 || line[1 + len] != '\t') continue;
    char *f = line + 1;
    for (int k = 0; k < 18 && f; k++)
      f = strchr(f, '\t') ? strchr(f, '\t') + 1 : NULL;
    if (f) snprintf(want, sizeof want, "%.*s", (int)strcspn(f, "\t\n"), f);
  }
  free(text);
  size_t used = 0;
  for (size_t i = 0; i < r->scratch_requests && used < sizeof ours - 64; i++) {
    const ap_tflm_scratch *q = &r->scratch[i];
    if (q->subgraph)
      used += (size_t)snprintf(ours + used, sizeof ours - used, "%s%u/%u:%llu", i ? ";" : "",
                               q->subgraph, q->op, (unsigned long long)q->bytes);
    else
      used += (size_t)snprintf(ours + used, sizeof ours - used, "%s%u:%llu", i ? ";" : "", q->op,
                               (unsigned long long)q->bytes);
  }
  CHECK_MSG(strcmp(ours, want) == 0, "%s scratch requests: ours %s, TFLite Micro %s", name, ours,
            want);
}

/* TFLite Micro's benchmark setup (RecordingMicroAllocator, 100 resource-variable slots): the
 * totals and every category its RecordingMicroAllocator records, and the unrecorded rest. */
static void check_recording(const char *name, const ap_model *m) {
  static const char *const cols[AP_TFLM_CATEGORY_COUNT] = {
      "eval_tensor_bytes",       "persistent_tensor_bytes", "persistent_tensor_quant_bytes",
      "persistent_buffer_bytes", "variable_buffer_bytes",   "node_and_registration_bytes",
      "op_data_bytes",           "allocator_objects_bytes", "model_start_bytes",
      "builtin_data_bytes",      "scratch_handles_bytes"};
  static const char *const count_cols[AP_TFLM_CATEGORY_COUNT] = {"eval_tensor_count",
                                                                 "persistent_tensor_count",
                                                                 "persistent_tensor_quant_count",
                                                                 "persistent_buffer_count",
                                                                 "variable_buffer_count",
                                                                 "node_and_registration_count",
                                                                 "op_data_count",
                                                                 NULL,
                                                                 NULL,
                                                                 "builtin_data_count",
                                                                 NULL};
  for (int t = 0; t < 2; t++) {
    ap_tflm_result r;
    ap_tflm_options o = {.target = (ap_tflm_target)t, .recording = true};
    CHECK_MSG(ap_tflm_estimate(m, &o, NULL, &r) == AP_OK, "%s: %s", name, r.error);
    CHECK_EQ(r.arena_used_bytes, ap_test_tflm_value(name, t ? "arena_used_bytes_32" : "arena_used_bytes"));
    CHECK_EQ(r.tail_bytes, ap_test_tflm_value(name, t ? "tail_32" : "tail"));
    CHECK_EQ(r.min_arena_bytes,
             ap_test_tflm_value(name, t ? "min_arena_recording_16_32" : "min_arena_recording_16"));
    for (int c = 0; t == 0 && c < AP_TFLM_CATEGORY_COUNT; c++) {
      CHECK_MSG((long long)r.category_bytes[c] == ap_test_tflm_value(name, cols[c]), "%s %s: ours %llu, TFLM %lld",
                name, cols[c], (unsigned long long)r.category_bytes[c], ap_test_tflm_value(name, cols[c]));
      if (count_cols[c])
        CHECK_MSG((long long)r.category_count[c] == ap_test_tflm_value(name, count_cols[c]),
                  "%s %s: ours %u, TFLM %lld", name, count_cols[c], r.category_count[c],
                  ap_test_tflm_value(name, count_cols[c]));
    }
    ap_tflm_result_free(&r, NULL);
  }
}

typedef struct counts {
  int models, exact[2];
  size_t item_rows;
} counts;

static void check_model(const char *name, counts *c) {
  if (ap_test_tflm_value(name, "plain_head") < 0) return; /* TFLite Micro cannot allocate it on a host */
  c->models++;
  char path[4096];
  ap_model *m;
  ap_test_path(path, sizeof path, "models/%s.tflite", name);
  CHECK_MSG(ap_model_open(path, NULL, &m) == AP_OK, "%s", ap_model_error(m));
  for (int t = 0; t < 2; t++) {
    ap_tflm_result r;
    ap_status st = ap_tflm_estimate(m, &(ap_tflm_options){.target = (ap_tflm_target)t}, NULL, &r);
    CHECK_MSG(st == AP_OK, "%s: %s", name, r.error);
    long long want_min = ap_test_tflm_value(name, t ? "min_arena_plain_16_32" : "min_arena_plain_16");
    long long want_used = ap_test_tflm_value(name, t ? "plain_arena_used_bytes_32" : "plain_arena_used_bytes");
    long long want_head = ap_test_tflm_value(name, t ? "head_32" : "plain_head");
    long long want_tail = ap_test_tflm_value(name, t ? "plain_tail_32" : "plain_tail");
    bool exact = (long long)r.min_arena_bytes == want_min &&
                 (long long)r.arena_used_bytes == want_used &&
                 (long long)r.head_bytes == want_head && (long long)r.tail_bytes == want_tail;
    if (!exact)
      printf("gap %s %s: min %llu/%lld used %llu/%lld head %llu/%lld tail %llu/%lld\n", name,
             t ? "mcu32" : "host64", (unsigned long long)r.min_arena_bytes, want_min,
             (unsigned long long)r.arena_used_bytes, want_used, (unsigned long long)r.head_bytes,
             want_head, (unsigned long long)r.tail_bytes, want_tail);
    c->exact[t] += exact;
    c->item_rows += check_items(name, t ? 32 : 64, &r);
    if (t == 0) {
      check_scratch(name, &r);
      CHECK_EQ(r.planned_buffers, ap_test_tflm_value(name, "planned_buffers"));
      CHECK_EQ(r.prepare_peak_bytes, ap_test_tflm_value(name, "prepare_peak_bytes"));
      CHECK_EQ(r.planning_peak_bytes, ap_test_tflm_value(name, "planning_peak_bytes"));
    }
    ap_tflm_result_free(&r, NULL);
  }
  check_recording(name, m);
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  char names[64][64];
  size_t n = ap_test_models(names, 64);
  CHECK(n == 30);
  counts c = {0};
  for (size_t i = 0; i < n; i++) {
    names[i][strlen(names[i]) - 7] = '\0';
    check_model(names[i], &c);
  }
  printf("exact: host64 %d/%d, mcu32 %d/%d\n", c.exact[0], c.models, c.exact[1], c.models);
  CHECK_EQ(c.models, 25);
  CHECK_EQ(c.exact[0], 25);
  CHECK_EQ(c.exact[1], 25);
  CHECK_EQ(c.item_rows, 3672); /* every row of tflm_arena_items.tsv was compared */
  return ap_test_done();
}
