/* arenaplan report: a model's plan in one call (lifetimes + problem + strategy), and the
 * figures every report shows. */
#ifndef ARENAPLAN_REPORT_H
#define ARENAPLAN_REPORT_H

#include "arenaplan/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ap_model_plan_options {
  const char *strategy;   /* NULL: "best" */
  ap_rules rules;         /* whose lifetimes */
  bool preserve_inputs;
  uint64_t alignment;     /* 0: 16 */
  int subgraph;           /* -1: the whole model; K: only subgraph K */
  double budget_seconds;  /* for "exact" */
} ap_model_plan_options;

/* Options for arenaplan's default plan: strategy "best", our rules, 16-byte alignment. */
ap_model_plan_options ap_model_plan_defaults(void);
/* What a runtime would need for this model: TFLite's ArenaPlanner (its rules and strategy,
 * 64-byte alignment) or TFLite Micro's GreedyMemoryPlanner (its rules and strategy, 16). */
ap_model_plan_options ap_model_plan_tflite(void);
ap_model_plan_options ap_model_plan_tflm(void);

typedef struct ap_model_plan ap_model_plan;

/* Plans a model. On failure *out still holds the message (unless out of memory). A model
 * planned under TFLite's rules with several subgraphs has one part per subgraph (TFLite gives
 * each its own arena); every other plan has one part. */
ap_status ap_model_plan_create(const ap_model *m, const ap_model_plan_options *opt,
                               const ap_allocator *a, ap_model_plan **out);
void ap_model_plan_destroy(ap_model_plan *mp);
const char *ap_model_plan_error(const ap_model_plan *mp);
const ap_graph *ap_model_plan_graph(const ap_model_plan *mp);
size_t ap_model_plan_parts(const ap_model_plan *mp);
const ap_problem *ap_model_plan_problem(const ap_model_plan *mp, size_t part);
const ap_plan *ap_model_plan_plan(const ap_model_plan *mp, size_t part);
/* Sums over the parts. */
uint64_t ap_model_plan_arena(const ap_model_plan *mp);
uint64_t ap_model_plan_lower_bound(const ap_model_plan *mp);
double ap_model_plan_time_ms(const ap_model_plan *mp);
size_t ap_model_plan_requests(const ap_model_plan *mp);
size_t ap_model_plan_reused(const ap_model_plan *mp);
bool ap_model_plan_optimal(const ap_model_plan *mp);
/* The offset of a tensor in its part's arena; false if the tensor is not planned. */
bool ap_model_plan_tensor_offset(const ap_model_plan *mp, size_t subgraph, size_t tensor,
                                 uint64_t *offset);

/* Bytes of the model's weights: the distinct buffers that constant tensors use, as stored
 * (variables' initial values and metadata are not weights). *buffers (may be NULL) receives
 * how many buffers that is. */
uint64_t ap_model_weight_bytes(const ap_model *m, size_t *buffers);
/* Bytes of the inputs and outputs of subgraph sg. */
uint64_t ap_model_input_bytes(const ap_model *m, size_t sg);
uint64_t ap_model_output_bytes(const ap_model *m, size_t sg);

#ifdef __cplusplus
}
#endif
#endif
