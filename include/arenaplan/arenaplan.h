/* arenaplan: plan, run and explain the tensor memory of TFLite models. One include for all.
 *
 * A worked example (tests/eco/test_header_example.py compiles and runs it): how big the arena
 * of a model is, then one inference in a buffer of exactly the size the runtime reports.
 *
 *   #include <arenaplan/arenaplan.h>
 *   #include <stdio.h>
 *   #include <stdlib.h>
 *   #include <string.h>
 *
 *   int main(int argc, char **argv) {
 *     if (argc != 2) return 2;
 *     ap_model *m;                               // read in place (mmap), verified once
 *     if (ap_model_open(argv[1], NULL, &m) != AP_OK) {
 *       fprintf(stderr, "%s\n", ap_model_error(m)); // the failed handle keeps the message
 *       ap_model_destroy(m);
 *       return 1;
 *     }
 *     // The plan: every tensor's lifetime and offset, the arena and its lower bound.
 *     ap_model_plan_options po = ap_model_plan_defaults();  // "best", 16-byte alignment
 *     ap_model_plan *mp;
 *     if (ap_model_plan_create(m, &po, NULL, &mp) != AP_OK) {
 *       fprintf(stderr, "%s\n", mp ? ap_model_plan_error(mp) : "out of memory");
 *       ap_model_plan_destroy(mp);
 *       ap_model_destroy(m);
 *       return 1;
 *     }
 *     printf("arena %llu lower bound %llu\n", (unsigned long long)ap_model_plan_arena(mp),
 *            (unsigned long long)ap_model_plan_lower_bound(mp));
 *     ap_model_plan_destroy(mp);
 *
 *     // Run it: first to learn the total (arena + persistent + tables), then inside one
 *     // caller-owned buffer of that size; invoke allocates nothing.
 *     ap_interpreter_options o = ap_interpreter_defaults();
 *     ap_interpreter *it;
 *     ap_memory_usage mu = {0};
 *     if (ap_interpreter_create(m, &o, &it) == AP_OK && ap_interpreter_allocate(it) == AP_OK)
 *       ap_interpreter_memory(it, &mu);
 *     ap_interpreter_destroy(it);               // NULL-safe
 *     void *buffer = aligned_alloc(16, (mu.total + 15) / 16 * 16);
 *     o.arena = buffer;
 *     o.arena_size = mu.total;
 *     ap_tensor in, out;
 *     int rc = 1;
 *     if (buffer && ap_interpreter_create(m, &o, &it) == AP_OK &&
 *         ap_interpreter_allocate(it) == AP_OK && ap_interpreter_input(it, 0, &in) == AP_OK) {
 *       memset(in.data, 0, in.bytes);           // your input here
 *       if (ap_interpreter_invoke(it) == AP_OK && ap_interpreter_output(it, 0, &out) == AP_OK) {
 *         printf("in a buffer of %llu bytes: output 0 has %zu bytes\n",
 *                (unsigned long long)mu.total, out.bytes);
 *         rc = 0;
 *       }
 *     }
 *     if (rc) fprintf(stderr, "%s\n", it ? ap_interpreter_error(it) : "no interpreter");
 *     ap_interpreter_destroy(it);               // before the model and the buffer
 *     free(buffer);
 *     ap_model_destroy(m);
 *     return rc;
 *   }
 *
 * Conventions of every header: fallible calls return ap_status (AP_OK = 0) and the object that
 * failed keeps the message (ap_model_error, ap_plan_error, ap_interpreter_error, ...); a
 * create that fails still hands back its object for the message unless memory ran out (then
 * NULL); destroy functions accept NULL. Handles own what they allocate; pointers from
 * accessors live as long as the object they came from.
 */
#ifndef ARENAPLAN_H
#define ARENAPLAN_H

#include "arenaplan/base.h"
#include "arenaplan/model.h"
#include "arenaplan/options.h"
#include "arenaplan/plan.h"
#include "arenaplan/pool.h"
#include "arenaplan/writer.h"
#include "arenaplan/graph.h"
#include "arenaplan/report.h"
#include "arenaplan/runtime.h"
#include "arenaplan/planned.h"
#include "arenaplan/tflm.h"
#include "arenaplan/reorder.h"

#endif
