package main

import (
	"context"
	"io"
	"os"
	"slices"
	"time"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
)

// openedStream is what a stream command (mul, base, ecdsa-sign,
// ecdsa-verify) runs on once open: the context that SIGINT or SIGTERM
// ends, the input, the output (replaced when committed) and the engine.
type openedStream struct {
	ctx         context.Context
	stopSignals func() os.Signal
	in          io.Reader
	out         *outputFile
	eng         *ecmul.Engine
	openTime    time.Duration // how long the engine took to open, for --stats
	closers     []func()
}

// openStream catches the signals and opens cmd's --in and --out, then the
// engine that c, opts and g describe. On an error it reports it, closes
// what it opened and returns nil and the exit status.
func openStream(cmd string, f *mulFlags, c *curves.Curve, opts ecmul.Options, g diag.Tuning, stdin io.Reader, stdout, stderr io.Writer) (*openedStream, int) {
	s := new(openedStream)
	s.ctx, s.stopSignals = catchSignals()
	s.closers = append(s.closers, func() { s.stopSignals() })
	fail := func(err error) (*openedStream, int) {
		s.close()
		return nil, report(stderr, cmd, exitFail, err)
	}
	in, closeIn, err := openInput(f.in, stdin)
	if err != nil {
		return fail(err)
	}
	s.in, s.closers = in, append(s.closers, closeIn)
	if s.out, err = openOutput(f.out, stdout); err != nil {
		return fail(err)
	}
	s.closers = append(s.closers, s.out.abort)
	opened := time.Now()
	if s.eng, err = diag.New(publicCurve(c), opts, g); err != nil {
		return fail(err)
	}
	s.openTime = time.Since(opened)
	s.closers = append(s.closers, func() { s.eng.Close() })
	return s, exitOK
}

// close closes the engine, drops the output unless it was committed,
// closes the input and stops catching signals.
func (s *openedStream) close() {
	for _, c := range slices.Backward(s.closers) {
		c()
	}
}
