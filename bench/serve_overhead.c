/* What the server adds to an inference (issue 26's overhead): the same model, the same input,
 * run (a) directly on the server's own pool (acquire, copy the input in, invoke, release) and
 * (b) as a KServe v2 request with binary tensors over one keep-alive HTTP connection to the
 * server in this process (HTTP parse, decode, match, acquire, invoke, encode, send). Rounds of
 * each alternate (interleaved, so the machine's noise falls on both); medians per request.
 *
 *   bench_serve_overhead [--requests N]     (default 2000 of each, in rounds of 100)
 *
 * Prints Markdown: per model the direct and the HTTP median in microseconds and their
 * difference, the server's overhead at concurrency 1. */
#include "arenaplan/serve.h"
#include "test.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, size_t n) {
  qsort(v, n, sizeof *v, cmp);
  return n ? v[n / 2] : 0;
}

static void *serve_thread(void *s) {
  ap_server_run(s);
  return NULL;
}

/* Sends one request and reads the whole response (Content-Length framed); its status. */
static int roundtrip(int fd, const char *req, size_t req_len, char *buf, size_t cap) {
  for (size_t off = 0; off < req_len;) {
    ssize_t n = write(fd, req + off, req_len - off);
    if (n <= 0) return -1;
    off += (size_t)n;
  }
  size_t got = 0, need = SIZE_MAX;
  while (got < need) {
    ssize_t n = read(fd, buf + got, cap - got - 1);
    if (n <= 0) return -1;
    got += (size_t)n;
    buf[got] = '\0';
    char *end = strstr(buf, "\r\n\r\n");
    char *cl = strcasestr(buf, "Content-Length:");
    if (end && cl) need = (size_t)(end + 4 - buf) + strtoull(cl + 15, NULL, 10);
    if (need > cap - 1) return -1;
  }
  return atoi(buf + 9);
}

static void bench(ap_server *s, const char *name, size_t requests) {
  ap_pool *pool = ap_server_pool(s);
  ap_interpreter *it;
  if (ap_pool_acquire(pool, name, 1000, &it) != AP_OK) {
    printf("| %s | cannot acquire: %s |\n", name, ap_pool_error(pool));
    return;
  }
  ap_tensor in;
  ap_interpreter_input(it, 0, &in);
  size_t bytes = in.bytes;
  ap_pool_release(pool, it);
  uint8_t *input = calloc(1, bytes);
  char head[512], shape[128] = "";
  size_t k = 0;
  for (int d = 0; d < in.rank; d++)
    k += (size_t)snprintf(shape + k, sizeof shape - k, "%s%d", d ? "," : "", (int)in.dims[d]);
  const char *dtype = in.type == AP_INT8 ? "INT8" : in.type == AP_UINT8 ? "UINT8" : "FP32";
  int hl = snprintf(head, sizeof head,
                    "{\"inputs\":[{\"name\":\"%s\",\"datatype\":\"%s\",\"shape\":[%s],"
                    "\"parameters\":{\"binary_data_size\":%zu}}],"
                    "\"parameters\":{\"binary_data_output\":true}}",
                    in.name, dtype, shape, bytes);
  size_t cap = 4096 + (size_t)hl + bytes;
  char *req = malloc(cap), *buf = malloc(1 << 20);
  int n = snprintf(req, cap,
                   "POST /v2/models/%s/infer HTTP/1.1\r\nHost: bench\r\n"
                   "Inference-Header-Content-Length: %d\r\nContent-Length: %zu\r\n\r\n%s",
                   name, hl, (size_t)hl + bytes, head);
  memcpy(req + n, input, bytes);
  size_t req_len = (size_t)n + bytes;
  int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(ap_server_port(s))};
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  double *direct = calloc(requests, sizeof *direct), *http = calloc(requests, sizeof *http);
  bool ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0 && direct && http && req && buf;
  for (size_t done = 0; ok && done < requests; done += 100) {
    for (size_t i = done; i < done + 100 && i < requests; i++) {
      double t = now_us();
      ok = ap_pool_acquire(pool, name, 1000, &it) == AP_OK;
      if (!ok) break;
      ap_interpreter_input(it, 0, &in);
      memcpy(in.data, input, bytes);
      ok = ap_interpreter_invoke(it) == AP_OK;
      ap_pool_release(pool, it);
      direct[i] = now_us() - t;
    }
    for (size_t i = done; ok && i < done + 100 && i < requests; i++) {
      double t = now_us();
      ok = roundtrip(fd, req, req_len, buf, 1 << 20) == 200;
      http[i] = now_us() - t;
    }
  }
  if (!ok) {
    printf("| %s | failed |\n", name);
  } else {
    double d = median(direct, requests), h = median(http, requests);
    printf("| %s | %zu | %.1f | %.1f | %.1f |\n", name, bytes, d, h, h - d);
  }
  close(fd);
  free(direct);
  free(http);
  free(req);
  free(buf);
  free(input);
}

int main(int argc, char **argv) {
  size_t requests = 2000;
  if (argc == 3 && !strcmp(argv[1], "--requests")) requests = strtoull(argv[2], NULL, 10);
  if (requests == 0) requests = 1;
  ap_test_require_shared();
  char text[1024], err[512];
  snprintf(text, sizeof text,
           "port: 0\nbudget: 64M\nworkers: 2\nmodels:\n"
           "  - {name: hello, model: %s/models/hello_world_int8.tflite}\n"
           "  - {name: kws, model: %s/models/mlperf_kws_dscnn_int8.tflite}\n"
           "  - {name: classifier, model: %s/models/mobilenet_v1_025_128_uint8.tflite}\n",
           ap_test_shared(), ap_test_shared(), ap_test_shared());
  ap_serve_config *c = NULL;
  ap_server *s = NULL;
  if (ap_serve_config_parse(text, strlen(text), "bench", NULL, &c, err, sizeof err) != AP_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  if (ap_server_create(c, &s) != AP_OK || ap_server_start(s) != AP_OK) {
    fprintf(stderr, "%s\n", ap_server_error(s));
    return 1;
  }
  pthread_t t;
  pthread_create(&t, NULL, serve_thread, s);
  printf("| model | input bytes | direct median (us) | HTTP median (us) | server adds (us) |\n"
         "|---|---:|---:|---:|---:|\n");
  bench(s, "hello", requests);
  bench(s, "kws", requests);
  bench(s, "classifier", requests);
  ap_server_stop(s);
  pthread_join(t, NULL);
  ap_server_destroy(s);
  ap_serve_config_free(c);
  return 0;
}
