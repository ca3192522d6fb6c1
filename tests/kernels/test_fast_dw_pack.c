/* The AVX-512 depthwise kit's per-channel constants and its depth-multiplier window rows
 * (kernels/fast/dw_avx512.c) against the layouts written out by hand: per 64-channel block, lane
 * l of constant vector j is the block's byte 16 (l / 4) + 4 j + l % 4, whose channel is that
 * byte (channels past c: zeros) or, for c dividing 64, that byte modulo c; a window row repeats
 * each flipped input byte cp / c times and writes nothing past its end. Channel counts 1 to
 * 130 (whole, grouped and partial blocks), filters 3x3 and 5x5 (two tap groups), no bias, input
 * offsets at both ends; multipliers 2, 3, 4, 8 over run lengths around each vector's unit. */
#include "kernels/fast/conv_win.h"
#include "port/port.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)
static uint64_t rng = 4242;

static void check_pack(int32_t c, int32_t fh, int32_t fw, bool with_bias, int32_t in_off) {
  const ap_dw_kit *k = &ap_fast_avx512_dw;
  int32_t taps = fh * fw;
  int8_t *f = malloc((size_t)taps * (size_t)c);
  int32_t *bias = malloc((size_t)c * 4), *mult = malloc((size_t)c * 4),
          *shift = malloc((size_t)c * 4);
  size_t bytes = k->packed_bytes(c, fh, fw);
  uint8_t *packed = aligned_alloc(64, (bytes + 63) / 64 * 64);
  CHECK(f && bias && mult && shift && packed);
  if (!f || !bias || !mult || !shift || !packed) return;
  for (int32_t i = 0; i < taps * c; i++)
    f[i] = (int8_t)(ap_test_rand(&rng) % 256);
  for (int32_t ch = 0; ch < c; ch++) {
    bias[ch] = (int32_t)(ap_test_rand(&rng) % 200001) - 100000;
    mult[ch] = 0x40000000 + ch;
    shift[ch] = -(ch % 13);
  }
  k->pack(f, c, fh, fw, with_bias ? bias : NULL, in_off, mult, shift, packed);
  size_t nw = (size_t)fh * (size_t)((fw + 3) / 4) * 4, block = (nw + 12) * 64;
  bool grouped = 64 % c == 0;
  int bad = 0;
  for (int32_t b = 0; b < (c + 63) / 64; b++) {
    const uint8_t *rq = packed + (size_t)b * block + nw * 64;
    for (int32_t j = 0; j < 4; j++)
      for (int32_t l = 0; l < 16; l++) {
        int32_t r = 16 * (l / 4) + 4 * j + l % 4, ch = grouped ? r % c : b * 64 + r;
        int32_t want[3] = {0, 0, 0};
        if (ch < c) {
          uint32_t sum = 0;
          for (int32_t t = 0; t < taps; t++)
            sum += (uint32_t)(int32_t)f[(size_t)t * (size_t)c + (size_t)ch];
          want[0] =
              (int32_t)((uint32_t)(with_bias ? bias[ch] : 0) + (uint32_t)(in_off - 128) * sum);
          want[1] = mult[ch];
          want[2] = shift[ch];
        }
        for (int v = 0; v < 3; v++) {
          int32_t got;
          memcpy(&got, rq + ((size_t)j * 48 + (size_t)v * 16 + (size_t)l) * 4, 4);
          bad += got != want[v];
        }
      }
  }
  CHECK_MSG(bad == 0, "pack c %d %dx%d bias %d in_off %d: %d constants wrong", c, fh, fw, with_bias,
            in_off, bad);
  free(f), free(bias), free(mult), free(shift), free(packed);
}

static void check_fill(int32_t c, int32_t rep, int32_t pixels) {
  enum { GUARD = 64 };
  size_t in_bytes = (size_t)pixels * (size_t)c, out_bytes = in_bytes * (size_t)rep;
  int8_t *src = malloc(in_bytes + 1);
  uint8_t *dst = malloc(out_bytes + GUARD);
  CHECK(src && dst);
  if (!src || !dst) return;
  for (size_t i = 0; i < in_bytes; i++)
    src[i] = (int8_t)(ap_test_rand(&rng) % 256);
  memset(dst, 0xA5, out_bytes + GUARD);
  ap_fast_avx512_dw.fill_rep(dst, src, pixels, c, c * rep);
  int bad = 0;
  for (size_t o = 0; o < out_bytes; o++)
    bad += dst[o] != (uint8_t)(src[o / (size_t)rep] ^ 0x80);
  for (size_t o = out_bytes; o < out_bytes + GUARD; o++)
    bad += dst[o] != 0xA5;
  CHECK_MSG(bad == 0, "fill_rep c %d rep %d pixels %d: %d bytes wrong", c, rep, pixels, bad);
  free(src), free(dst);
}
#endif

int main(void) {
#if defined(__x86_64__) || defined(_M_X64)
  uint32_t feat = ap_port_cpu_features();
  if (!(feat & AP_CPU_AVX512BW) || !(feat & AP_CPU_AVX512VNNI)) {
    printf("no AVX-512 VNNI here: skipped\n");
    return ap_test_done();
  }
  CHECK(ap_fast_avx512_dw.fill_rep != NULL);
  const int32_t cs[] = {1, 2, 8, 16, 24, 32, 48, 64, 72, 100, 128, 130};
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    check_pack(cs[i], 3, 3, true, 1);
    check_pack(cs[i], 5, 5, i % 2 == 0, -127);
    check_pack(cs[i], 3, 3, true, 128);
  }
  const int32_t reps[] = {2, 3, 4, 8}, chans[] = {1, 2, 3, 5};
  for (size_t r = 0; r < 4; r++)
    for (size_t ci = 0; ci < 4; ci++)
      for (int32_t p = 0; p <= 40; p++)
        check_fill(chans[ci], reps[r], p);
#endif
  return ap_test_done();
}
