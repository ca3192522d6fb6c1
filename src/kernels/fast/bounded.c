/* AP_KERNELS_SMALL's rule, one place for every adapter: an op's fast path may add at most
 * small_extra bytes to its reference kernel's scratch; else it tries one thread (one
 * workspace instead of one per task), then one thread without packed weights (the level's
 * in-place matrix product), else the reference kernel runs. Prepare and eval decide alike
 * (the same shapes give the same sizes), so eval never reads past the scratch planned. */
#include "kernels/fast/fastops.h"
#include "kernels/registry.h"

const ap_kexec *ap_fast_bounded(ap_kctx *c, ap_fast_need need, size_t ref, bool eval,
                                ap_fast_small *tmp, size_t *scratch) {
  const ap_kexec *x = c && c->options ? c->options->exec : NULL;
  *scratch = ref;
  if (!x || !x->level) return NULL;
  if (!x->small_extra && eval) return x; /* unbounded: the drivers decide alone */
  size_t bytes = ref;
  if (!need(x, c, &bytes)) return x; /* no fast path: the reference's scratch */
  size_t limit = ref > SIZE_MAX - x->small_extra ? SIZE_MAX : ref + x->small_extra;
  if (!x->small_extra || bytes <= limit) {
    *scratch = bytes;
    return x;
  }
  tmp->x = *x;
  tmp->x.workers = NULL;
  tmp->x.threads = 1;
  bytes = ref;
  if (x->threads > 1 && need(&tmp->x, c, &bytes) && bytes <= limit) {
    *scratch = bytes;
    return &tmp->x;
  }
  if (x->level->outer) {
    tmp->level = *x->level;
    tmp->level.outer = NULL;
    tmp->x.level = &tmp->level;
    bytes = ref;
    if (need(&tmp->x, c, &bytes) && bytes <= limit) {
      *scratch = bytes;
      return &tmp->x;
    }
  }
  return NULL;
}
