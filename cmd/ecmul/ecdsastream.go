package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
)

// ecdsaJob is what ecdsa-sign and ecdsa-verify stream their lines
// through: a chunker on the engine that counts its items, and those it did
// not answer with a signature or a valid verdict.
type ecdsaJob interface {
	chunker
	counts() (items, bad int)
}

// streamECDSA runs cmd (ecdsa-sign or ecdsa-verify) with the engine that
// c, opts and g describe, in the library's own chunks (ECDSA's steps hold
// them): it opens --in and --out, streams the input through the job newJob
// makes, with the progress line, replaces --out only when every line was
// answered and no signal came, prints --stats, and returns the exit
// status. bad says what the items counted bad are ("failed", "not valid")
// in the closing line.
func streamECDSA(cmd, bad string, f *mulFlags, c *curves.Curve, opts ecmul.Options, g diag.Tuning, stdin io.Reader, stdout, stderr io.Writer,
	newJob func(ctx context.Context, eng *ecmul.Engine, out io.Writer, progress func(int)) ecdsaJob) int {
	g.Chunk = 0 // the library's own
	s, code := openStream(cmd, f, c, opts, g, stdin, stdout, stderr)
	if s == nil {
		return code
	}
	defer s.close()
	ctx, eng, out := s.ctx, s.eng, s.out
	start := time.Now()
	in, prog := mulProgress(stderr, cmd, eng, s.in, stream.Hex, false)
	job := newJob(ctx, eng, out, prog.add)
	err := runChunks(newCtxReader(ctx, in), job)
	prog.finish()
	sig := s.stopSignals()
	if err == nil && sig == nil {
		err = out.commit()
	}
	items, nbad := job.counts()
	if f.stats {
		printStats(stderr, "ecmul "+cmd, stream.Summary{Items: items, Failed: nbad}, time.Since(start), s.openTime, eng.Backend())
	}
	switch {
	case sig != nil:
		return interrupted(stderr, cmd, sig, items, out)
	case err != nil:
		return report(stderr, cmd, exitFail, err)
	case nbad > 0:
		fmt.Fprintf(stderr, "ecmul %s: %d of %d item(s) %s\n", cmd, nbad, items, bad)
		return exitFail
	}
	return exitOK
}
