package engine

import (
	"errors"
	"fmt"
)

// The errors of an Engine's calls; test for them with errors.Is. An item's
// own error (Result.Err, Status.Err) matches ErrInvalidPoint or
// ErrInvalidScalar and says precisely what is wrong.
var (
	// ErrInvalidPoint is matched by the error of an item whose point is
	// missing, malformed, off the curve, has a coordinate outside [0, p),
	// or is the point at infinity.
	ErrInvalidPoint = errors.New("ecmul: invalid point")
	// ErrInvalidScalar is matched by the error of an item whose scalar is
	// missing, negative, or of more than 512 bits.
	ErrInvalidScalar = errors.New("ecmul: invalid scalar")
	// ErrBatchLayout reports a batch whose slices or buffers do not
	// describe one batch: points and scalars of different lengths, or
	// buffers of ScalarMultBytes whose lengths do not agree.
	ErrBatchLayout = errors.New("ecmul: batch layout")
	// ErrClosed is returned by every call on an Engine after its Close,
	// a second Close included, and on an Engine not made by New.
	ErrClosed = errors.New("ecmul: engine closed")
)

// maxScalarBits is the largest scalar accepted; scalars are reduced mod n.
const maxScalarBits = 512

// The causes of an invalid item that are not the curve's own: each reads
// as it says, and matches its class.
var (
	errNilPoint       = classError{"point is missing", ErrInvalidPoint}
	errNilScalar      = classError{"scalar is missing", ErrInvalidScalar}
	errScalarNegative = classError{"scalar is negative", ErrInvalidScalar}
	errScalarTooLarge = classError{fmt.Sprintf("scalar exceeds %d bits", maxScalarBits), ErrInvalidScalar}
	errLengthMismatch = classError{"ecmul: results, scalars and points differ in length", ErrBatchLayout}
)

// The causes of invalid items, for tests above this package that tell
// them apart.
var (
	ErrNilPoint       error = errNilPoint
	ErrNilScalar      error = errNilScalar
	ErrScalarNegative error = errScalarNegative
	ErrScalarTooLarge error = errScalarTooLarge
)

// MaxScalarBits is the largest scalar accepted.
const MaxScalarBits = maxScalarBits

// classError is a cause that reads as msg and matches class.
type classError struct {
	msg   string
	class error
}

func (e classError) Error() string        { return e.msg }
func (e classError) Is(target error) bool { return target == e.class }

// pointError is a point validation error of the curve (a *curves.PointError
// or one of its sentinels): it reads as that error, unwraps to it, and
// matches ErrInvalidPoint.
type pointError struct{ err error }

func (e pointError) Error() string        { return e.err.Error() }
func (e pointError) Unwrap() error        { return e.err }
func (e pointError) Is(target error) bool { return target == ErrInvalidPoint }

// invalidPoint wraps a point validation error of the curve, nil staying
// nil.
func invalidPoint(err error) error {
	if err == nil {
		return nil
	}
	return pointError{err}
}
