/* Plan correctness, the stateful models (LSTM, SVDF): see oracle_strategies.h. oracle_invoke
 * resets their state before each seed, so every strategy sees the same first invoke. */
#include "oracle_strategies.h"

int main(void) {
  static const char *const names[] = {"mnist_lstm_float", "mnist_lstm_int8",
                                      "dtln_noise_suppression_int8", "keyword_scrambled_svdf"};
  return strategies_main(names, sizeof names / sizeof names[0]);
}
