/* The server's YAML configuration: every key read, defaults, paths against the file's folder,
 * and strict refusals naming the line. */
#include "arenaplan/serve.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static ap_status parse(const char *text, ap_serve_config **c, char *err) {
  return ap_serve_config_parse(text, strlen(text), "s.yaml", "/cfg", c, err, 512);
}

static void refused(const char *text, const char *want) {
  ap_serve_config *c = (ap_serve_config *)1;
  char err[512];
  CHECK_EQ(parse(text, &c, err), AP_ERR_FORMAT);
  CHECK(c == NULL);
  CHECK_STR(err, want);
}

int main(void) {
  ap_serve_config *c = NULL;
  char err[512];
  const char *full = "listen: 0.0.0.0\n"
                     "port: 8080\n"
                     "budget: 1.5M\n"
                     "max_body: 64K\n"
                     "request_timeout: 250ms\n"
                     "connection_timeout: 2m\n"
                     "drain_timeout: 1.5\n"
                     "idle_timeout: never\n"
                     "workers: 3\n"
                     "max_connections: 10\n"
                     "models:\n"
                     "  - name: kws\n"
                     "    model: m/kws.tflite\n"
                     "    threads: 2\n"
                     "    pinned: true\n"
                     "    idle_timeout: 30s\n"
                     "    warmup: 3\n"
                     "    inplace: yes\n"
                     "    stream: true\n"
                     "    kernels: small\n"
                     "    prepare: once\n"
                     "    strategy: linear\n"
                     "  - name: det.v2\n"
                     "    model: /abs/det.tflite\n";
  CHECK_EQ(parse(full, &c, err), AP_OK);
  CHECK_STR(err, "");
  if (c) {
    CHECK_STR(c->listen, "0.0.0.0");
    CHECK_EQ(c->port, 8080);
    CHECK_EQ(c->budget_bytes, 1572864);
    CHECK(c->budget_percent == 0);
    CHECK_EQ(c->max_body, 65536);
    CHECK_EQ(c->request_timeout_ms, 250);
    CHECK_EQ(c->connection_timeout_ms, 120000);
    CHECK_EQ(c->drain_timeout_ms, 1500);
    CHECK(c->idle_ms == AP_POOL_NEVER);
    CHECK_EQ(c->workers, 3);
    CHECK_EQ(c->max_connections, 10);
    CHECK_EQ(c->model_count, 2);
    ap_serve_model_config *m = &c->models[0];
    CHECK_STR(m->name, "kws");
    CHECK_STR(m->path, "/cfg/m/kws.tflite");
    CHECK(m->threads == 2 && m->pinned && m->idle_ms == 30000 && m->warmup == 3);
    CHECK(m->inplace && m->stream && m->kernels == AP_KERNELS_SMALL);
    CHECK(m->prepare == AP_PREPARE_ONCE && m->line == 12);
    CHECK_STR(m->strategy, "linear");
    m = &c->models[1];
    CHECK_STR(m->path, "/abs/det.tflite");
    CHECK(m->kernels == -1 && m->threads == 0 && !m->pinned && m->line == 23);
    ap_serve_config_free(c);
  }
  /* Defaults: 80 % of the machine's memory (or its cgroup limit, when smaller). */
  CHECK_EQ(parse("models:\n  - {name: a, model: a.tflite}\n", &c, err), AP_OK);
  if (c) {
    uint64_t phys = 0, cg = 0;
    CHECK_EQ(ap_pool_machine_memory(&phys, &cg), AP_OK);
    uint64_t base = cg && (!phys || cg < phys) ? cg : phys;
    CHECK_EQ(c->budget_bytes, (uint64_t)((long double)base * 80 / 100));
    CHECK(c->budget_percent == 80);
    CHECK_STR(c->listen, "127.0.0.1");
    CHECK(c->port == 0 && c->max_body == 1048576 && c->request_timeout_ms == 5000);
    CHECK(c->workers == 4 && c->idle_ms == 60000);
    ap_serve_config_free(c);
  }
  refused("budget: 1M\nmodels:\n  - name: a\n    model: a.tflite\n    thread: 2\n",
          "s.yaml:5: unknown key \"thread\" in a model (name, model, threads, pinned, "
          "idle_timeout, warmup, inplace, stream, strategy, kernels, prepare)");
  refused("budget: 1M\nport: 70000\nmodels:\n  - {name: a, model: a.tflite}\n",
          "s.yaml:2: port: \"70000\" is not an integer from 0 to 65535");
  refused("budget: lots\nmodels:\n  - {name: a, model: a.tflite}\n",
          "s.yaml:1: budget: \"lots\" is not a size like 65536, 64K, 1.5M, 2G");
  refused("budget: 120%\nmodels:\n  - {name: a, model: a.tflite}\n",
          "s.yaml:1: budget: \"120%\" is not a percentage from 0 to 100");
  refused("budget: 1M\nmodels:\n  - {name: a, model: a.tflite}\n  - {name: a, model: b.tflite}\n",
          "s.yaml:4: model a: the name is already used on line 3");
  refused("budget: 1M\nbudget: 2M\nmodels:\n  - {name: a, model: a.tflite}\n",
          "s.yaml:2: configuration: duplicate key budget (first on line 1)");
  refused("budget: 1M\nmodels:\n  - {name: ../etc, model: a.tflite}\n",
          "s.yaml:3: name: \"../etc\": use 1 to 255 of A-Z a-z 0-9 . _ - (not starting with .)");
  refused("budget: 1M\nmodels:\n  - name: a\n    model: a.tflite\n    pinned: maybe\n",
          "s.yaml:5: pinned: \"maybe\" is not true or false");
  refused("budget: 1M\nmodels:\n  - name: a\n    model: [a, b]\n",
          "s.yaml:4: model: expected a single value");
  refused("budget: 1M\nrequest_timeout: 5 weeks\nmodels:\n  - {name: a, model: a.tflite}\n",
          "s.yaml:2: request_timeout: \"5 weeks\" is not a duration like 500ms, 30s, 2m");
  refused("budget: 1M\nmodels:\n  - name: a\n", "s.yaml:3: model a: no model (the .tflite file)");
  refused("budget: 1M\n", "s.yaml:1: no models (a models: list is required)");
  refused("budget: 1M\nmodels: [\n", "s.yaml:3: did not find expected node content while "
                                     "parsing a flow node");
  refused("budget: 1M\nmodels:\n  - {name: a, model: a.tflite}\n---\nport: 1\n",
          "s.yaml: more than one YAML document");
  CHECK_EQ(ap_serve_config_load("/nonexistent/s.yaml", &c, err, sizeof err), AP_ERR_IO);
  CHECK(c == NULL);
  CHECK_CONTAINS(err, "/nonexistent/s.yaml: cannot open");
  return ap_test_done();
}
