/* arenaplan reorder: an execution order of each subgraph that lowers the peak of live bytes.
 *
 *   ap_reorder *r;
 *   if (ap_reorder_create(model, NULL, NULL, &r) != AP_OK) fprintf(stderr, "%s\n",
 *                                                                  ap_reorder_error(r));
 *   size_t n;
 *   const uint32_t *order = ap_reorder_order(r, &n);   // for ap_model_patch_order
 *   ap_reorder_destroy(r);
 *
 * The lower bound of a plan is the peak over steps of the live bytes, and the steps follow the
 * model's operator order: no strategy can go below it. A different valid order can. The
 * objective is that peak under arenaplan's lifetime rules (ap_graph, AP_RULES_ARENAPLAN: a
 * tensor lives from its producer to its last reader, graph outputs to the end), sizes rounded
 * up to the alignment, as ap_problem_lower_bound counts them.
 *
 * Search: dynamic programming over the sets of executed ops (each set closed under
 * dependencies; Liberis & Lane 2019): a set's best peak is the smallest over the ways to reach
 * it, and what is live after it depends on the set alone. It runs one layer of sets per step,
 * keeps only sets whose peak so far stays below the stored order's peak (so a stored order
 * that is already optimal is proven so by an empty layer), and is exact while every layer
 * fits its width. Past that a layer keeps its best sets (lowest peak, then lowest live bytes)
 * and the result is a heuristic (a beam search). Widths 16, 64, 256, ... up to `beam_width`
 * are tried while the time budget allows the next (about 4x the last); the first, narrowest
 * search always runs to its end, so a result never depends on the machine's speed at width
 * 16. The first layer a search cuts bounds the optimum from below (floor). Before any search,
 * a stored order whose peak equals the floor (the largest bytes any single op touches, with
 * what is always live) is optimal.
 *
 * Dependencies kept: an op that reads a tensor after another writes it, a write after reads
 * and writes of the same tensor; and ops that touch variable tensors, RESOURCE or VARIANT
 * tensors, control flow (WHILE, IF, CALL_ONCE), resource-variable ops and custom ops keep
 * their relative order (their effects are not visible as tensors). A control-flow op's peak
 * includes its called subgraphs' bytes as the stored order has them. A subgraph keeps its
 * stored order unless the search found a strictly lower peak.
 */
#ifndef ARENAPLAN_REORDER_H
#define ARENAPLAN_REORDER_H

#include "arenaplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ap_reorder_options {
  uint64_t alignment;    /* 0: 16 */
  size_t beam_width;     /* sets kept per step; 0: 4096 */
  double budget_seconds; /* per subgraph, for widths past the first; 0: 2 */
} ap_reorder_options;

typedef struct ap_reorder_subgraph {
  size_t ops;
  uint64_t peak_before; /* the stored order's peak of live bytes */
  uint64_t peak_after;  /* the order found (== peak_before when unchanged) */
  uint64_t floor;       /* no order has a lower peak (== peak_after when exact) */
  bool exact;           /* peak_after is the optimum */
  bool changed;         /* the order differs from the stored one */
  uint64_t states;      /* sets of executed ops visited */
  double ms;
} ap_reorder_subgraph;

typedef struct ap_reorder ap_reorder;

/* Finds the orders. On failure *out still holds the message (NULL only when out of memory). */
ap_status ap_reorder_create(const ap_model *m, const ap_reorder_options *opt, const ap_allocator *a,
                            ap_reorder **out);
void ap_reorder_destroy(ap_reorder *r);
const char *ap_reorder_error(const ap_reorder *r);

size_t ap_reorder_subgraph_count(const ap_reorder *r);
ap_status ap_reorder_subgraph_info(const ap_reorder *r, size_t sg, ap_reorder_subgraph *out);
/* Every subgraph's order, concatenated: entry base + k is the index of the op that runs k-th
 * in its subgraph (base = op count of the subgraphs before). *count: all ops. */
const uint32_t *ap_reorder_order(const ap_reorder *r, size_t *count);
/* True when any subgraph's order changed. */
bool ap_reorder_changed(const ap_reorder *r);
/* "exact" when every subgraph's result is exact, else "heuristic". */
const char *ap_reorder_method(const ap_reorder *r);

#ifdef __cplusplus
}
#endif
#endif
