/* Invoking one subgraph of an allocated interpreter as the entry (for TFLite's signature
 * runners, src/compat). Not public: arenaplan's own API runs subgraph 0. */
#ifndef AP_RUNTIME_INVOKE_SUBGRAPH_H
#define AP_RUNTIME_INVOKE_SUBGRAPH_H

#include "arenaplan/runtime.h"

/* Runs subgraph sg (0: ap_interpreter_invoke). Its inputs are read from where allocate
 * placed them; AP_ERR_NOT_ALLOCATED before allocate, AP_ERR_BUSY while another call runs. */
ap_status rt_invoke_subgraph(ap_interpreter *it, size_t sg);

#endif
