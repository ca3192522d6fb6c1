/* arenaplan graph: execution order and tensor lifetimes of a whole model, and the problem they
 * make.
 *
 *   ap_graph *g;
 *   if (ap_graph_create(model, &(ap_graph_options){.rules = AP_RULES_TFLM}, NULL, &g) != AP_OK)
 *     fprintf(stderr, "%s\n", ap_graph_error(g));         // g holds the message
 *   ap_lifetime l;
 *   ap_graph_tensor(g, 0, 7, &l);                           // l.first, l.last, l.bytes
 *   ap_problem *p;
 *   ap_graph_problem(g, -1, 16, &p);                        // plan it with ap_plan_create
 *   ...
 *   ap_problem_destroy(p);
 *   ap_graph_destroy(g);
 *
 * Ownership: the graph reads the model in place, so the model must outlive it; a problem made
 * from it is the caller's (ap_problem_destroy) and independent of the graph. Errors: every
 * fallible call returns a status; AP_ERR_ARG for NULL or zero arguments, AP_ERR_RANGE for
 * indices out of range, AP_ERR_FORMAT for a model whose control flow calls itself, and
 * AP_ERR_NOMEM; the graph keeps the message (ap_graph_error). On a failed create *out is still
 * a graph holding the message (NULL only when memory for it could not be had).
 *
 * Steps. Every op of every subgraph that runs gets a step on one timeline. The entry subgraphs
 * (subgraph 0 and every signature's subgraph that no control-flow op calls) run one after the
 * other: each gets its own range of steps, so they share one arena (only one entry runs at a
 * time). Inside an entry, op k of the subgraph follows op k-1. A control-flow op (WHILE, IF,
 * CALL_ONCE) at step s is followed by the steps of the subgraphs it calls (WHILE: cond then
 * body; IF: then, else), depth first; its range is [s, e] with e the last of those steps. A
 * called subgraph's inputs and outputs live over its own steps (the first called one's from s,
 * where the op copies into it): a loop carries its state in the op's outputs, which live from s
 * to at least e, and copies it into a subgraph's inputs as that subgraph starts. The tensors a
 * WHILE reads live to s (it copies them there), those IF reads to e. A subgraph called from
 * several places lives over the union of its ranges.
 *
 * Rules. Which tensors are planned and for how long:
 *  - AP_RULES_ARENAPLAN (default): constants (a buffer with data) stay in the model; variable
 *    tensors go to the persistent region; zero-sized tensors, optional inputs (-1) and op
 *    `intermediates` need no bytes. Graph inputs live from the entry's first step to their last
 *    reader (to the entry's end with preserve_inputs), graph outputs from their producer to the
 *    entry's end, every other tensor from its producer to its last reader (only its producer's
 *    step when nobody reads it).
 *  - AP_RULES_TFLITE: TFLite's ArenaPlanner. Each subgraph is its own arena with its own steps
 *    (op index); graph inputs live the whole run, outputs from producer to the end, and a tensor
 *    nobody reads is never freed (lives to the end).
 *  - AP_RULES_TFLM: TFLite Micro's allocation-info builder (micro_allocation_info.cc): one
 *    timeline of "allocation scopes" (each subgraph entry and each op opens one; subgraph 0 only
 *    is the root, control flow nests), graph inputs from the scope they enter, outputs to the
 *    end of their subgraph, sizes rounded up to 16 bytes. Tensors of subgraphs no op reaches get
 *    TFLite Micro's lifetime [-1, -1], shifted here by +1 like every other time (step 0), so
 *    that requests stay non-negative; the plan is the same.
 */
#ifndef ARENAPLAN_GRAPH_H
#define ARENAPLAN_GRAPH_H

#include "arenaplan/model.h"
#include "arenaplan/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ap_rules { AP_RULES_ARENAPLAN = 0, AP_RULES_TFLITE, AP_RULES_TFLM } ap_rules;
const char *ap_rules_name(ap_rules r);

typedef enum ap_tensor_kind {
  AP_KIND_CONSTANT = 0, /* data in the model's buffers */
  AP_KIND_VARIABLE,     /* is_variable: persistent region */
  AP_KIND_INPUT,        /* an input of its subgraph */
  AP_KIND_OUTPUT,       /* an output of its subgraph (and not an input) */
  AP_KIND_INTERMEDIATE, /* produced and consumed by ops */
  AP_KIND_NONE          /* needs no bytes: zero-sized, an op's `intermediates`, never used */
} ap_tensor_kind;
const char *ap_kind_name(ap_tensor_kind k);

