/* What the reorder search needs of one subgraph: its ops' dependencies and, per planned tensor,
 * who makes it live and who frees it. Lists are CSR: the items of x are x[x_at[i] ..
 * x_at[i + 1]). Ops are the subgraph's op indices; tensors are local (planned ones only). */
#ifndef AP_SRC_GRAPH_REORDER_INTERNAL_H
#define AP_SRC_GRAPH_REORDER_INTERNAL_H

#include "graph/graph_internal.h"

typedef struct rdag {
  uint32_t n;                 /* ops */
  uint32_t *pred_at, *pred;   /* ops that must run before */
  uint32_t *succ_at, *succ;   /* ops that must run after */
  uint32_t *out_at, *out;     /* planned tensors an op writes */
  uint32_t *touch_at, *touch; /* planned tensors an op reads or writes */
  uint32_t t;                 /* planned tensors */
  uint64_t *size;             /* aligned bytes */
  uint8_t *keep;              /* never freed (graph outputs, a called subgraph's I/O) */
  uint32_t *prod_at, *prod;   /* ops that write it; none: live from the start */
  uint32_t *use_at, *use;     /* ops that read or write it: it is freed after the last */
  uint64_t *inner;            /* per op: bytes of the subgraphs a control-flow op runs */
  uint64_t *base;             /* per op: bytes live at its step in any order (its tensors...) */
  uint64_t live0;             /* live before the first op */
  uint64_t unread_bytes;      /* graph inputs nobody reads: live at the first step only */
  uint64_t floor;             /* no order's peak is lower */
} rdag;

ap_status rdag_build(const ap_graph *g, size_t sg, uint64_t alignment, const ap_allocator *a,
                     rdag *d, ap_errbuf *err);
void rdag_free(rdag *d, const ap_allocator *a);
/* reorder.c: the bytes live while op v runs after the ops in the bit set `key` (*mem), and
 * after it (*after); `empty`: key is empty (unread graph inputs are freed after that step). */
void rdag_step(const rdag *d, const uint64_t *key, bool empty, uint64_t live, uint32_t v,
               uint64_t *mem, uint64_t *after);
/* reorder_local.c: improves a valid `order` of d's ops by moving single ops across its peak
 * step, at most max_evals evaluations of an order; *peak becomes the new order's peak. */
ap_status reorder_local(const rdag *d, const ap_allocator *a, uint64_t max_evals, uint32_t *order,
                        uint64_t *peak);

#endif
