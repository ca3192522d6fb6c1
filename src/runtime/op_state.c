/* State that builtin kernels keep from one invoke to the next (the Signal library's noise
 * estimate and delay lines): one persistent block per op that asks for it, in a list, since
 * few ops have state and every other op should not pay a pointer for it. Like a variable
 * tensor it starts at zero and ap_interpreter_reset_variables zeroes it again. */
#include "runtime_internal.h"

#include <string.h>

typedef union rt_state {
  struct {
    union rt_state *next;
    uint32_t sg, op;
    size_t bytes;
  } h;
  max_align_t pad; /* keeps the state after the header aligned for any type */
} rt_state;

static rt_state *find(const ap_interpreter *it, uint32_t sg, uint32_t op) {
  for (rt_state *s = it->states; s; s = s->h.next)
    if (s->h.sg == sg && s->h.op == op) return s;
  return NULL;
}

ap_status rt_state_take(ap_op_context *c, size_t bytes) {
  ap_interpreter *it = c->it;
  rt_state *s = find(it, c->subgraph, c->index);
  if (c->phase == RT_PREPARE && c->prep && !s) {
    size_t total;
    if (!ap_add_size(sizeof *s, bytes, &total))
      return ap_op_fail(c, AP_ERR_OVERFLOW, "state of %zu bytes overflows", bytes);
    s = rt_persistent_alloc(it, total);
    if (!s) return rt_nomem(it);
    s->h.next = it->states;
    s->h.sg = c->subgraph;
    s->h.op = c->index;
    s->h.bytes = bytes;
    it->states = s;
    return AP_OK;
  }
  if (!s || s->h.bytes < bytes)
    return ap_op_fail(c, AP_ERR_NOT_ALLOCATED,
                      "its state needs %zu bytes, more than the %zu of allocate: call "
                      "ap_interpreter_allocate() again",
                      bytes, s ? s->h.bytes : 0);
  return AP_OK;
}

void *rt_state_find(ap_op_context *c, size_t bytes) {
  rt_state *s = find(c->it, c->subgraph, c->index);
  if (!s || s->h.bytes < bytes) {
    ap_op_fail(c, AP_ERR_NOT_ALLOCATED,
               "its state needs %zu bytes and allocate took %zu (an op whose shapes are known only "
               "while running cannot keep state)",
               bytes, s ? s->h.bytes : 0);
    return NULL;
  }
  return s + 1;
}

void rt_state_reset(ap_interpreter *it) {
  for (rt_state *s = it->states; s; s = s->h.next)
    memset(s + 1, 0, s->h.bytes);
}