typedef struct ap_graph_options {
  ap_rules rules;
  bool preserve_inputs; /* AP_RULES_ARENAPLAN: graph inputs live to their entry's end */
  /* Optional: every tensor's byte size (model-wide index, as in request ids), for shapes that
   * differ from the model's (resized inputs, shapes computed by kernels). NULL: the model's. */
  const uint64_t *tensor_bytes;
  size_t tensor_bytes_count;
  /* In-place sharing (AP_RULES_ARENAPLAN and AP_RULES_TFLITE; AP_ERR_UNSUPPORTED with
   * AP_RULES_TFLM, which has none): an op's output takes its input's bytes, and the two become
   * one request over the union of their lifetimes (ap_graph_shares names the tensor whose
   * request holds them). Both tensors must be planned intermediates of the same bytes (never a
   * subgraph's input or output, a constant or a variable).
   *  - Views (RESHAPE, SQUEEZE, EXPAND_DIMS, BITCAST) change no byte: the output shares its
   *    input 0 whenever both qualify; its kernel must then copy nothing (src == dst).
   *  - Element-wise ops (ADD, SUB, MUL, DIV, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, SOFTMAX,
   *    RELU, RELU6, LOGISTIC, TANH, LEAKY_RELU, ABS, NEG, SQRT, RSQRT, EXP, LOG, HARD_SWISH,
   *    ELU, LOG_SOFTMAX, PRELU's input 0) write output
   *    element i only after reading element i of each input, so the output may take an input
   *    of the same type and bytes (hence the output's shape) when no tensor sharing that
   *    input's bytes is read after the op, and no other input of the op shares them.
   *    DYNAMIC_UPDATE_SLICE follows the same rule for its operand (input 0): each output
   *    element is the operand's same element or one of the update's.
   *  - With AP_RULES_ARENAPLAN, CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D and MAX_POOL_2D
   *    (NHWC, computed row by row) whose input 0 dies at the op may write their output over
   *    it from far enough below: the problem gets an overlap (plan.h, ap_overlap) of the
   *    input's request into the output's with the least lead the kernel's row order allows.
   * AP_RULES_TFLITE reproduces TFLite's ArenaPlanner instead (IdentifyInPlaceTensors): only
   * the four views and ADD, SUB, MUL, DIV, SOFTMAX; a modifying op shares the first of its
   * inputs 0-2 that is larger than 4 bytes, has its output's bytes and one reader, and whose
   * sharing root has one reader; the shared request lives until the last read of any of its
   * tensors. */
  bool inplace;
  /* Optional, with `inplace`: ops whose CONV_2D, DEPTHWISE_CONV_2D or pool output may not
   * overlap their input (outside streamed segments; views and element-wise sharing stay), by
   * model-wide op index (subgraph 0's ops, then subgraph 1's, ...); ops at or past
   * no_overlap_count may. For kernels that split an op's rows over threads: a thread writing
   * later rows would overwrite input rows another thread has still to read, so an overlapping
   * op runs on one thread. Read during ap_graph_create only. */
  const bool *no_overlap;
  size_t no_overlap_count;
  /* Streamed segments (AP_RULES_ARENAPLAN only; AP_ERR_UNSUPPORTED with the others): a run of
   * consecutive ops of subgraph 0 executed row by row, so that the maps between them never
   * exist whole. Members: CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, MAX_POOL_2D on NHWC
   * maps of batch 1 whose filter and bias are constants (not the hybrids: float maps with int8
   * filters); after the first op, ADD, SUB and MUL of two maps of its output's shape
   * (float32, int8, uint8) whose other input, the skip, is written before the segment and read
   * whole (rows y of both make row y); ADD, SUB and MUL of a map and a constant broadcasting
   * along rows (rank below 3, or rows and batch of 1); the element-wise RELU, RELU6,
   * RELU_N1_TO_1, LOGISTIC, TANH, LEAKY_RELU, HARD_SWISH, CAST, QUANTIZE and DEQUANTIZE of a
   * map into one of its dims (no per-channel scales along rows); and PAD/PADV2 of a 4-D map
   * with constant paddings (none on the batch): output row y is input row y - top or padding.
   * Op k+1 may follow op k in a segment when op k's output is read by op k+1 alone, as its
   * input 0 (or a skip ADD's, SUB's or MUL's input 1), and is an intermediate of the model's
   * own shape. A skip lives to the segment's end like the input. That output is then a
   * ring: the rows op k+1's window needs at once, max over its output rows y of
   *   min(H_in, y * stride - pad + eff) - max(0, y * stride - pad)   (at least 1)
   * with eff = (kernel_h - 1) * dilation + 1 and pad TFLite's top padding, times W x C x the
   * element size (ap_graph_ring_rows). The segment is one step for memory, its last: its
   * input lives to it, its output from it, its rings and its members' scratch over all its
   * ops' steps, so every byte in use while the segment runs is live at its last step. No
   * in-place sharing or overlap inside a segment; with `inplace`, the segment's output may
   * overlap its dying input (an ap_overlap): once the last op has written output row y, the
   * first op reads its input only from row max(0, next * stride - pad) on (next: the next row
   * it computes in the runtime's pull order), and an ADD whose skip is the input from its
   * next row, so the lead is the max over y of (y + 1) * out_row - dead(y) * in_row.
   * Which segments: dynamic programming over subgraph 0's op order minimising the peak of
   * live bytes (scratch not counted) and then their sum, where a segment's steps cost the
   * bytes live there minus its tensors plus its input, output, skips and rings (with
   * `inplace`, input and output as the span of their overlap); a segment is only taken where
   * it raises no step above what it holds unstreamed. The cost of a segment touches only its
   * own steps, so on chains this is exact. On a DAG the op order stays the model's (reorder
   * first, e.g. `plan --reorder --stream`), only chain links qualify, and a tensor with two
   * readers ends a segment unless it is the segment's input read whole again by a skip ADD.
   * Callers that plan (ap_model_plan, the runtime) also plan without segments and keep the
   * smaller arena. */
  bool stream;
} ap_graph_options;

