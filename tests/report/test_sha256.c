/* SHA-256: the FIPS 180-4 example vectors, every length around the padding boundaries against
 * coreutils' sha256sum, and every shared model against the sha256 its MANIFEST.tsv records. */
#include "arenaplan/report.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

static void vector(const char *msg, const char *want) {
  char hex[65];
  ap_sha256_hex(msg, strlen(msg), hex);
  CHECK_STR(hex, want);
}

/* sha256sum of the first n bytes of `data`, written to a temporary file. */
static void against_sha256sum(const uint8_t *data, size_t n) {
  char path[] = "/tmp/ap_test_sha_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  CHECK(write(fd, data, n) == (ssize_t)n);
  close(fd);
  char cmd[128], *out = NULL, hex[65];
  snprintf(cmd, sizeof cmd, "sha256sum %s", path);
  CHECK_EQ(ap_test_run(cmd, false, &out), 0);
  ap_sha256_hex(data, n, hex);
  CHECK_MSG(out && strncmp(out, hex, 64) == 0, "length %zu: ours %s, sha256sum %.64s", n, hex,
            out ? out : "");
  free(out);
  unlink(path);
}

static void manifest(void) {
  char path[1024];
  size_t len = 0;
  char *tsv =
      (char *)ap_test_read_file(ap_test_path(path, sizeof path, "models/MANIFEST.tsv"), &len);
  CHECK(tsv != NULL);
  if (!tsv) return;
  size_t checked = 0;
  for (char *line = strtok(tsv, "\n"); line; line = strtok(NULL, "\n")) {
    char name[256], sha[65];
    if (sscanf(line, "%255[^\t]\t%*[^\t]\t%64[0-9a-f]", name, sha) != 2 || strlen(sha) != 64)
      continue; /* the header line */
    size_t n = 0;
    uint8_t *bytes = ap_test_read_file(ap_test_path(path, sizeof path, "models/%s", name), &n);
    CHECK_MSG(bytes != NULL, "%s", name);
    if (!bytes) continue;
    char hex[65];
    ap_sha256_hex(bytes, n, hex);
    CHECK_MSG(strcmp(hex, sha) == 0, "%s: ours %s, manifest %s", name, hex, sha);
    free(bytes);
    checked++;
  }
  free(tsv);
  CHECK_EQ(checked, 30);
}

int main(void) {
  /* FIPS 180-4 / NIST example messages. */
  vector("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  vector("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  vector("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  vector("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqr"
         "lmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  char *million = malloc(1000000);
  CHECK(million != NULL);
  if (million) {
    memset(million, 'a', 1000000);
    char hex[65];
    ap_sha256_hex(million, 1000000, hex);
    CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(million);
  }
  /* Bytes arrays of every length where the padding changes shape (55/56: one or two final
   * blocks; 63/64/65: block edges), and a few multi-block lengths. */
  uint8_t data[300];
  uint64_t st = 42;
  for (size_t i = 0; i < sizeof data; i++)
    data[i] = (uint8_t)ap_test_rand(&st);
  static const size_t lens[] = {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 300};
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
    against_sha256sum(data, lens[i]);
  uint8_t d[32];
  ap_sha256(NULL, 5, d); /* hostile: NULL hashes as the empty string */
  char hex[65];
  ap_sha256_hex(NULL, 0, hex);
  CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK_EQ(d[0], 0xe3);
  ap_test_require_shared();
  manifest();
  return ap_test_done();
}
