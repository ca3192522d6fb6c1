/* Runs tests/compat/minimal.c through dlopen, as language bindings reach TFLite's C API: loads
 * the C API library by name (dlopen("libtensorflowlite_c.so"), found on LD_LIBRARY_PATH),
 * checks that each function of the API resolves in it, then loads minimal.c built as a module
 * (its main renamed minimal_main, its TfLite* symbols left for the library to resolve) and runs
 * it.
 *
 *   dlopen_run LIBRARY MODULE MODEL SEED OUTDIR
 */
#include <dlfcn.h>
#include <stdio.h>

static const char *const api[] = {"TfLiteVersion",
                                  "TfLiteModelCreate",
                                  "TfLiteModelCreateFromFile",
                                  "TfLiteModelDelete",
                                  "TfLiteModelCreateWithErrorReporter",
                                  "TfLiteModelCreateFromFileWithErrorReporter",
                                  "TfLiteInterpreterOptionsCreate",
                                  "TfLiteInterpreterOptionsDelete",
                                  "TfLiteInterpreterOptionsSetNumThreads",
                                  "TfLiteInterpreterOptionsSetErrorReporter",
                                  "TfLiteInterpreterOptionsAddDelegate",
                                  "TfLiteInterpreterOptionsAddRegistrationExternal",
                                  "TfLiteInterpreterCreate",
                                  "TfLiteInterpreterDelete",
                                  "TfLiteInterpreterGetInputTensorCount",
                                  "TfLiteInterpreterGetInputTensor",
                                  "TfLiteInterpreterResizeInputTensor",
                                  "TfLiteInterpreterAllocateTensors",
                                  "TfLiteInterpreterInvoke",
                                  "TfLiteInterpreterGetOutputTensorCount",
                                  "TfLiteInterpreterGetOutputTensor",
                                  "TfLiteInterpreterGetSignatureCount",
                                  "TfLiteInterpreterGetSignatureKey",
                                  "TfLiteInterpreterGetSignatureRunner",
                                  "TfLiteSignatureRunnerGetInputCount",
                                  "TfLiteSignatureRunnerGetInputName",
                                  "TfLiteSignatureRunnerResizeInputTensor",
                                  "TfLiteSignatureRunnerAllocateTensors",
                                  "TfLiteSignatureRunnerGetInputTensor",
                                  "TfLiteSignatureRunnerInvoke",
                                  "TfLiteSignatureRunnerGetOutputCount",
                                  "TfLiteSignatureRunnerGetOutputName",
                                  "TfLiteSignatureRunnerGetOutputTensor",
                                  "TfLiteSignatureRunnerDelete",
                                  "TfLiteTensorType",
                                  "TfLiteTensorNumDims",
                                  "TfLiteTensorDim",
                                  "TfLiteTensorByteSize",
                                  "TfLiteTensorData",
                                  "TfLiteTensorName",
                                  "TfLiteTensorQuantizationParams",
                                  "TfLiteTensorCopyFromBuffer",
                                  "TfLiteTensorCopyToBuffer",
                                  "TfLiteTypeGetName",
                                  "TfLiteInterpreterModifyGraphWithDelegate",
                                  "arenaplan_options_set_arena",
                                  "arenaplan_interpreter_memory"};

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: dlopen_run LIBRARY MODULE ARGS...\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    fprintf(stderr, "dlopen_run: %s\n", dlerror());
    return 1;
  }
  int missing = 0;
  for (size_t i = 0; i < sizeof api / sizeof api[0]; i++)
    if (!dlsym(lib, api[i])) {
      fprintf(stderr, "dlopen_run: %s: no %s\n", argv[1], api[i]);
      missing++;
    }
  void *module = dlopen(argv[2], RTLD_NOW);
  if (!module) {
    fprintf(stderr, "dlopen_run: %s\n", dlerror());
    return 1;
  }
  int (*run)(int, char **) = (int (*)(int, char **))dlsym(module, "minimal_main");
  if (!run) {
    fprintf(stderr, "dlopen_run: %s: no minimal_main\n", argv[2]);
    return 1;
  }
  argv[2] = "minimal";
  int status = run(argc - 2, argv + 2);
  dlclose(module);
  dlclose(lib);
  return missing ? 1 : status;
}
