/* Row-range entry points of the kernels a streamed segment runs (graph.h, `stream`): each
 * computes output rows [r0, r1) only, with the input and the output each either whole or a
 * ring of rows (row y of the map at slot y % ring). They share their loops with the
 * whole-tensor eval (which is the range [0, out_h) with no rings), so every element gets the
 * same arithmetic. Rings need batch 1; the hybrid kinds (which quantize the whole input
 * first) refuse rows with AP_ERR_UNSUPPORTED. */
#ifndef AP_KERNELS_KOPS_STREAM_H
#define AP_KERNELS_KOPS_STREAM_H

#include "kernels/kernels.h"

typedef struct ap_krows {
  int32_t r0, r1;   /* output rows computed */
  int32_t in_ring;  /* rows the input buffer holds; 0: the whole map */
  int32_t out_ring; /* rows the output buffer holds; 0: the whole map */
} ap_krows;

/* Slot of row y (y >= 0) in a buffer of `rows` rows: a compare, not a division, when the
 * buffer holds the whole map. */
#define RING_SLOT(y, rows) ((y) < (rows) ? (y) : (y) % (rows))

/* False when the range or rings do not fit these shapes (NULL rows: the whole map, fits). */
bool ap_krows_fit(const ap_krows *rows, const ap_ktensor *input, const ap_ktensor *output);

ap_status ap_conv_eval_rows(const ap_conv_params *p, const ap_ktensor *input,
                            const ap_ktensor *filter, const ap_ktensor *bias, ap_ktensor *output,
                            void *scratch, const ap_krows *rows);
ap_status ap_depthwise_eval_rows(const ap_conv_params *p, const ap_ktensor *input,
                                 const ap_ktensor *filter, const ap_ktensor *bias,
                                 ap_ktensor *output, void *scratch, const ap_krows *rows);
/* PAD of a 4-D map (no batch padding): rows of the output, each the input row `top` above it or
 * all padding. */
ap_status ap_pad_eval_rows(const ap_pad_params *p, const ap_ktensor *input, ap_ktensor *output,
                           const ap_krows *rows);
ap_status ap_pool_eval_rows(const ap_pool_params *p, const ap_ktensor *input, ap_ktensor *output,
                            const ap_krows *rows);
/* The int8 and uint8 kinds only (float32 and int16: AP_ERR_UNSUPPORTED), for a registration
 * without those types. */
ap_status ap_pool_eval_rows_8bit(const ap_pool_params *p, const ap_ktensor *input,
                                 ap_ktensor *output, const ap_krows *rows);

#endif
