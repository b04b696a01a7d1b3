package ecmul

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"unsafe"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/engine"
)

// Options configure an Engine. The zero value is the auto backend on every
// core and every visible GPU, with the library's RNS settings (package
// diag's New takes others).
type Options struct {
	Backend Backend // where the arithmetic runs; the zero value is Auto
	// Devices are the CUDA device ordinals the gpu backend shares each
	// batch among; nil means every visible device.
	Devices []int
	// Workers is how many goroutines share a batch's host work; 0 means
	// GOMAXPROCS. On the gpu backend, a batch of at most 16,384 items runs
	// it on the calling goroutine and min(Workers, GOMAXPROCS) − 2 others
	// (when that is at least 1) that the Engine keeps until Close: after
	// each such batch they spin for up to 2 ms (yielding their processors
	// every 100 µs), so that the next one finds them running, then park
	// (diag.Tuning.NoSpin turns this off).
	Workers int
	Logger  *slog.Logger // where events of note go (a GPU left out after a fault); nil means slog.Default()
}

// Backend names where the arithmetic runs. Its zero value is Auto.
type Backend uint8

const (
	Auto   Backend = iota // the gpu backend when a GPU can be used, otherwise the cpu backend
	GPU                   // the CUDA kernel, one thread per RNS channel
	RNSCPU                // the CPU twin of the kernel: the same RNS arithmetic, channel for channel
	CPU                   // constant-time k·P and k·G in four-limb arithmetic on every core
)

// String returns the backend's name: auto, gpu, rns-cpu or cpu.
func (b Backend) String() string { return engine.Backend(b).String() }

// Engine multiplies batches of points by scalars on one curve. It is safe
// for concurrent use. Make one with New; every call on an Engine not made
// by New, and every call after Close, returns an error matching ErrClosed.
type Engine struct {
	e *engine.Engine
}

func init() {
	engine.SetPublic(func(e *engine.Engine) *Engine { return &Engine{e} }, (*Engine).impl)
}

// impl is the engine behind e, nil for an Engine not made by New.
func (e *Engine) impl() *engine.Engine {
	if e == nil {
		return nil
	}
	return e.e
}

// New returns an Engine for curve c. With Backend GPU it fails, matching
// ErrNoDevice, when no GPU can be used; Auto then falls back to CPU.
func New(c Curve, opts Options) (*Engine, error) {
	if c.c == nil {
		return nil, fmt.Errorf("ecmul: %w: the zero Curve is not one", curves.ErrUnknownCurve)
	}
	e, err := engine.New(c.c, engineOptions(opts), engine.GPUConfig{})
	if err != nil {
		return nil, err
	}
	return &Engine{e}, nil
}

// engineOptions is o in package engine's terms.
func engineOptions(o Options) engine.Options {
	return engine.Options{Backend: engine.Backend(o.Backend), Devices: o.Devices, Workers: o.Workers, Logger: o.Logger}
}

// Curve returns the engine's curve (the zero Curve for an Engine not made
// by New).
func (e *Engine) Curve() Curve { return Curve{e.impl().Curve()} }

// Backend returns the backend in use: GPU, RNSCPU or CPU, Auto resolved
// (Auto for an Engine not made by New).
func (e *Engine) Backend() Backend { return Backend(e.impl().Backend()) }

// Close releases the engine's GPU resources, if any. Batches still running
// end with an error matching ErrClosed; a second Close returns ErrClosed.
func (e *Engine) Close() error { return e.impl().Close() }

// ScalarMult sets res[i] to scalars[i]·points[i] for every i; res, scalars
// and points have one length (else ErrBatchLayout). Each Result carries its
// own error when the item is invalid: a missing or invalid point (not on
// the curve, a coordinate outside [0, p), (0, 0)), a missing or negative
// scalar, or one of more than 512 bits; the valid items are computed all
// the same. Scalars are reduced mod n; a multiple of n gives the point at
// infinity. The error is non-nil only when the batch as a whole failed
// (lengths differ, ctx ended, Close, a GPU fault): then the items without
// a result carry that error too, and no item is reported computed that was
// not. Once ctx ends, validation stops within a few hundred items per
// worker (on the gpu backend, within one chunk) and computing within one
// chunk; the invalid items found before keep their own error. A nil ctx is
// context.Background(). On the gpu and cpu backends the coordinates of a
// batch's results share a few allocations (a slab of words), so that a
// batch leaves the collector a few objects rather than millions; a result
// kept keeps its batch's slab.
func (e *Engine) ScalarMult(ctx context.Context, res []Result, scalars []*big.Int, points []*Point) error {
	return e.impl().ScalarMult(ctx, engineResults(res), scalars, enginePoints(points))
}

// ScalarBaseMult sets res[i] to scalars[i]·G for every i, G the curve's
// generator: ScalarMult with G as every point, computed as
// ScalarBaseMultBytes computes it (the fixed-base comb on the gpu and
// rns-cpu backends), with ScalarMult's errors.
func (e *Engine) ScalarBaseMult(ctx context.Context, res []Result, scalars []*big.Int) error {
	return e.impl().ScalarBaseMult(ctx, engineResults(res), scalars)
}

