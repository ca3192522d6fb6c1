/* The kernels a streamed segment's members run (runtime/stream.c), handed over by the
 * registration (registry.c) rather than called by name: a firmware's generated registration
 * (scripts/mcu_kernels.py) fills in only its model's ops and kernel path, so a board links
 * neither the row kernels of ops it does not have nor the reference rows when the fast ones
 * cover every member. A NULL entry is a kind the registration leaves out: a member needing it
 * is refused with a status when the interpreter is created, never run another way. */
#ifndef AP_KERNELS_STREAM_KERNELS_H
#define AP_KERNELS_STREAM_KERNELS_H

#include "kernels/fast/conv_win.h"
#include "kernels/fast/dsp.h"
#include "kernels/fast/rows.h"

#define AP_KSTREAM_WIN AP_FAST_DIRECT
#define AP_KSTREAM_BLOCK (!AP_FAST_DSP_ONLY)

typedef ap_status (*ap_kstream_conv_prepare)(const ap_conv_options *o, const ap_ktensor *input,
                                             const ap_ktensor *filter, const ap_ktensor *bias,
                                             ap_ktensor *output, ap_conv_params *p, ap_errbuf *err);
typedef ap_status (*ap_kstream_conv_rows)(const ap_conv_params *p, const ap_ktensor *input,
                                          const ap_ktensor *filter, const ap_ktensor *bias,
                                          ap_ktensor *output, void *scratch, const ap_krows *rows);
typedef bool (*ap_kstream_fast_scratch)(const ap_kexec *x, const ap_conv_params *p,
                                        const ap_ktensor *in, const ap_ktensor *f, int32_t in_ring,
                                        size_t *keep, size_t *temp);
typedef ap_status (*ap_kstream_fast_rows)(const ap_kexec *x, const ap_conv_params *p,
                                          const ap_ktensor *in, const ap_ktensor *f,
                                          const ap_ktensor *bias, ap_ktensor *out, void *keep,
                                          void *temp, const ap_krows *rows);
typedef bool (*ap_kstream_fast_add)(const ap_kexec *x, const ap_binary_params *p,
                                    const ap_ktensor *a, const ap_ktensor *b, ap_ktensor *out,
                                    ap_status *s);

typedef ap_status (*ap_kstream_block_rows)(const ap_kexec *x, const ap_conv_params *p,
                                           const ap_ktensor *in, const ap_ktensor *f,
                                           const ap_ktensor *bias, ap_ktensor *out, void *temp,
                                           const ap_krows *rows);

/* Element-wise members and ADD with a skip run the runtime's own member code
 * (runtime/stream.c), reached through here too so that only a model with such ops links it. */
struct rt_stream_kind;
extern const struct rt_stream_kind rt_stream_elem, rt_stream_add;

