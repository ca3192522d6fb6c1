/* The dynamic-shape and folding functions builtin ops reach through it->dyn: referenced here,
 * from allocate, and not from the invoke path, so a firmware whose interpreter a host's plan
 * placed (planned.c) links neither dynamic.c nor shape_fold.c. */
#include "runtime_internal.h"

const rt_dyn_ops rt_dyn_all = {rt_op_dynamic, rt_dynamic_output, rt_dynamic_scratch, rt_fold,
                               rt_known_value};