typedef struct ap_graph ap_graph;

/* Builds the timeline and every tensor's lifetime. The model must outlive the graph. */
ap_status ap_graph_create(const ap_model *m, const ap_graph_options *opt, const ap_allocator *a,
                          ap_graph **out);
void ap_graph_destroy(ap_graph *g);
const char *ap_graph_error(const ap_graph *g);

/* Steps on the timeline (for AP_RULES_TFLITE: the largest subgraph's op count). */
size_t ap_graph_step_count(const ap_graph *g);
/* The op run at a step: its subgraph and index. For AP_RULES_TFLM, the subgraph-entry scopes
 * have op == -1. */
ap_status ap_graph_step(const ap_graph *g, size_t step, uint32_t *subgraph, int32_t *op);
/* The step of an op (its first run, for a subgraph called several times); -1 if it never runs. */
int32_t ap_graph_op_step(const ap_graph *g, size_t subgraph, size_t op);

typedef struct ap_lifetime {
  ap_tensor_kind kind;
  bool planned;  /* gets bytes in the arena */
  int32_t first; /* inclusive steps; -1 when the tensor has no lifetime */
  int32_t last;
  uint64_t bytes;      /* the request's size (for AP_RULES_TFLM: rounded up to 16) */
  int32_t producer;    /* step of the op that writes it, -1 if none */
  int32_t last_reader; /* step of the last op that reads it, -1 if none */
} ap_lifetime;
ap_status ap_graph_tensor(const ap_graph *g, size_t subgraph, size_t tensor, ap_lifetime *out);

/* Adds a scratch request of an op (lifetime: that op's step or range). Returns its id. */
ap_status ap_graph_add_scratch(ap_graph *g, size_t subgraph, size_t op, uint64_t bytes,
                               uint64_t *id);

/* The problem of every planned tensor and scratch request. Request ids: a tensor's id is its
 * model-wide index (tensor count of the subgraphs before it + its index); scratch ids follow all
 * tensors. subgraph < 0: the whole model (one arena); otherwise only that subgraph's requests
 * (AP_RULES_TFLITE plans each subgraph as its own arena). */
ap_status ap_graph_problem(const ap_graph *g, int subgraph, uint64_t alignment, ap_problem **out);
/* With in-place sharing: true when tensor `id` (a model-wide index) has no request of its own
 * but uses the bytes of request *root (another tensor's id; follow no chain: it is the root). */
bool ap_graph_shares(const ap_graph *g, uint64_t id, uint64_t *root);
/* Maps a request id back to its tensor; false for scratch ids. */
bool ap_graph_id_tensor(const ap_graph *g, uint64_t id, uint32_t *subgraph, uint32_t *tensor);

/* Streamed segments (ap_graph_options.stream), in op order; at most AP_SEGMENT_MAX_OPS ops
 * each (bounds the search; arenaplan's runtime keeps each member's state in its scratch). */
#define AP_SEGMENT_MAX_OPS 16
typedef struct ap_segment {
  uint32_t subgraph;
  uint32_t first_op, op_count; /* ops first_op .. first_op + op_count - 1 */
  uint64_t ring_bytes;         /* its rings together */
  uint64_t saved;              /* the whole intermediates' bytes minus ring_bytes */
} ap_segment;
size_t ap_graph_segment_count(const ap_graph *g);
ap_status ap_graph_segment(const ap_graph *g, size_t i, ap_segment *out);
/* The ring rule (see `stream` above): rows of a map of in_h rows that a window of kernel_h rows
 * (stride, dilation; TFLite's padding for an output of out_h rows) needs at once; 0 for
 * non-positive arguments. */
uint32_t ap_segment_ring_rows(int32_t in_h, int32_t out_h, int32_t kernel_h, int32_t stride,
                              int32_t dilation);
/* Rows of tensor `id`'s ring (a model-wide index), 0 when it is not a ring (whole). */
uint32_t ap_graph_ring_rows(const ap_graph *g, uint64_t id);
/* Makes ring `id` (a model-wide index) hold `rows` rows, more than the ring rule's and at most
 * its map's `height`: a runner then computes more rows per kernel call (the ring's bytes, its
 * segment's ring_bytes and saved follow). Call before any scratch is added. */
ap_status ap_graph_grow_ring(ap_graph *g, uint64_t id, uint32_t rows, uint32_t height);

#ifdef __cplusplus
}
#endif
#endif