// ScalarMultBytes multiplies count points by count scalars, bytes in and
// bytes out, as crypto/ecdh and nistec take them. With L =
// Curve().ByteLen():
//
//   - scalars holds count scalars of L bytes each, big-endian, any value
//     (reduced mod n), so count = len(scalars)/L;
//   - points holds count SEC1 points, all uncompressed (0x04‖x‖y, 1+2L
//     bytes each) or all compressed (0x02/0x03‖x, 1+L bytes each): the
//     length says which;
//   - out receives count results where status[i] is StatusPoint, zero bytes
//     otherwise, all in the format its length says: count·(1+2L) bytes for
//     uncompressed SEC1 points (0x04‖x‖y), count·(1+L) for compressed ones
//     (0x02/0x03‖x), count·L for x alone (ECDH's shared secret);
//   - status receives one Status per item: len(status) must be exactly
//     count.
//
// A bad point gets its own status and the other items are computed all the
// same. The error is non-nil only when the call failed as a whole: buffer
// lengths other than these (ErrBatchLayout), the context's end, Close
// (ErrClosed; so does an Engine not made by New), a GPU fault. Then
// every item without a result has StatusNotComputed, the zero Status (a bad
// point whose chunk was not reached included); when the call fails before
// it starts, every element of status is set to it, whatever its length.
//
// On the gpu backend nothing is allocated per item and neither a scalar
// nor a result passes through math/big: scalars are reduced and lifted to
// their ladder multiple in constant time, and multiplied in constant time
// on the GPU. On a batch of more than 16,384 uncompressed points the host
// only copies the bytes in and out, and the GPU decodes and checks the
// points and prepares the scalars too (SECURITY.md says what runs where).
// The cpu backend has its own bytes path, constant time from the scalar's
// bytes to the result's and the status, with no scalar or result in
// math/big either; the rns-cpu backend takes the same buffers through the
// *big.Int path.
func (e *Engine) ScalarMultBytes(ctx context.Context, out []byte, status []Status, scalars, points []byte) error {
	return e.impl().ScalarMultBytes(ctx, out, engineStatus(status), scalars, points)
}

// ScalarBaseMultBytes computes k·G for count scalars, G the curve's
// generator, bytes in and bytes out: it is ScalarMultBytes with G as every
// item's point, and takes scalars, out and status as ScalarMultBytes does
// (L-byte big-endian scalars of any value, reduced mod n; out's length
// picks uncompressed SEC1 points, compressed ones or x alone; one Status
// per item, StatusInfinity for k ≡ 0 mod n). Its errors, and the status of
// the items of a call that fails as a whole, are ScalarMultBytes's, and so
// is its constant time. The gpu and rns-cpu backends compute it on the
// fixed-base comb, a table of multiples of G uploaded once per Engine
// (read whole, each row kept by a mask of the scalar's digit); the gpu
// backend falls back to the ladder with G where the kernel has no comb for
// its configuration (the tile or spread mapping, the mma mapping on 16-bit
// channels, or Kawamura's extension). The cpu backend computes it on its
// own comb, in constant time too.
func (e *Engine) ScalarBaseMultBytes(ctx context.Context, out []byte, status []Status, scalars []byte) error {
	return e.impl().ScalarBaseMultBytes(ctx, out, engineStatus(status), scalars)
}

// ScalarBaseMultVarTimeBytes is ScalarBaseMultBytes for public scalars
// only: its time depends on the scalars, so it must never be given a
// secret one (a private key, an ECDSA nonce). It takes and returns what
// ScalarBaseMultBytes does, with the same results, errors and statuses.
// The gpu and rns-cpu backends compute it on a comb of 13-bit windows
// whose rows are read at their digits' addresses, at most half the mixed
// additions of ScalarBaseMultBytes' comb; where the gpu backend's kernel
// has no such comb (any configuration but the default's: Shenoy's
// extension, 30-bit channels and the mma mapping), and on the cpu backend,
// it computes as ScalarBaseMultBytes does. Package ecdsa computes the u1·G
// of verification with it.
func (e *Engine) ScalarBaseMultVarTimeBytes(ctx context.Context, out []byte, status []Status, scalars []byte) error {
	return e.impl().ScalarBaseMultVarTimeBytes(ctx, out, engineStatus(status), scalars)
}

// WithProgress returns a copy of ctx under which every batch of an Engine
// reports how far it has got: progress(done, total) is called as items get
// their results, done counting the items answered so far (invalid ones
// included, once validation is over) and total the batch's length. The
// calls come from the engine's goroutines, one at a time, with done growing
// from call to call; the last one has done == total when the batch
// completes, and fewer when it fails as a whole. They come about once per
// chunk of the gpu backend and once per few items on the CPU backends;
// progress must return quickly, since the batch waits for it.
//
// Progress rides on the context, as net/http/httptrace's hooks do, rather
// than in a parameter: it observes a call without changing what it
// computes, and it reaches the engine through whatever code passes ctx
// along (package ecdsa, a caller's own layers), every call keeping one
// signature. Each batch run under ctx reports its own done and total.
func WithProgress(ctx context.Context, progress func(done, total int)) context.Context {
	return engine.WithProgress(ctx, progress)
}

// engineResults is res as package engine's results: the same memory, the
// two types having one underlying type.
func engineResults(res []Result) []engine.Result {
	return unsafe.Slice((*engine.Result)(unsafe.SliceData(res)), len(res))
}

// enginePoints is points as package engine's points, the same memory:
// *Point and *engine.Point convert to one another (pointPointer).
func enginePoints(points []*Point) []*engine.Point {
	return unsafe.Slice((**engine.Point)(unsafe.Pointer(unsafe.SliceData(points))), len(points))
}

// pointPointer makes the build fail unless Point and engine.Point have one
// underlying type, as enginePoints takes them to.
var _ = (*engine.Point)((*Point)(nil))

// engineStatus is status as package engine's statuses, the same memory.
func engineStatus(status []Status) []engine.Status {
	return unsafe.Slice((*engine.Status)(unsafe.SliceData(status)), len(status))
}
