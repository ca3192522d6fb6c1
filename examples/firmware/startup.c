/* Minimal Cortex-M startup for the QEMU boards (mps2-an386, mps3-an547): the vector table,
 * copying .data and zeroing .bss, the FPU (and Helium) on, the stack painted so main can
 * measure its peak, and semihosting for output and exit. No CMSIS, no newlib startup. */
#include "firmware.h"

#include <stdint.h>

extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];
extern uint32_t __stack_limit[], __stack_top[];
int main(void);

/* The semihosting call: r0 = operation, r1 = argument; the debugger (QEMU) does the work. */
static uint32_t semihost(uint32_t op, const void *arg) {
  register uint32_t r0 __asm__("r0") = op;
  register const void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void fw_puts(const char *s) {
  semihost(0x04, s); /* SYS_WRITE0 */
}

void fw_exit(int code) {
  /* SYS_EXIT, AArch32 form: the reason itself. ApplicationExit ends QEMU with status 0,
   * anything else (RunTimeErrorUnknown) with 1. */
  semihost(0x18, (const void *)(uintptr_t)(code == 0 ? 0x20026u : 0x20023u));
  for (;;) {
  }
}

#define PAINT 0xC0FFEE11u

/* Paints from the stack's bottom up to a little below this frame. Called from reset with the
 * stack nearly empty, and again by main before an invoke to measure that alone. */
void fw_stack_paint(void) {
  uint32_t *sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  for (uint32_t *p = __stack_limit; p < sp - 16; p++)
    *p = PAINT;
}

uint32_t fw_stack_peak(void) {
  const uint32_t *p = __stack_limit;
  while (p < __stack_top && *p == PAINT)
    p++;
  return (uint32_t)((uintptr_t)__stack_top - (uintptr_t)p);
}

uint32_t fw_stack_size(void) {
  return (uint32_t)((uintptr_t)__stack_top - (uintptr_t)__stack_limit);
}

void Reset_Handler(void) {
  for (uint32_t *s = __data_load, *d = __data_start; d < __data_end;)
    *d++ = *s++;
  for (uint32_t *d = __bss_start; d < __bss_end;)
    *d++ = 0;
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  /* CPACR: full access to CP10 and CP11 (the FPU, and Helium on the M55). */
  *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  fw_stack_paint();
  fw_exit(main());
}

static void fault(void) {
  fw_puts("fault: exception taken\n");
  fw_exit(2);
}

void NMI_Handler(void) __attribute__((alias("fault")));
void HardFault_Handler(void) __attribute__((alias("fault")));
void SysTick_Handler(void) __attribute__((weak, alias("fault")));

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))__stack_top,
    Reset_Handler,
    NMI_Handler,
    HardFault_Handler,
    fault,
    fault,
    fault,
    fault,
    0,
    0,
    0,
    fault,
    fault,
    0,
    fault,
    SysTick_Handler};

/* The heap malloc grows into (newlib's _sbrk hook): a static array, so running out fails the
 * allocation instead of growing into the stack, and its high-water mark is what a firmware
 * must reserve. */
#ifndef FW_HEAP_BYTES
#define FW_HEAP_BYTES (256u * 1024u)
#endif
static uint8_t heap[FW_HEAP_BYTES] __attribute__((aligned(8)));
static uint32_t heap_top;

void *_sbrk(int incr) {
  if (incr < 0 ? (uint32_t)-incr > heap_top : (uint32_t)incr > sizeof heap - heap_top)
    return (void *)-1;
  void *p = heap + heap_top;
  heap_top += (uint32_t)incr;
  return p;
}

uint32_t fw_heap_peak(void) {
  return heap_top; /* newlib-nano's malloc never gives memory back to sbrk */
}

uint32_t fw_heap_size(void) {
  return sizeof heap;
}
