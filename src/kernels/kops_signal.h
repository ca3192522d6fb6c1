/* TFLite Micro's Signal library (signal/micro/kernels, signal/src): the audio front end's
 * custom ops, built in. Their options are FlexBuffers maps (read by key with model/flexbuf.h;
 * TFLite Micro reads the map's values by their alphabetical position, which is the same thing
 * for every well-formed map). Options are parsed in prepare into the op's params (eval sees no
 * options). The fixed-point arithmetic is TFLite Micro's to the bit: integer widths, wrapping
 * and rounding are reproduced where they matter, and every index an option or a tensor gives
 * is checked before it is followed.
 *
 * Ops with state across invokes (SignalFilterBankSpectralSubtraction's noise estimate, the
 * samples SignalDelay, SignalFramer, SignalStacker and SignalOverlapAdd carry over, the FFTs'
 * twiddles) keep it behind the ap_kstate header of their params (registry.h), zeroed at
 * allocate and by ap_interpreter_reset_variables, as TFLite Micro's Reset does.
 */
#ifndef AP_KERNELS_KOPS_SIGNAL_H
#define AP_KERNELS_KOPS_SIGNAL_H

#include "kernels/registry.h"
#include "model/flexbuf.h"

/* Checks of the context: exactly n_in inputs and n_out outputs, all present. */
ap_status ap_sig_io(ap_kctx *c, const char *op, int n_in, int n_out);
/* Checks a tensor's type and rank (rank -1: at least 1) and gives its element count (at most
 * INT32_MAX); `what` names it in the message ("input", "weights"). */
ap_status ap_sig_check(ap_kctx *c, const char *op, const char *what, const ap_ktensor *t, int type,
                       int rank, size_t *count);
/* The op's options map; then its entries by key, an integer required to lie in [lo, hi]. */
ap_status ap_sig_options(ap_kctx *c, const char *op, ap_flex *root);
ap_status ap_sig_opt_int(ap_kctx *c, const char *op, const ap_flex *root, const char *key,
                         int64_t lo, int64_t hi, int32_t *out);
ap_status ap_sig_opt_bool(ap_kctx *c, const char *op, const ap_flex *root, const char *key,
                          bool *out);

/* signal_common.c: shared arithmetic (exported for the tests). */
/* Bits needed to hold x (0 for 0): TFLite Micro's MostSignificantBit32 is this, except that it
 * says 32 for 0 when built with GCC, which callers reproduce where it matters. */
int ap_sig_bits32(uint32_t x);
int ap_sig_bits64(uint64_t x);
/* Rounded integer square roots (TFLite Micro's Sqrt32 / Sqrt64, including the 32-bit shortcut
 * Sqrt64 takes below 2^32). */
uint16_t ap_sig_sqrt32(uint32_t x);
uint32_t ap_sig_sqrt64(uint64_t x);
/* Natural log of x (x > 1) times out_scale, in 16-bit fixed point (TFLite Micro's Log32). */
uint32_t ap_sig_log32(uint32_t x, uint32_t out_scale);
/* The log's correction table: round(65536 * (log2(1 + i/128) - i/128)), i = 0..128, and a 0. */
extern const uint16_t ap_sig_log_table[130];

/* The ops, one prepare/eval pair each (registry.c binds them by custom_code). */
#define AP_SIG_OPS(X)                                                                              \
  X(window)                                                                                        \
  X(fft_auto_scale)                                                                                \
  X(rfft)                                                                                          \
  X(irfft)                                                                                         \
  X(energy)                                                                                        \
  X(filter_bank)                                                                                   \
  X(filter_bank_sqrt)                                                                              \
  X(spectral_subtraction)                                                                          \
  X(filter_bank_log)                                                                               \
  X(pcan)                                                                                          \
  X(delay)                                                                                         \
  X(framer)                                                                                        \
  X(stacker)                                                                                       \
  X(overlap_add)

#define AP_SIG_DECLARE(NAME)                                                                       \
  ap_status ap_sig_##NAME##_prepare(ap_kctx *c, size_t *scratch);                                  \
  ap_status ap_sig_##NAME##_eval(ap_kctx *c);
AP_SIG_OPS(AP_SIG_DECLARE)
#undef AP_SIG_DECLARE

#endif
