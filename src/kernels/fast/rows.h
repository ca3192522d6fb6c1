/* Row-range entry points of the fast kernels, for streamed segments (kernels/kops_stream.h:
 * output rows [r0, r1), input and output each whole or a ring of rows, row y at slot
 * y % ring). They call the same level functions as the whole-tensor drivers, so every output
 * byte is the reference's.
 *
 * A segment computes a member's rows in many calls, so the work a whole-tensor eval does once
 * per call (per-channel multipliers, packed weights) is split off into *_begin, run once per
 * segment run before any rows. The depthwise and float convolution levels read a window of
 * input rows as one block of memory: a window that wraps around its ring is first copied to
 * a staging area in the scratch (in_ring rows). One thread: a segment's calls are a few rows
 * each, too small to split.
 *
 * *_scratch: false when the fast path does not apply (the reference rows run); else, for an
 * input ring of in_ring rows (0: whole), the bytes kept from *_begin to the last *_rows call
 * (`keep`: multipliers, packed weights) and those one *_rows call uses and leaves (`temp`:
 * patch rows, sums, staging), which a segment shares between its members. *_begin and *_rows
 * take those areas (AP_KSCRATCH_ALIGN-aligned) and the same shapes and ring. */
#ifndef AP_KERNELS_FAST_ROWS_H
#define AP_KERNELS_FAST_ROWS_H

#include "kernels/fast/fastops.h"
#include "kernels/kops_stream.h"

/* Packed weights (the level's outer kit) above this many bytes, and above a third of the
 * output map's, are not worth their memory in a segment: the kit reading weights in place runs
 * instead. */
#define AP_FAST_ROWS_PACKED_MAX 4096

/* CONV_2D: int8 (per channel, a matrix product over rows of patches) or float32. */
bool ap_fast_conv_rows_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                               const ap_ktensor *f, int32_t in_ring, size_t *keep, size_t *temp);
ap_status ap_fast_conv_rows_begin(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                                  const ap_ktensor *f, const ap_ktensor *bias, int32_t in_ring,
                                  void *keep);
ap_status ap_fast_conv_rows(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                            const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                            void *keep, void *temp, const ap_krows *rows);

/* DEPTHWISE_CONV_2D int8 (per channel). */
bool ap_fast_dw_rows_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                             const ap_ktensor *f, int32_t in_ring, size_t *keep, size_t *temp);
ap_status ap_fast_dw_rows_begin(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                                const ap_ktensor *f, int32_t in_ring, void *keep);
ap_status ap_fast_dw_rows(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                          const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *keep,
                          void *temp, const ap_krows *rows);

/* Float DEPTHWISE_CONV_2D and the pools (int8, uint8, int16, float32) on the level's kernels
 * (rows_block.c): nothing kept; temp: the staging of one window wrapping around its ring. */
bool ap_fast_fdw_rows_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                              const ap_ktensor *f, int32_t in_ring, size_t *temp);
ap_status ap_fast_fdw_rows(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                           const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *temp,
                           const ap_krows *rows);
bool ap_fast_pool_rows_scratch(const ap_kexec *x, const ap_pool_params *p, const ap_ktensor *in,
                               int32_t in_ring, size_t *temp);
ap_status ap_fast_pool_rows(const ap_kexec *x, const ap_pool_params *p, const ap_ktensor *in,
                            ap_ktensor *out, void *temp, const ap_krows *rows);

/* The float convolution, float depthwise and pool rows above with their checks and constants
 * worked out once per segment run (*_ready, after *_begin): a segment calls a member for a row or
 * two at a time, and on the tiny models whose invoke is a few microseconds those per-call
 * costs were the streamed invoke's overhead. The views' data, shapes and the input ring must
 * stay as at *_ready until the run ends; ap_fast_block_rows_run then computes what the
 * matching *_rows would, from the same blocks (temp: the same staging). *_ready: false where
 * the *_rows function would not apply or refuse these arguments. */
typedef struct ap_fast_block_rows {
  uint8_t kind;
  bool any_wrap; /* a block wrapping around the input ring is staged whole (float convolution),
                  * else cut at the wrap */
  int32_t stride, pad, eff, in_h, out_h, in_ring, out_ring;
  uint64_t in_mod, out_mod; /* the rings' slots by multiplication (rows_block.c) */
  size_t in_row, out_row;
  const uint8_t *in;
  uint8_t *out;
  const ap_fast_level *l;
  union {
    ap_fdw dw;
    ap_fconv conv;
    ap_fpool fpool;
    ap_qpool qpool;
  } c;
} ap_fast_block_rows;

