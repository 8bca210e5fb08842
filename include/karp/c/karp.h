/* File: karp/c/karp.h
 *
 * The C API of karp: a small, stable, exception-free interface for hosts in other languages
 * (the Go package in bindings/go and the Python module in bindings/python use it). The C++ API
 * (karp/karp.h) stays the primary one; this one trades types for stability: every call takes
 * the documented JSON/YAML formats (docs/formats.md: snapshots, catalogs) plus an options JSON
 * object (docs/bindings.md) and returns the bytes the `karp` CLI prints for the same inputs.
 *
 * Library: libkarp_c.so (SONAME libkarp_c.so.1); link with -lkarp_c. Only the karp_* symbols
 * below are exported. KARP_C_ABI_VERSION changes, with the SONAME, whenever a declaration here
 * changes incompatibly; functions may be added within one ABI version.
 *
 * Ownership: inputs are borrowed for the duration of the call. On success `*out` is a buffer
 * allocated by karp, `*out_size` bytes plus a terminating NUL, that the caller releases with
 * karp_free(); on failure `*out` is NULL. When `error` is not NULL, `*error` receives on
 * failure a NUL-terminated one-line message (the same line the CLI prints, naming the input
 * and the JSON path of the bad value), also released with karp_free(), and NULL on success.
 *
 * Errors: the return value is a karp_status; nothing throws, aborts or exits. Bad input is
 * KARP_INVALID_ARGUMENT, never a crash.
 *
 * Thread-safety: every function may be called from several threads at once; calls share no
 * state (each parses its own inputs).
 *
 * Complexity: that of the work done (parsing is linear in the input; see karp/scheduler.h
 * and karp/consolidator.h).
 *
 * Example:
 *   karp_input snap = {"inflate.yaml", text, text_size};
 *   char* out = NULL; size_t size = 0; char* err = NULL;
 *   if (karp_solve(&snap, 1, NULL, "{\"region\": \"us-east-1\"}", &out, &size, &err) != KARP_OK) {
 *     fprintf(stderr, "%s\n", err); karp_free(err); return 1;
 *   }
 *   fwrite(out, 1, size, stdout);  // what `karp solve -f inflate.yaml` prints
 *   karp_free(out);
 */

#ifndef KARP_C_KARP_H_
#define KARP_C_KARP_H_

#include <stddef.h>

#if defined(_WIN32)
#define KARP_C_API
#else
#define KARP_C_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version of this header; karp_abi_version() is the library's. */
#define KARP_C_ABI_VERSION 1

typedef enum karp_status {
  KARP_OK = 0,
  /* Bad input: a snapshot, catalog, trace or options text that does not parse or validate,
   * or a NULL pointer where one is required. */
  KARP_INVALID_ARGUMENT = 1,
  /* An input larger than karp accepts (2 GiB; YAML 128 MiB). */
  KARP_RESOURCE_EXHAUSTED = 2,
  /* A bug in karp, or memory exhausted. */
  KARP_INTERNAL = 3
} karp_status;

/* One input text: JSON, or YAML with one or more documents. `source` names it in error
 * messages (a file name, or NULL for "input"); `data` need not be NUL-terminated. */
typedef struct karp_input {
  const char* source;
  const char* data;
  size_t size;
} karp_input;

/* The library's ABI version (KARP_C_ABI_VERSION of the header it was built with). */
KARP_C_API int karp_abi_version(void);

/* karp's version, e.g. "0.1.0" (a static string; do not free). */
KARP_C_API const char* karp_version(void);

/* A static name for a status, e.g. "INVALID_ARGUMENT" (do not free). */
KARP_C_API const char* karp_status_name(karp_status status);

/* `karp solve`: where the pending pods of the snapshot go. `snapshot` is `count` >= 1 inputs
 * merged into one snapshot (as several -f files); `catalog` the instance types (docs/formats.md
 * §2), or NULL for the embedded AWS catalog of options.region/zones; `options` a JSON object
 * or NULL (fields output, region, zones, preferencePolicy, minValuesPolicy,
 * maxInstanceTypes, packing, costAttempts, costThreads, costDeadline). `*out`:
 * `karp solve -o <output>`'s standard output. */
KARP_C_API karp_status karp_solve(const karp_input* snapshot, size_t count,
                                  const karp_input* catalog, const char* options, char** out,
                                  size_t* out_size, char** error);

/* `karp consolidate`: which nodes to delete or replace. Inputs as karp_solve; options also
 * now (RFC 3339; default the current time), once, spotToSpot, legacyOrder, repack (the re-pack
 * mode, docs/repack.md); output json, yaml or nodeclaims (the replacements). */
KARP_C_API karp_status karp_consolidate(const karp_input* snapshot, size_t count,
                                        const karp_input* catalog, const char* options, char** out,
                                        size_t* out_size, char** error);

/* `karp catalog -o json|yaml`: the catalog `catalog` (validated and written canonically), or
 * the embedded AWS catalog of options.region/zones when it is NULL. */
KARP_C_API karp_status karp_catalog(const karp_input* catalog, const char* options, char** out,
                                    size_t* out_size, char** error);

/* `karp simulate --trace TRACE --csv -`: the per-sample CSV of the trace under each policy of
 * options.policies (default all), with header
 *   policy,time_s,nodes,launching,pods_running,pods_pending,price_per_hour,disruptions,evictions
 * `catalog` NULL uses options.catalog ("sim", default, or "aws"); options also sample,
 * disruptionInterval, launchLatency. Policies run one after the other on the calling thread. */
KARP_C_API karp_status karp_simulate(const karp_input* trace, const karp_input* catalog,
                                     const char* options, char** out, size_t* out_size,
                                     char** error);

/* Reads the file at `path` ("-": standard input) as the CLI reads its inputs: a regular file
 * is measured before it is read, a stream is cut off as soon as it passes its cap, so an
 * endless or huge input fails fast. `max_bytes` 0 keeps karp's caps (2 GiB for a file, 1 GiB
 * for a stream, 128 MiB for YAML, sized so that reading stays near 4 GB of memory); a positive
 * value sets all three (`--max-input-bytes`). On success `*out` holds the bytes (karp_free).
 * Errors: KARP_INVALID_ARGUMENT `<path>: cannot read file: <the OS's reason>`;
 * KARP_RESOURCE_EXHAUSTED `<path>: larger than the input limit of N bytes[ for a stream| for
 * YAML] (see --max-input-bytes)`. */
KARP_C_API karp_status karp_read_file(const char* path, long long max_bytes, char** out,
                                      size_t* out_size, char** error);

/* Releases a buffer karp returned (NULL is allowed). */
KARP_C_API void karp_free(void* buffer);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KARP_C_KARP_H_ */
