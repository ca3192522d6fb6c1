/* The graph's internals, shared by the files that build the timeline under each rule set. */
#ifndef AP_SRC_GRAPH_INTERNAL_H
#define AP_SRC_GRAPH_INTERNAL_H

#include "arenaplan/graph.h"
#include "base/base.h"

typedef struct ap_scratch {
  uint32_t subgraph, op;
  uint64_t bytes;
  int32_t first, last;
} ap_scratch;

struct ap_graph {
  const ap_model *model;
  const ap_allocator *alloc;
  ap_graph_options opt;
  ap_errbuf err;

  size_t sg_count;
  size_t *tensor_base; /* sg_count + 1: model-wide index of each subgraph's tensor 0 */
  size_t *op_base;     /* sg_count + 1 */
  ap_lifetime *life;   /* tensor_base[sg_count] */
  int32_t *op_first;   /* op_base[sg_count]: first step of each op's range, -1 if never run */
  int32_t *op_last;    /* last step of each op's range (with the subgraphs it calls) */

  /* The timeline: one entry per step. */
  uint32_t *step_sg;
  int32_t *step_op;
  size_t step_count, step_cap;

  ap_scratch *scratch;
  size_t scratch_count, scratch_cap;

  /* In-place (opt.inplace): per model-wide tensor, the root whose request holds its bytes
   * (SIZE_MAX: its own), and for roots the request's lifetime (the union over its group). */
  size_t *share;
  int32_t *req_first, *req_last;
  /* In-place with an offset (overlap.c): the op's output may start `lead` bytes below its
   * dying input 0 (tensor ids: the input's root, the output). */
  struct graph_overlap {
    size_t in, out;
    int64_t lead;
  } * ovl;
  size_t ovl_count, ovl_cap;
  /* Streamed segments (segment.c): the segments, the one each op is in (model-wide op index;
   * -1: none), and each tensor's ring rows (0: whole). NULL without opt.stream. */
  ap_segment *seg;
  int64_t *seg_lead; /* per segment: the least lead of its output below its input */
  size_t seg_count;
  int32_t *seg_of_op;
  uint32_t *ring_rows;
};

/* Appends a step; fails on overflow of int32 steps or allocation. */
ap_status graph_push_step(ap_graph *g, uint32_t sg, int32_t op);
/* The subgraphs a control-flow op runs (WHILE: cond, body; IF: then, else; CALL_ONCE: init),
 * in execution order. Returns how many (0-2); a negative or out-of-range index is an error. */
ap_status graph_called_subgraphs(ap_graph *g, size_t sg, size_t op, int32_t called[2],
                                 size_t *count);
/* Fills kind and bytes of every tensor (rules-independent facts). */
ap_status graph_classify(ap_graph *g);

/* One builder per rule set. */
ap_status graph_build_arenaplan(ap_graph *g);
ap_status graph_build_tflite(ap_graph *g);
ap_status graph_build_tflm(ap_graph *g);
/* In-place sharing after the lifetimes are built (inplace.c). */
ap_status graph_share_inplace(ap_graph *g);
/* The overlap an op at `step` allows between its dying input 0 and its output, if any
 * (overlap.c); called by graph_share_inplace in step order. */
ap_status graph_find_overlap(ap_graph *g, size_t sg, const ap_op_info *op, int32_t step);
/* overlap.c: a 4-D tensor of positive dims whose planned bytes are the model's (its info and
 * dims to *ti, d); an op's window (filter height, vertical stride, dilation, SAME padding) for
 * CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D and MAX_POOL_2D, false for other ops. */
bool graph_nhwc(const ap_graph *g, size_t sg, int32_t t, ap_tensor_info *ti, int32_t d[4]);
bool graph_op_window(const ap_graph *g, size_t sg, size_t k, const ap_op_info *op, int32_t *fh,
                     int32_t *stride, int32_t *dil, bool *same);
/* overlap.c: a 4-D tensor of positive dims whose planned bytes are the model's (its info and
 * dims to *ti, d); an op's window (filter height, vertical stride, dilation, SAME padding) for
 * CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D and MAX_POOL_2D, false for other ops. */
bool graph_nhwc(const ap_graph *g, size_t sg, int32_t t, ap_tensor_info *ti, int32_t d[4]);
bool graph_op_window(const ap_graph *g, size_t sg, size_t k, const ap_op_info *op, int32_t *fh,
                     int32_t *stride, int32_t *dil, bool *same);
/* Streamed segments (segment.c): picks them and rewrites the lifetimes of their tensors;
 * runs before graph_share_inplace. */
ap_status graph_stream(ap_graph *g);
static inline bool graph_in_segment(const ap_graph *g, size_t sg, size_t op) {
  return g->seg_of_op && g->seg_of_op[g->op_base[sg] + op] >= 0;
}
/* Records that tensor `out` may start `lead` bytes below the request of root `r`. */
ap_status graph_push_overlap(ap_graph *g, size_t r, size_t out, int64_t lead);
/* segment.c, from graph_share_inplace at each step of a segment's op: at its last op, the
 * overlap of the segment's output over its dying input, if any. */
ap_status graph_segment_overlap(ap_graph *g, size_t sg, size_t op, int32_t step);
/* Adds the overlaps whose two tensors both have requests in p (requests in id order). */
ap_status graph_add_overlaps(ap_graph *g, ap_problem *p);

static inline ap_lifetime *graph_life(ap_graph *g, size_t sg, size_t t) {
  return &g->life[g->tensor_base[sg] + t];
}
/* Widens a lifetime to include [first, last]. */
static inline void life_cover(ap_lifetime *l, int32_t first, int32_t last) {
  if (l->first < 0 || first < l->first) l->first = first;
  if (last > l->last) l->last = last;
}

#endif
