/* Direct int8 convolution over windows (a level's ap_fast_level.conv; conv_win.c drives it).
 *
 * No patch rows: the driver converts the input rows an output row needs into a window of
 * unsigned bytes (input + 128, the sign bit flipped; padding holds the zero point + 128, and
 * channels are padded to a multiple of 4), and the level's kernel reads each tap of each output
 * pixel from the window at a fixed offset. The level multiplies unsigned window bytes with
 * signed weights (vpdpbusd: four products per int32 lane, wrapping as the reference's sums);
 * the 128 the window adds comes back through each channel's weight sum in col_bias:
 *   sum (x + in_off) * w = sum (x + 128) * w + (in_off - 128) * sum w   (modulo 2^32),
 * and a padded position, holding 128 - in_off, adds (128 - in_off - 128 + in_off) * w = 0, as
 * the reference's skipped tap. */
#ifndef AP_KERNELS_FAST_CONV_WIN_H
#define AP_KERNELS_FAST_CONV_WIN_H

#include "kernels/fast/fast.h"

#include <stddef.h>

/* One convolution's constants for the level's kernel. */
typedef struct ap_qconv {
  int32_t n, taps, cq;     /* output channels, filter taps (f_h * f_w), input channel quads */
  const void *packed;      /* the kit's packing of the weights */
  const int32_t *col_bias; /* n: bias + (in_off - 128) * sum of the channel's weights */
  const int32_t *mult, *shift;
  int32_t out_off, act_min, act_max;
} ap_qconv;

typedef struct ap_conv_kit {
  /* Bytes of the packing of n channels of taps x (4 * cq) weights. */
  size_t (*packed_bytes)(int32_t n, int32_t taps, int32_t cq);
  /* Packs w, [n][taps][c] (the model's layout), zeros past c up to 4 * cq and past n; fills
   * col_bias (bias NULL: 0). */
  void (*pack)(const int8_t *w, int32_t n, int32_t taps, int32_t c, int32_t cq, const int32_t *bias,
               int32_t in_off, void *packed, int32_t *col_bias);
  /* count output pixels: pixel i's tap t is the 4 * cq bytes at win + i * step + toff[t]; its
   * n outputs go to out + i * n. */
  void (*run)(const ap_qconv *q, const uint8_t *win, const ptrdiff_t *toff, int32_t count,
              size_t step, int8_t *out);
  /* pixels input pixels of c channels into window pixels of cp >= c bytes (input + 128, zeros
   * past c); NULL: the driver's portable loop. */
  void (*fill)(uint8_t *dst, const int8_t *src, int32_t pixels, int32_t c, int32_t cp);
  /* Channels per packed block: packing channels [c0, c1) of w, c0 a multiple of it and c1 one
   * or n, at packed + packed_bytes(c0, ...) with col_bias + c0 gives the whole packing's bytes
   * (so threads pack blocks apart). */
  int32_t pack_block;
} ap_conv_kit;

/* Depthwise over the same windows, whose channels are the output channels (each input channel
 * repeated depth-multiplier times). ap_qconv: n channels, taps = f_h * f_w, cq = f_w. */
typedef struct ap_dw_kit {
  size_t (*packed_bytes)(int32_t c, int32_t f_h, int32_t f_w);
  /* f: [f_h][f_w][c] (the model's layout); packs the weights and whatever else the kernel
   * needs per channel (bias NULL: 0; mult, shift: c). */
  void (*pack)(const int8_t *f, int32_t c, int32_t f_h, int32_t f_w, const int32_t *bias,
               int32_t in_off, const int32_t *mult, const int32_t *shift, void *packed);
  /* As ap_conv_kit.run, the window holding c channels per pixel (scratch is 16-byte aligned,
   * and nothing is readable past a window row). */
  void (*run)(const ap_qconv *q, const uint8_t *win, const ptrdiff_t *toff, int32_t count,
              size_t step, int8_t *out);
  /* As ap_conv_kit.fill (called with cp == c). */
  void (*fill)(uint8_t *dst, const int8_t *src, int32_t pixels, int32_t c, int32_t cp);
  /* As pack, blocks [b0, b1) of pack_block channels only (mult, shift: those channels' are
   * read), so threads pack blocks apart; NULL: none. */
  void (*pack_blocks)(const int8_t *f, int32_t c, int32_t f_h, int32_t f_w, const int32_t *bias,
                      int32_t in_off, const int32_t *mult, const int32_t *shift, void *packed,
                      int32_t b0, int32_t b1);
  int32_t pack_block;
  /* A depth multiplier's window bytes: pixels x c input bytes, each flipped (+128) and
   * repeated cp / c times (cp a multiple of c); NULL: the driver's portable loop. */
  void (*fill_rep)(uint8_t *dst, const int8_t *src, int32_t pixels, int32_t c, int32_t cp);
} ap_dw_kit;

/* The driver, called first by ap_fast_conv_scratch/eval (false: it does not apply). `other`:
 * the scratch of the path it would replace (0: none). A depthwise window path takes at most the
 * larger of that and a quarter of the op's input and output bytes (the other path's scratch is
 * small, and where the maps are small next to the weights and rows, as in micro_speech and
 * mlperf_sww, the arena would grow); a convolution's is bounded by its pixel and weight
 * thresholds instead. */
/* Whether a level with direct kits can exist here (the x86-64 levels): elsewhere the drivers
 * never call into conv_win.c, so a microcontroller links none of it. */
#ifdef AP_FAST_X86
#define AP_FAST_DIRECT 1
#else
#define AP_FAST_DIRECT 0
#endif

bool ap_fast_convw_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                           const ap_ktensor *f, size_t other, size_t *scratch);
bool ap_fast_convw_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                        const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                        size_t other, ap_status *s);
/* The same for DEPTHWISE_CONV_2D, called first by ap_fast_dw_scratch/eval. */
bool ap_fast_dwin_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                          const ap_ktensor *f, size_t other, size_t *scratch);
bool ap_fast_dwin_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                       const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                       size_t other, ap_status *s);

#if defined(__x86_64__) || defined(_M_X64)
extern const ap_conv_kit ap_fast_avx512_conv;
extern const ap_dw_kit ap_fast_avx512_dw;
void ap_fast_avx512_add(const ap_binary_params *p, const void *a, const void *b, void *out,
                        size_t n, bool is_unsigned);
void ap_fast_avx512_fc(const ap_qfc *f, int32_t u0, int32_t u1);
void ap_fast_avx512_fill(uint8_t *dst, const int8_t *src, int32_t pixels, int32_t c, int32_t cp);
#endif

#endif
