/* Forced into every file of the Cortex-M build (-include, cmake/arm-none-eabi.cmake).
 * arm-none-eabi-gcc makes int32_t a `long` (32 bits there too), where every hosted target
 * arenaplan is built for makes it an `int`: "%u" of a uint32_t is then a -Wformat error on
 * the board only. Same width, same ABI: giving the board the hosts' spelling keeps the one
 * source -Werror clean on both. Must come before newlib's <stdint.h>. */
#undef __INT32_TYPE__
#define __INT32_TYPE__ int
#undef __UINT32_TYPE__
#define __UINT32_TYPE__ unsigned int
#undef __INT_LEAST32_TYPE__
#define __INT_LEAST32_TYPE__ int
#undef __UINT_LEAST32_TYPE__
#define __UINT_LEAST32_TYPE__ unsigned int
/* newlib's <inttypes.h> defines PRIu64 and friends only when its own <sys/_stdint.h> came
 * first, which <stdint.h> alone (gcc's) does not bring: a file including just <inttypes.h>
 * would not compile on the board. <sys/types.h> brings it, with the types above. */
#include <sys/types.h>
