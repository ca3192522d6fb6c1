/* A program built against an installed arenaplan (by tests/eco/test_install.py, once with
 * pkg-config and once with find_package): writes a three-ADD model, plans it and runs it.
 *
 * The model: x [1,100] float32; a = x + x; b = a + a; y = b + x. Every tensor is 400 bytes.
 * x is read by ops 0 and 2 (lives [0,2]), a by op 1 ([0,1]), b by op 2 ([1,2]), y is the output
 * ([2,2]). At step 1 x, a, b are live and at step 2 x, b, y: the lower bound is 3 x 400 = 1200,
 * and the plan reaches it (x, then a and y sharing bytes, then b). y = 5x, so with x[i] = i,
 * y[99] = 495. */
#include <arenaplan/arenaplan.h>

#include <stdio.h>
#include <string.h>

static int fail(const char *what, const char *msg) {
  fprintf(stderr, "consumer: %s: %s\n", what, msg);
  return 1;
}

static int write_model(const char *path) {
  ap_writer *w;
  if (ap_writer_create(NULL, &w) != AP_OK) return fail("writer", "out of memory");
  const int32_t shape[2] = {1, 100};
  const char *names[4] = {"x", "a", "b", "y"};
  int32_t t[4];
  uint32_t add;
  ap_status s = ap_writer_add_opcode(w, 0 /* ADD */, 1, &add);
  for (int i = 0; i < 4 && s == AP_OK; i++)
    s = ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.name = names[i], .shape = shape, .rank = 2},
                             &t[i]);
  ap_options o = ap_options_add(AP_ACT_NONE);
  const int32_t ins[3][2] = {{t[0], t[0]}, {t[1], t[1]}, {t[2], t[0]}};
  for (int k = 0; k < 3 && s == AP_OK; k++)
    s = ap_writer_add_op(w, 0,
                         &(ap_writer_op){.opcode = add,
                                         .inputs = ins[k],
                                         .input_count = 2,
                                         .outputs = &t[k + 1],
                                         .output_count = 1,
                                         .options = &o},
                         NULL);
  if (s == AP_OK) s = ap_writer_set_subgraph_io(w, 0, &t[0], 1, &t[3], 1);
  if (s == AP_OK) s = ap_writer_save(w, path);
  int rc = s == AP_OK ? 0 : fail("writer", ap_writer_error(w));
  ap_writer_destroy(w);
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 2) return fail("usage", "consumer OUT.tflite");
  if (write_model(argv[1])) return 1;
  ap_model *m;
  if (ap_model_open(argv[1], NULL, &m) != AP_OK) {
    int rc = fail("model", ap_model_error(m));
    ap_model_destroy(m);
    return rc;
  }
  ap_model_plan_options po = ap_model_plan_defaults();
  ap_model_plan *mp;
  if (ap_model_plan_create(m, &po, NULL, &mp) != AP_OK) {
    int rc = fail("plan", mp ? ap_model_plan_error(mp) : "out of memory");
    ap_model_plan_destroy(mp);
    ap_model_destroy(m);
    return rc;
  }
  printf("arenaplan %s\n", ap_version());
  printf("arena %llu lower_bound %llu\n", (unsigned long long)ap_model_plan_arena(mp),
         (unsigned long long)ap_model_plan_lower_bound(mp));
  ap_model_plan_destroy(mp);

  ap_interpreter_options io = ap_interpreter_defaults();
  ap_interpreter *it;
  ap_tensor x, y;
  int rc = 0;
  if (ap_interpreter_create(m, &io, &it) != AP_OK || ap_interpreter_allocate(it) != AP_OK ||
      ap_interpreter_input(it, 0, &x) != AP_OK) {
    rc = fail("interpreter", it ? ap_interpreter_error(it) : "out of memory");
  } else {
    float v[100];
    for (int i = 0; i < 100; i++)
      v[i] = (float)i;
    memcpy(x.data, v, sizeof v);
    if (ap_interpreter_invoke(it) != AP_OK || ap_interpreter_output(it, 0, &y) != AP_OK) {
      rc = fail("invoke", ap_interpreter_error(it));
    } else {
      memcpy(v, y.data, sizeof v);
      printf("y[1] %g y[99] %g\n", (double)v[1], (double)v[99]);
    }
  }
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  return rc;
}
