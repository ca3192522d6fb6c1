/* In-place plans, second half of the models: see inplace.h. */
#include "inplace.h"

int main(void) {
  return inplace_main(1);
}
