/* In-place plans, first half of the models: see inplace.h. */
#include "inplace.h"

int main(void) {
  return inplace_main(0);
}
