/* The port layer: the only code that calls the operating system or asks the CPU about itself.
 * Everything else in src/ is portable C11 that a freestanding build (a microcontroller, no
 * files, no threads, no clock) compiles with -ffreestanding.
 *
 * Two implementations: the host one (POSIX: mmap, pthreads, clock_gettime, cpuid/getauxval),
 * and the freestanding one (AP_PORT_NONE defined): files fail with AP_ERR_UNSUPPORTED, there is
 * one thread, the clock reads 0, the CPU has no optional features. Each section below is
 * implemented in its own file (port_<section>_posix.c, port_none.c).
 */
#ifndef AP_SRC_PORT_H
#define AP_SRC_PORT_H

#include "base/base.h"

/* ---------- files (model loading) ---------- */
/* A read-only view of a whole file: mapped where the OS can, else read into memory from the
 * allocator. */
typedef struct ap_port_file {
  const void *data;
  size_t size;
  void *handle; /* what unmap needs (the mapping, or the allocator block) */
  size_t handle_size;
  bool mapped;
} ap_port_file;
ap_status ap_port_file_map(const char *path, const ap_allocator *a, ap_port_file *out,
                           ap_errbuf *err);
void ap_port_file_unmap(const ap_allocator *a, ap_port_file *f);
/* Creates (or truncates) the file at `path` and writes `size` bytes to it. */
ap_status ap_port_file_write(const char *path, const void *bytes, size_t size, ap_errbuf *err);

/* ---------- clock ---------- */
/* Monotonic nanoseconds (0 where the target has no clock). */
uint64_t ap_port_now_ns(void);

/* ---------- memory (a server's default budget) ---------- */
/* Bytes of physical memory (0 where unknown). */
uint64_t ap_port_physical_memory(void);
/* The smallest memory limit of the cgroups listed in `cgroup_file` (/proc/self/cgroup) and
 * their ancestors, read under `root` (/sys/fs/cgroup): v2's memory.max (mounted at root, or
 * root/unified on a hybrid system) and v1's memory/.../memory.limit_in_bytes. 0 for none
 * ("max", or 2^62 and above). Parameters so that tests can give a made-up tree. */
uint64_t ap_port_cgroup_memory_limit(const char *cgroup_file, const char *root);
/* The same from the text of such a file (`len` bytes, no terminator needed). */
uint64_t ap_port_cgroup_memory_limit_text(const char *text, size_t len, const char *root);

/* ---------- CPU features ---------- */
enum {
  AP_CPU_SSE41 = 1u << 0,
  AP_CPU_AVX2 = 1u << 1, /* with FMA and the OS saving the ymm state */
  AP_CPU_AVX512BW = 1u << 2,
  AP_CPU_AVX512VNNI = 1u << 3,
  AP_CPU_AVXVNNI = 1u << 4,
  AP_CPU_NEON = 1u << 8,
  AP_CPU_NEON_DOT = 1u << 9
};
/* The features of the CPU this process runs on (cached after the first call). */
uint32_t ap_port_cpu_features(void);
/* An environment variable, or NULL (always NULL where there is no environment). */
const char *ap_port_getenv(const char *name);

/* ---------- threads ---------- */
/* A fixed group of worker threads, started once (at allocate) and reused for every parallel
 * region: run(fn, arg, n) calls fn(arg, i) for i in [0, n) spread over the workers and the
 * calling thread, and returns when all have finished (n above 65535: all on the caller). Never
 * allocates after create. One caller at a time per group.
 * Affinity: thread s (0 the caller, then the workers) first runs the indices of its own
 * contiguous range [ceil(s n / T), ceil((s + 1) n / T)) in order, then takes what is left of
 * the others' ranges from their ends. Ops that cut the same rows into the same n pieces thus
 * find their input in their own core's cache. */
typedef struct ap_port_workers ap_port_workers;
typedef void (*ap_port_task)(void *arg, int index);
/* threads: total threads including the caller (1: no workers started). */
ap_status ap_port_workers_create(const ap_allocator *a, int threads, ap_port_workers **out,
                                 ap_errbuf *err);
int ap_port_workers_count(const ap_port_workers *w); /* threads including the caller */
void ap_port_workers_run(ap_port_workers *w, ap_port_task fn, void *arg, int n);
/* As run(), with the slot of the thread running each index: 0 for the caller, 1 to count - 1
 * for the workers; no two indices run at once in one slot. More indices than threads balance
 * the work (a thread done with its range takes the others' last indices), with per-slot
 * workspaces. */
typedef void (*ap_port_slot_task)(void *arg, int index, int slot);
void ap_port_workers_run_slots(ap_port_workers *w, ap_port_slot_task fn, void *arg, int n);
/* Idle workers sleep (after a millisecond without a region, or up to 8 times what waking them
 * has cost, at most 50 ms: on a virtual machine a wake-up took milliseconds) and take tens of
 * microseconds to wake on a bare machine: wake() starts them spinning ahead of the regions to
 * come (at the start of an invoke), without waiting for them. A hint; NULL or no sleepers:
 * nothing. */
void ap_port_workers_wake(ap_port_workers *w);
void ap_port_workers_destroy(ap_port_workers *w);

#endif
