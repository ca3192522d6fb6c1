/* TFLite Micro's GreedyMemoryPlanner as its source reads, step for step: the array filled
 * from the tail, the bubble sort by size, the offset-ordered linked list walked for the
 * first gap. Quadratic, and written independently of src/plan/tflm.c, so tests can check
 * that strategy's offsets against it and the benchmark can time what TFLite Micro spends. */
#include "arenaplan/plan.h"
#include "test.h"

#include <stdlib.h>

typedef struct entry {
  uint64_t offset;
  size_t req;
  long next; /* -1: end of the list */
} entry;

static bool overlaps(const ap_request *a, const ap_request *b) {
  return !(a->first > b->last || b->first > a->last);
}

int ap_test_tflm_literal(const ap_problem *p, uint64_t *offsets, uint64_t *arena) {
  size_t n = ap_problem_count(p);
  const ap_request *r = ap_problem_requests(p);
  uint64_t align = ap_problem_alignment(p);
  *arena = 0;
  if (n == 0) return 0;
  uint64_t *size = malloc(n * sizeof *size), *sorted = malloc(n * sizeof *sorted);
  size_t *ids = malloc(n * sizeof *ids);
  entry *list = malloc(n * sizeof *list);
  if (!size || !sorted || !ids || !list) {
    free(size), free(sorted), free(ids), free(list);
    return -1;
  }
  for (size_t i = 0; i < n; i++)
    size[i] = (r[i].size + align - 1) / align * align;
  size_t tail = n;
  for (size_t i = 0; i < n; i++) {
    tail--;
    sorted[tail] = size[i];
    ids[tail] = i;
  }
  bool swapped;
  do {
    swapped = false;
    for (size_t i = 1; i < n; i++)
      if (sorted[i - 1] < sorted[i]) {
        uint64_t v = sorted[i - 1];
        sorted[i - 1] = sorted[i];
        sorted[i] = v;
        size_t d = ids[i - 1];
        ids[i - 1] = ids[i];
        ids[i] = d;
        swapped = true;
      }
  } while (swapped);
  long head = 0, used = 1;
  list[0] = (entry){0, ids[0], -1};
  offsets[ids[0]] = 0;
  for (size_t k = 1; k < n; k++) {
    size_t id = ids[k];
    uint64_t candidate = 0;
    long prior = -1;
    for (;;) {
      long next = prior < 0 ? head : list[prior].next;
      while (next >= 0 && !overlaps(&r[list[next].req], &r[id]))
        next = list[next].next;
      if (prior >= 0 && list[prior].offset + size[list[prior].req] > candidate)
        candidate = list[prior].offset + size[list[prior].req];
      if (next < 0) break;
      if (list[next].offset >= candidate && list[next].offset - candidate >= size[id]) break;
      prior = next;
    }
    offsets[id] = candidate;
    long e = used++;
    list[e] = (entry){candidate, id, -1};
    if (list[head].offset > candidate) {
      list[e].next = head;
      head = e;
    } else {
      long cur = head;
      while (list[cur].next >= 0 && list[list[cur].next].offset <= candidate)
        cur = list[cur].next;
      list[e].next = list[cur].next;
      list[cur].next = e;
    }
  }
  for (size_t i = 0; i < n; i++)
    if (offsets[i] + size[i] > *arena) *arena = offsets[i] + size[i];
  free(size), free(sorted), free(ids), free(list);
  return 0;
}
