package ecmul

import (
	"context"
	"math/big"

	"github.com/rnsec/ecmul/internal/engine"
	"github.com/rnsec/ecmul/internal/gpu"
)

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
// The gpu and rns-cpu backends compute it on a comb of 10-bit windows
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

// Point is an affine point (x, y) of a curve. The point at infinity has no
// affine form: a Result says it with its Infinity flag.
type Point struct {
	X, Y *big.Int
}

// Result is the outcome of one item: a point, the point at infinity, or Err.
type Result struct {
	X, Y     *big.Int
	Infinity bool
	Err      error // nil when the item was computed; the item's own error, or the batch's, otherwise
}

// Status is the outcome of one item of ScalarMultBytes. Its zero value,
// StatusNotComputed, never means success: a status slice that a call did
// not fill reads as not computed.
type Status uint8

const (
	StatusNotComputed   Status = iota // no result: the call failed as a whole before this item got one (the zero value)
	StatusPoint                       // the result is an affine point, written in out's format
	StatusInfinity                    // the result is the point at infinity (k ≡ 0 mod n)
	StatusBadEncoding                 // the point's SEC1 encoding is malformed (ErrInvalidPoint)
	StatusBadCoordinate               // a coordinate is not below p (ErrInvalidPoint)
	StatusNotOnCurve                  // the point is not on the curve, or a compressed x has no point (ErrInvalidPoint)
	StatusInfinityInput               // the point given is the point at infinity, 0x00 or (0, 0) (ErrInvalidPoint)
	StatusResultCheck                 // the computed point failed its on-curve check: a fault
)

// Err returns the error of a failed item's status, or nil for StatusPoint
// and StatusInfinity: for a bad point one that matches ErrInvalidPoint
// (errors.Is), and says what is wrong.
func (s Status) Err() error { return engine.Status(s).Err() }

// String says what the status means: "point", "infinity", or its error's
// text.
func (s Status) String() string { return engine.Status(s).String() }

// The errors of an Engine's calls; test for them with errors.Is. An item's
// own error (Result.Err, Status.Err) matches ErrInvalidPoint or
// ErrInvalidScalar and says precisely what is wrong.
var (
	// ErrInvalidPoint is matched by the error of an item whose point is
	// missing, malformed, off the curve, has a coordinate outside [0, p),
	// or is the point at infinity.
	ErrInvalidPoint = engine.ErrInvalidPoint
	// ErrInvalidScalar is matched by the error of an item whose scalar is
	// missing, negative, or of more than 512 bits.
	ErrInvalidScalar = engine.ErrInvalidScalar
	// ErrBatchLayout reports a batch whose slices or buffers do not
	// describe one batch: results, scalars and points of different
	// lengths, or buffers of ScalarMultBytes whose lengths do not agree.
	ErrBatchLayout = engine.ErrBatchLayout
	// ErrClosed is returned by every call on an Engine after its Close, a
	// second Close included, and on an Engine not made by New.
	ErrClosed = engine.ErrClosed
	// ErrNoDevice is matched by New's error, with GPU as the backend, on a
	// host where no GPU can be used.
	ErrNoDevice = gpu.ErrNoDevice
)