bool ap_fast_fconv_rows_ready(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                              const ap_ktensor *f, const ap_ktensor *bias, const ap_ktensor *out,
                              const void *keep, const ap_krows *rings, ap_fast_block_rows *b);
bool ap_fast_fdw_rows_ready(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                            const ap_ktensor *f, const ap_ktensor *bias, const ap_ktensor *out,
                            const ap_krows *rings, ap_fast_block_rows *b);
bool ap_fast_pool_rows_ready(const ap_kexec *x, const ap_pool_params *p, const ap_ktensor *in,
                             const ap_ktensor *out, const ap_krows *rings, ap_fast_block_rows *b);
/* Output rows [rows->r0, rows->r1) (its rings those of *_ready's `rings`, whose r0 and r1 are not
 * read); AP_ERR_KERNEL where the level's
 * pool refuses (an average over no taps, as the reference). */
ap_status ap_fast_block_rows_run(const ap_fast_block_rows *b, void *temp, const ap_krows *rows);

/* TFLite's legacy uint8 DEPTHWISE_CONV_2D (rows_block.c; temp: the level's workspace, then the
 * staging; nothing kept). */
bool ap_fast_u8dw_rows_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                               const ap_ktensor *f, int32_t in_ring, size_t *temp);
ap_status ap_fast_u8dw_rows(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                            const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                            void *temp, const ap_krows *rows);

/* TFLite's legacy uint8 CONV_2D (rows_u8.c): the whole-tensor driver's product (u8_conv.c) on
 * weights as `how` says, where the level has a packed product and the map has at least 128
 * output pixels (else read in place): kept: the packed weights, packed by *_begin; temp: mr
 * patch rows, then the weights packed at each call. *_rows takes the same `how`. */
enum {
  AP_FAST_PACK_ONCE = 1,  /* packed once per segment run, kept (0: in place) */
  AP_FAST_PACK_EACH = 2,  /* packed at each call, in its scratch */
  AP_FAST_PACK_BUDGET = 4 /* in place where packing once takes more than AP_FAST_ROWS_PACKED_MAX
                           * and a third of the output map */
};
bool ap_fast_u8conv_rows_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                                 const ap_ktensor *f, unsigned how, size_t *keep, size_t *temp);
ap_status ap_fast_u8conv_rows_begin(const ap_kexec *x, const ap_conv_params *p,
                                    const ap_ktensor *in, const ap_ktensor *f, unsigned how,
                                    void *keep);
ap_status ap_fast_u8conv_rows(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                              const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                              unsigned how, const void *keep, void *temp, const ap_krows *rows);

/* int8 CONV_2D and DEPTHWISE_CONV_2D (depth multiplier 1) through the level's direct kits
 * (conv_win.h; rows_win.c), where the level has them and the packed weights fit the budget above.
 * *_begin keeps the plan with the packed weights (temp: the rows' scratch, used while packing),
 * so ap_fast_win_rows takes no kexec: false when
 * keep holds no such plan, else *s is its status. */
enum {
  AP_FAST_WIN_DW = 1,     /* DEPTHWISE_CONV_2D (else CONV_2D) */
  AP_FAST_WIN_EACH = 2,   /* the weights packed at each call, in its scratch (else once, kept) */
  AP_FAST_WIN_BUDGET = 4, /* refused where packing once takes more than AP_FAST_ROWS_PACKED_MAX
                           * and a third of the output map */
  AP_FAST_WIN_OWN = 8     /* *_begin only: temp (and AP_FAST_WIN_OWN_BYTES past its rounded
                           * size) is this member's alone from *_begin to its last *_rows call,
                           * which then keep window rows over calls (and EACH's weights are
                           * packed into it once) */
};
#define AP_FAST_WIN_OWN_BYTES 64
bool ap_fast_win_rows_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                              const ap_ktensor *f, unsigned how, size_t *keep, size_t *temp);
ap_status ap_fast_win_rows_begin(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                                 const ap_ktensor *f, const ap_ktensor *bias, unsigned how,
                                 void *keep, void *temp);
bool ap_fast_win_rows(const ap_conv_params *p, const ap_ktensor *in, const ap_ktensor *f,
                      ap_ktensor *out, void *keep, void *temp, const ap_krows *rows, ap_status *s);

#endif
