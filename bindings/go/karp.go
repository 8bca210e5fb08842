// Package karp runs karp, the decision engine of a Kubernetes node autoscaler, from Go.
//
// It calls the C API of libkarp_c.so (include/karp/c/karp.h) through cgo: Solve decides which
// nodes to launch for the pending pods of a snapshot, Consolidate which nodes to delete or
// replace, Catalog lists instance types. Inputs are the documented formats (docs/formats.md):
// a snapshot as `kubectl get ... -o json|yaml` prints it (or built from Go values with
// Snapshot), and an instance-type catalog (nil: karp's embedded AWS catalog). Results are typed
// structs that also keep the exact bytes `karp solve` / `karp consolidate` print (Raw).
//
// Build: cgo needs the header (found through this directory) and the library:
//
//	CGO_LDFLAGS="-L$BUILD/bindings -Wl,-rpath,$BUILD/bindings" go test ./...
//
// Every function is safe for concurrent use. Errors are *Error values with a Code.
package karp

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: -lkarp_c
#include <stdlib.h>
#include "karp/c/karp.h"
*/
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unsafe"
)

// Code classifies an error, as karp_status does.
type Code int

const (
	// InvalidArgument: bad input (the message names the input, object and field).
	InvalidArgument Code = C.KARP_INVALID_ARGUMENT
	// ResourceExhausted: an input larger than karp accepts.
	ResourceExhausted Code = C.KARP_RESOURCE_EXHAUSTED
	// Internal: a bug in karp.
	Internal Code = C.KARP_INTERNAL
)

func (c Code) String() string { return C.GoString(C.karp_status_name(C.karp_status(c))) }

// Error is what every function of the package returns on failure.
type Error struct {
	Code    Code
	Message string // one line, as the karp CLI prints it
}

func (e *Error) Error() string { return "karp: " + e.Message }

// Is reports whether target is an *Error with the same Code, so that
// errors.Is(err, &karp.Error{Code: karp.InvalidArgument}) works.
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Code == e.Code
}

// Version is the version of the karp library in use.
func Version() string { return C.GoString(C.karp_version()) }

// ABIVersion is the ABI version of libkarp_c (KARP_C_ABI_VERSION).
func ABIVersion() int { return int(C.karp_abi_version()) }

// Input is one named document (JSON or YAML); Source names it in error messages.
type Input struct {
	Source string
	Data   []byte
}

// cInputs copies inputs to C memory (cgo forbids passing Go memory holding Go pointers).
type cInputs struct {
	array   *C.karp_input
	count   C.size_t
	buffers []unsafe.Pointer
}

func newCInputs(inputs []Input) *cInputs {
	c := &cInputs{count: C.size_t(len(inputs))}
	if len(inputs) == 0 {
		return c
	}
	size := C.size_t(unsafe.Sizeof(C.karp_input{})) * c.count
	c.array = (*C.karp_input)(C.malloc(size))
	items := unsafe.Slice(c.array, len(inputs))
	for i, in := range inputs {
		source := C.CString(in.Source)
		data := C.CBytes(in.Data)
		c.buffers = append(c.buffers, unsafe.Pointer(source), data)
		items[i] = C.karp_input{source: source, data: (*C.char)(data), size: C.size_t(len(in.Data))}
	}
	return c
}

func (c *cInputs) first() *C.karp_input { return c.array }

func (c *cInputs) free() {
	for _, b := range c.buffers {
		C.free(b)
	}
	C.free(unsafe.Pointer(c.array))
}

type cCall func(out **C.char, size *C.size_t, errMsg **C.char) C.karp_status

// run calls the C function on a goroutine of its own and returns its output; when ctx ends
// first, run returns ctx.Err() at once (the call finishes in the background, its result
// discarded: the C API cannot be interrupted).
func run(ctx context.Context, inputs []*cInputs, options wireOptions, call func(opts *C.char) cCall) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	optionsJSON, err := json.Marshal(options)
	if err != nil {
		return nil, &Error{Code: InvalidArgument, Message: "options: " + err.Error()}
	}
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			for _, in := range inputs {
				in.free()
			}
		}()
		copts := C.CString(string(optionsJSON))
		defer C.free(unsafe.Pointer(copts))
		var out, msg *C.char
		var size C.size_t
		status := call(copts)(&out, &size, &msg)
		defer C.karp_free(unsafe.Pointer(out))
		defer C.karp_free(unsafe.Pointer(msg))
		if status != C.KARP_OK {
			done <- result{err: &Error{Code: Code(status), Message: C.GoString(msg)}}
			return
		}
		done <- result{out: C.GoBytes(unsafe.Pointer(out), C.int(size))}
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// snapshotInputs names a snapshot given as bytes.
func snapshotInputs(snapshot []byte) []Input { return []Input{{Source: "snapshot", Data: snapshot}} }

