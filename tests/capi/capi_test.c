/* The C API (karp/c/karp.h) from C: results, errors and ownership, NULL arguments, and
 * concurrent calls. Run by ctest (and under ASan+UBSan in CI) as
 *   karp_c_test EXAMPLES_DIR
 * With a command it prints one result instead, for tests/capi/same_bytes_test.sh:
 *   karp_c_test solve|consolidate|catalog|simulate INPUT|- CATALOG|- OPTIONS_JSON
 * (INPUT `-` means none, for catalog). */

#include "karp/c/karp.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                  \
  do {                                                               \
    ++checks;                                                        \
    if (!(cond)) {                                                   \
      ++failures;                                                    \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                \
  } while (0)

/* The whole file, malloc'd and NUL-terminated, or NULL. */
static char* ReadFile(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t cap = 1 << 16, n = 0;
  char* buf = malloc(cap);
  size_t got;
  while (buf != NULL && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (n + 1 == cap) {
      char* bigger = realloc(buf, cap *= 2);
      if (bigger == NULL) free(buf);
      buf = bigger;
    }
  }
  fclose(f);
  if (buf == NULL) return NULL;
  buf[n] = '\0';
  *size = n;
  return buf;
}

static karp_input Text(const char* source, const char* text) {
  karp_input in = {source, text, strlen(text)};
  return in;
}

static char* inflate_text = NULL;
static size_t inflate_size = 0;

static karp_status SolveInflate(const char* options, char** out, size_t* size, char** error) {
  karp_input snap = {"inflate.yaml", inflate_text, inflate_size};
  return karp_solve(&snap, 1, NULL, options, out, size, error);
}

static void TestVersion(void) {
  CHECK(karp_abi_version() == KARP_C_ABI_VERSION);
  CHECK(strlen(karp_version()) >= 5);
  CHECK(strcmp(karp_status_name(KARP_INVALID_ARGUMENT), "INVALID_ARGUMENT") == 0);
}

static void TestSolve(void) {
  char* out = NULL;
  char* error = (char*)"not reset";
  size_t size = 0;
  CHECK(SolveInflate(NULL, &out, &size, &error) == KARP_OK);
  CHECK(error == NULL);
  CHECK(out != NULL && size == strlen(out) && out[size - 1] == '\n');
  CHECK(out != NULL && strstr(out, "\"nodeClaims\"") != NULL);
  CHECK(out != NULL && strstr(out, "\"pods\": 5") != NULL);
  karp_free(out);

  CHECK(SolveInflate("{\"output\": \"yaml\"}", &out, &size, &error) == KARP_OK);
  CHECK(out != NULL && out[0] != '{' && strstr(out, "nodeClaims:\n") != NULL);
  karp_free(out);

  CHECK(SolveInflate("{\"output\": \"nodeclaims\"}", &out, &size, &error) == KARP_OK);
  CHECK(out != NULL && strstr(out, "\"kind\": \"NodeClaim\"") != NULL);
  karp_free(out);

  /* The region's catalog: us-gov-west-1's zones. */
  CHECK(SolveInflate("{\"region\": \"us-gov-west-1\"}", &out, &size, &error) == KARP_OK);
  CHECK(out != NULL && strstr(out, "\"zone\": \"us-gov-west-1") != NULL);
  karp_free(out);
}

static void TestErrors(void) {
  char* out = (char*)"not reset";
  char* error = NULL;
  size_t size = 7;
  karp_input bad = Text("bad.json", "{\"apiVersion\": \"v1\", \"kind\": \"Pod\"");
  CHECK(karp_solve(&bad, 1, NULL, NULL, &out, &size, &error) == KARP_INVALID_ARGUMENT);
  CHECK(out == NULL && size == 0);
  CHECK(error != NULL && strncmp(error, "bad.json: ", 10) == 0 && strchr(error, '\n') == NULL);
  karp_free(error);

  CHECK(SolveInflate("{\"region\": 5}", &out, &size, &error) == KARP_INVALID_ARGUMENT);
  CHECK(error != NULL && strcmp(error, "options: region: must be a string") == 0);
  karp_free(error);
  CHECK(SolveInflate("{\"colour\": \"red\"}", &out, &size, &error) == KARP_INVALID_ARGUMENT);
  CHECK(error != NULL && strstr(error, "colour: unknown option") != NULL);
  karp_free(error);
  CHECK(SolveInflate("[1]", &out, &size, &error) == KARP_INVALID_ARGUMENT);
  karp_free(error);
  CHECK(SolveInflate("{\"region\": \"mars-1\"}", &out, &size, &error) == KARP_INVALID_ARGUMENT);
  CHECK(error != NULL && strstr(error, "mars-1") != NULL);
  karp_free(error);

  karp_input catalog = Text("catalog.json", "{\"instanceTypes\": [{\"name\": \"\"}]}");
  CHECK(karp_catalog(&catalog, NULL, &out, &size, &error) == KARP_INVALID_ARGUMENT);
  CHECK(error != NULL && strstr(error, "catalog.json: instanceTypes[0].name") != NULL);
  karp_free(error);

  /* NULL where a pointer is required; a NULL error pointer is allowed. */
  CHECK(karp_solve(NULL, 0, NULL, NULL, &out, &size, &error) == KARP_INVALID_ARGUMENT);
  CHECK(error != NULL && strstr(error, "snapshot") != NULL);
  karp_free(error);
  CHECK(SolveInflate(NULL, NULL, &size, &error) == KARP_INVALID_ARGUMENT);
  karp_free(error);
  CHECK(karp_solve(&bad, 1, NULL, NULL, &out, NULL, NULL) == KARP_INVALID_ARGUMENT);
  CHECK(out == NULL);
  karp_free(NULL);
}

static void TestOtherCommands(const char* examples) {
  char* out = NULL;
  char* error = NULL;
  size_t size = 0;
  CHECK(karp_catalog(NULL, "{\"region\": \"us-gov-west-1\", \"output\": \"yaml\"}", &out, &size,
                     &error) == KARP_OK);
  CHECK(out != NULL && strstr(out, "instanceTypes:\n") != NULL && strstr(out, "m5.large") != NULL);
  karp_free(out);

  char path[4096];
  snprintf(path, sizeof path, "%s/consolidate_cluster.yaml", examples);
  size_t n = 0;
  char* cluster = ReadFile(path, &n);
  CHECK(cluster != NULL);
  if (cluster != NULL) {
    karp_input snap = {path, cluster, n};
    CHECK(karp_consolidate(&snap, 1, NULL, "{\"now\": \"2026-01-01T12:00:00Z\"}", &out, &size,
                           &error) == KARP_OK);
    CHECK(out != NULL && strstr(out, "\"commands\"") != NULL);
    karp_free(out);
    free(cluster);
  }

  snprintf(path, sizeof path, "%s/traces/inflate.yaml", examples);
  char* trace = ReadFile(path, &n);
  CHECK(trace != NULL);
  if (trace != NULL) {
    karp_input in = {path, trace, n};
    CHECK(karp_simulate(&in, NULL, "{\"policies\": [\"empty-spot\"], \"sample\": \"5m\"}", &out,
                        &size, &error) == KARP_OK);
    CHECK(out != NULL && strncmp(out, "policy,time_s,nodes,", 20) == 0);
    CHECK(out != NULL && strstr(out, "\nempty-spot,300,") != NULL);
    karp_free(out);
    CHECK(karp_simulate(&in, NULL, "{\"policies\": [\"nope\"]}", &out, &size, &error) ==
          KARP_INVALID_ARGUMENT);
    CHECK(error != NULL && strstr(error, "unknown policy \"nope\"") != NULL);
    karp_free(error);
    free(trace);
  }
}

/* Several threads solving at once get the same bytes as one thread alone. */
static void* SolveThread(void* arg) {
  char** result = (char**)arg;
  size_t size = 0;
  if (SolveInflate(NULL, result, &size, NULL) != KARP_OK) *result = NULL;
  return NULL;
}

static void TestThreads(void) {
  enum { kThreads = 4 };
  pthread_t threads[kThreads];
  char* results[kThreads];
  for (int i = 0; i < kThreads; ++i) pthread_create(&threads[i], NULL, SolveThread, &results[i]);
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  for (int i = 0; i < kThreads; ++i) {
    CHECK(results[i] != NULL && results[0] != NULL && strcmp(results[i], results[0]) == 0);
  }
  for (int i = 0; i < kThreads; ++i) karp_free(results[i]);
}

/* `karp_c_test COMMAND INPUT CATALOG OPTIONS`: prints the result, or the error and exit 1. */
static int RunOne(char** argv) {
  size_t n = 0, m = 0;
  char* text = strcmp(argv[2], "-") == 0 ? NULL : ReadFile(argv[2], &n);
  char* catalog_text = strcmp(argv[3], "-") == 0 ? NULL : ReadFile(argv[3], &m);
  karp_input input = {argv[2], text, n};
  karp_input catalog = {argv[3], catalog_text, m};
  const karp_input* cat = catalog_text == NULL ? NULL : &catalog;
  char* out = NULL;
  char* error = NULL;
  size_t size = 0;
  karp_status s = KARP_INVALID_ARGUMENT;
  if (strcmp(argv[1], "solve") == 0) {
    s = karp_solve(&input, 1, cat, argv[4], &out, &size, &error);
  } else if (strcmp(argv[1], "consolidate") == 0) {
    s = karp_consolidate(&input, 1, cat, argv[4], &out, &size, &error);
  } else if (strcmp(argv[1], "catalog") == 0) {
    s = karp_catalog(cat, argv[4], &out, &size, &error);
  } else if (strcmp(argv[1], "simulate") == 0) {
    s = karp_simulate(&input, cat, argv[4], &out, &size, &error);
  }
  if (s == KARP_OK) fwrite(out, 1, size, stdout);
  if (s != KARP_OK) fprintf(stderr, "%s: %s\n", karp_status_name(s), error ? error : "?");
  karp_free(out);
  karp_free(error);
  free(text);
  free(catalog_text);
  return s == KARP_OK ? 0 : 1;
}

/* karp_read_file: the CLI's capped reader (the OS's reason, the cap named with its flag). */
static void TestReadFile(const char* examples) {
  char path[4096];
  snprintf(path, sizeof path, "%s/inflate.yaml", examples);
  char* out = NULL;
  char* error = NULL;
  size_t size = 0;
  CHECK(karp_read_file(path, 0, &out, &size, &error) == KARP_OK);
  CHECK(out != NULL && size == inflate_size && memcmp(out, inflate_text, size) == 0);
  karp_free(out);
  CHECK(karp_read_file(path, 10, &out, &size, &error) == KARP_RESOURCE_EXHAUSTED);
  CHECK(out == NULL && error != NULL && strstr(error, "larger than the input limit of 10 bytes") != NULL);
  karp_free(error);
  CHECK(karp_read_file("/dev/zero", 1 << 20, &out, &size, &error) == KARP_RESOURCE_EXHAUSTED);
  karp_free(error);
  CHECK(karp_read_file("/nonexistent/x.yaml", 0, &out, &size, &error) == KARP_INVALID_ARGUMENT);
  CHECK(error != NULL && strstr(error, "No such file or directory") != NULL);
  karp_free(error);
  CHECK(karp_read_file(NULL, 0, &out, &size, &error) == KARP_INVALID_ARGUMENT);
  karp_free(error);
}

int main(int argc, char** argv) {
  if (argc == 5) return RunOne(argv);
  if (argc != 2) {
    fprintf(stderr, "usage: karp_c_test EXAMPLES_DIR | COMMAND INPUT CATALOG OPTIONS\n");
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/inflate.yaml", argv[1]);
  inflate_text = ReadFile(path, &inflate_size);
  if (inflate_text == NULL) {
    fprintf(stderr, "cannot read %s\n", path);
    return 1;
  }
  TestVersion();
  TestSolve();
  TestErrors();
  TestOtherCommands(argv[1]);
  TestReadFile(argv[1]);
  TestThreads();
  free(inflate_text);
  printf("%d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
