package ecmul

import (
	"math/big"

	"github.com/rnsec/ecmul/internal/engine"
	"github.com/rnsec/ecmul/internal/gpu"
)

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
