/* An int8 convolution product with weights read in place at the direct kits' speed (branch
 * stream6): what a segment member runs where the arena leaves no room to pack its weights. */
#ifndef AP_KERNELS_KOPS_STREAM6_H
#define AP_KERNELS_KOPS_STREAM6_H

#include "kernels/fast/fast.h"
#include "kernels/kops_stream.h"

/* Pixel i's patch: its k signed bytes in the weights' order ([f_h][f_w][c]; padding holds the
 * zero point, -in_off), in place or built into buf (k bytes, buf 64-byte aligned). */
typedef const int8_t *(*ap_fast_patch_fn)(void *ctx, int32_t i, int8_t *buf);

/* The largest k the kernel takes: its tile of 16 patches is on the stack (16 KiB). */
enum { AP_FAST_CONV16_MAX_K = 1024 };

/* A tile's patches described by input rows (a convolution with dilation_w 1): pixel i's taps of
 * filter row fy are the f_w * c bytes of row[fy] from column x0 + i * stride (NULL: a padding
 * row; columns outside [0, in_w): padding), padding holding pad (the zero point, -in_off). */
enum { AP_FAST_CONV16_MAX_FH = 16 };
typedef struct ap_fast_conv16_rows {
  const int8_t *row[AP_FAST_CONV16_MAX_FH];
  int32_t f_h, f_w, c, in_w, x0, stride;
  int8_t pad;
} ap_fast_conv16_rows;

/* A segment's depthwise rows through the level's window kit with its packing and windows on
 * the stack (kernels/fast/rows_win.c; defined where AP_FAST_DIRECT only: callers guard it, so a
 * microcontroller links none of it). mult, shift: the output channels' multipliers. False: it
 * does not apply (then *s is untouched). */
bool ap_fast_win_dw_stack(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                          const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                          const int32_t *mult, const int32_t *shift, const ap_krows *rows,
                          ap_status *s);

#if defined(__x86_64__) || defined(_M_X64)
/* count (1..16) output pixels, pixel i's n outputs at out + i * out_stride. g: as the AVX-512
 * level's gemm kit (weights [n][k] read in place, its col_bias: bias + (in_off - 128) * sum w),
 * g->k <= AP_FAST_CONV16_MAX_K. Pixels in lanes: the 16 patches are transposed into quads of
 * 16 pixels, each output channel's weight quad broadcast into vpdpbusd. */
void ap_fast_avx512_conv16(const ap_qgemm *g, ap_fast_patch_fn patch, void *ctx, int32_t count,
                           int8_t *out, size_t out_stride);
/* The same with the patches built from rows (f_h * f_w * c == g->k), with masked loads: no
 * call and no copy per pixel and tap row. */
void ap_fast_avx512_conv16_rows(const ap_qgemm *g, const ap_fast_conv16_rows *r, int32_t count,
                                int8_t *out, size_t out_stride);
/* The AVX-512 level's depthwise rows (ap_fast_level.dw; the AVX2 kernel's workspace). */
void ap_fast_avx512_dwrows(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws);
#endif

#endif