func catalogInputs(catalog []byte) *cInputs {
	if catalog == nil {
		return newCInputs(nil)
	}
	return newCInputs([]Input{{Source: "catalog", Data: catalog}})
}

// runSnapshot runs karp_solve, or karp_consolidate when consolidate is set.
func runSnapshot(ctx context.Context, snapshot []Input, catalog []byte, options wireOptions, consolidate bool) ([]byte, error) {
	snap, cat := newCInputs(snapshot), catalogInputs(catalog)
	return run(ctx, []*cInputs{snap, cat}, options, func(o *C.char) cCall {
		return func(out **C.char, size *C.size_t, msg **C.char) C.karp_status {
			if consolidate {
				return C.karp_consolidate(snap.first(), snap.count, cat.first(), o, out, size, msg)
			}
			return C.karp_solve(snap.first(), snap.count, cat.first(), o, out, size, msg)
		}
	})
}

// decode fills v from a JSON result of karp.
func decode(raw []byte, v any, what string) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return &Error{Code: Internal, Message: fmt.Sprintf("decoding the %s: %v", what, err)}
	}
	return nil
}

// SolveRaw is Solve over several named inputs, returning exactly what
// `karp solve -f ... -o <opts.Output>` prints (json, yaml or nodeclaims).
func SolveRaw(ctx context.Context, snapshot []Input, catalog []byte, opts *SolveOptions) ([]byte, error) {
	return runSnapshot(ctx, snapshot, catalog, opts.wire(), false)
}

// Solve decides where the pending pods of snapshot (JSON or YAML, one or more documents) go:
// existing nodes, in-flight NodeClaims, or new NodeClaims to launch. catalog is an
// instance-type catalog (docs/formats.md §2), or nil for the embedded AWS catalog of
// opts.Region and opts.Zones. opts may be nil; its Output is ignored (use SolveRaw for yaml or
// nodeclaims).
func Solve(ctx context.Context, snapshot []byte, catalog []byte, opts *SolveOptions) (*SolveResult, error) {
	o := opts.wire()
	o.Output = "json"
	raw, err := runSnapshot(ctx, snapshotInputs(snapshot), catalog, o, false)
	if err != nil {
		return nil, err
	}
	result := &SolveResult{Raw: raw}
	if err := decode(raw, result, "result"); err != nil {
		return nil, err
	}
	return result, nil
}

// ConsolidateRaw is Consolidate over several named inputs, returning exactly what
// `karp consolidate -f ... -o <opts.Output>` prints (json, yaml or nodeclaims).
func ConsolidateRaw(ctx context.Context, snapshot []Input, catalog []byte, opts *ConsolidateOptions) ([]byte, error) {
	return runSnapshot(ctx, snapshot, catalog, opts.wire(), true)
}

// Consolidate decides which nodes of snapshot to delete or replace to cut cost, and why the
// others are kept: the commands successive disruption loops would run. catalog and opts as
// for Solve; opts.Now is the clock (zero: the current time).
func Consolidate(ctx context.Context, snapshot []byte, catalog []byte, opts *ConsolidateOptions) (*ConsolidationPlan, error) {
	o := opts.wire()
	o.Output = "json"
	raw, err := runSnapshot(ctx, snapshotInputs(snapshot), catalog, o, true)
	if err != nil {
		return nil, err
	}
	plan := &ConsolidationPlan{Raw: raw}
	if err := decode(raw, plan, "plan"); err != nil {
		return nil, err
	}
	return plan, nil
}

// Catalog lists the instance types of catalog (validated; nil: the embedded AWS catalog of
// opts.Region and opts.Zones) in the catalog format, as `karp catalog -o json` prints it.
func Catalog(ctx context.Context, catalog []byte, opts *CatalogOptions) (*InstanceCatalog, error) {
	cat := catalogInputs(catalog)
	raw, err := run(ctx, []*cInputs{cat}, opts.wire(), func(o *C.char) cCall {
		return func(out **C.char, size *C.size_t, msg **C.char) C.karp_status {
			return C.karp_catalog(cat.first(), o, out, size, msg)
		}
	})
	if err != nil {
		return nil, err
	}
	result := &InstanceCatalog{Raw: raw}
	if err := decode(raw, result, "catalog"); err != nil {
		return nil, err
	}
	return result, nil
}