typedef struct ap_kstream {
  /* CONV_2D and DEPTHWISE_CONV_2D: prepare, the reference rows, the fast rows */
  ap_kstream_conv_prepare conv_prepare, dw_prepare;
  ap_kstream_conv_rows conv_rows, dw_rows;
  ap_kstream_fast_scratch conv_fast_scratch, dw_fast_scratch;
  ap_status (*conv_fast_begin)(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                               const ap_ktensor *f, const ap_ktensor *bias, int32_t in_ring,
                               void *keep);
  ap_status (*dw_fast_begin)(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                             const ap_ktensor *f, int32_t in_ring, void *keep);
  ap_kstream_fast_rows conv_fast_rows, dw_fast_rows;
  /* AVERAGE_POOL_2D, MAX_POOL_2D */
  ap_status (*pool_prepare)(int kind, const ap_pool_options *o, const ap_ktensor *input,
                            ap_ktensor *output, ap_pool_params *p, ap_errbuf *err);
  ap_status (*pool_rows)(const ap_pool_params *p, const ap_ktensor *input, ap_ktensor *output,
                         const ap_krows *rows);
  /* PAD, PADV2 */
  ap_status (*pad_prepare)(const ap_ktensor *input, const ap_ktensor *paddings,
                           const ap_ktensor *constant, ap_ktensor *output, ap_pad_params *p,
                           ap_errbuf *err);
  ap_status (*pad_rows)(const ap_pad_params *p, const ap_ktensor *input, ap_ktensor *output,
                        const ap_krows *rows);
  /* ADD with a skip read whole: prepare, the reference row, the fast 8-bit and float rows */
  ap_status (*add_prepare)(int op, int activation, const ap_ktensor *input1,
                           const ap_ktensor *input2, ap_ktensor *output, ap_binary_params *p,
                           ap_errbuf *err);
  ap_status (*add_eval)(const ap_binary_params *p, const ap_ktensor *input1,
                        const ap_ktensor *input2, ap_ktensor *output);
  ap_kstream_fast_add add_fast, fadd_fast;
  /* the runtime's members: element-wise ops (segment.c's list; ADD, SUB, MUL with a constant)
   * and ADD with a skip */
  const struct rt_stream_kind *elem_member, *add_member;
  /* Kinds that exist only on some targets, last so that the fields above keep their places:
   * the direct kits (x86-64), the uint8, float depthwise and pool rows (not on a DSP core's
   * build: kernels/fast/dsp.h). */
#if AP_KSTREAM_WIN
  /* int8 CONV_2D and DEPTHWISE_CONV_2D on the level's direct kits (rows_win.c; x86 only) */
  bool (*win_scratch)(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                      const ap_ktensor *f, unsigned how, size_t *keep, size_t *temp);
  ap_status (*win_begin)(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                         const ap_ktensor *f, const ap_ktensor *bias, unsigned how, void *keep,
                         void *temp);
  bool (*win_rows)(const ap_conv_params *p, const ap_ktensor *in, const ap_ktensor *f,
                   ap_ktensor *out, void *keep, void *temp, const ap_krows *rows, ap_status *s);
#endif
#if AP_KSTREAM_BLOCK
  /* uint8 CONV_2D and DEPTHWISE_CONV_2D, float DEPTHWISE_CONV_2D (rows_u8.c, rows_block.c) */
  bool (*u8conv_scratch)(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                         const ap_ktensor *f, unsigned how, size_t *keep, size_t *temp);
  ap_status (*u8conv_begin)(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                            const ap_ktensor *f, unsigned how, void *keep);
  ap_status (*u8conv_rows)(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                           const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                           unsigned how, const void *keep, void *temp, const ap_krows *rows);
  bool (*u8dw_scratch)(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                       const ap_ktensor *f, int32_t in_ring, size_t *temp);
  bool (*fdw_scratch)(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                      const ap_ktensor *f, int32_t in_ring, size_t *temp);
  ap_kstream_block_rows u8dw_rows, fdw_rows;
  bool (*pool_fast_scratch)(const ap_kexec *x, const ap_pool_params *p, const ap_ktensor *in,
                            int32_t in_ring, size_t *temp);
  ap_status (*pool_fast_rows)(const ap_kexec *x, const ap_pool_params *p, const ap_ktensor *in,
                              ap_ktensor *out, void *temp, const ap_krows *rows);
  /* the float convolution, float depthwise and pool rows above laid out once per run (rows.h) */
  bool (*fconv_ready)(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                      const ap_ktensor *f, const ap_ktensor *bias, const ap_ktensor *out,
                      const void *keep, const ap_krows *rings, ap_fast_block_rows *b);
  bool (*fdw_ready)(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                    const ap_ktensor *f, const ap_ktensor *bias, const ap_ktensor *out,
                    const ap_krows *rings, ap_fast_block_rows *b);
  bool (*pool_ready)(const ap_kexec *x, const ap_pool_params *p, const ap_ktensor *in,
                     const ap_ktensor *out, const ap_krows *rings, ap_fast_block_rows *b);
  ap_status (*block_run)(const ap_fast_block_rows *b, void *temp, const ap_krows *rows);
#endif
} ap_kstream;

/* The registration's (registry.c; never NULL). */
const ap_kstream *ap_kernel_stream(void);

#endif
