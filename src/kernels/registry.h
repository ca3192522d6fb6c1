/* The builtin kernels, by builtin code. */
#ifndef AP_SRC_KERNELS_REGISTRY_H
#define AP_SRC_KERNELS_REGISTRY_H

#include "arenaplan/runtime.h"

/* NULL when arenaplan has no kernel for the builtin. */
const ap_kernel *ap_builtin_kernel(int32_t builtin);

#endif
