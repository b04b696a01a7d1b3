package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"strings"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/basext"
	"github.com/rnsec/ecmul/curves"
)

// maxLine bounds one input line; a longer line is answered with an error
// and skipped without being held in memory.
const maxLine = 4096

const mulHelp = `Usage: ecmul mul [flags]

Reads one item per non-empty line:

    SCALAR_HEX X_HEX Y_HEX

(hexadecimal, any case, an optional 0x prefix; the scalar is any non-negative
integer of up to 512 bits and is reduced mod n) and writes one line per item,
in input order:

    X_HEX Y_HEX     the result, lowercase hex zero-padded to the field size
    infinity        the result is the point at infinity (k ≡ 0 mod n)
    error: REASON   the item is invalid (bad hex, coordinate >= p, point not
                    on the curve, (0,0), scalar too large, ...)

Input is processed in chunks, so arbitrarily long streams run in bounded memory.
Lines longer than 4096 bytes are answered with an error.

Exit status: 0 when every item succeeded, 1 when any item failed (or the run
could not complete), 2 for usage errors.

Flags:
`

type mulFlags struct {
	curve, backend, ext, in, out string
	chunk                        int
}

func addEngineFlags(fs *flag.FlagSet, f *mulFlags) {
	fs.StringVar(&f.curve, "curve", "p224", "curve: p224, p256 or secp256k1")
	fs.StringVar(&f.backend, "backend", "auto", "backend: auto (gpu if present, else cpu), gpu, rns-cpu or cpu")
	fs.StringVar(&f.ext, "ext", "shenoy", "base extension of the rns-cpu and gpu backends: shenoy or kawamura")
}

// newEngine builds the engine the flags describe; a non-nil error is a usage error
// when usage is true.
func newEngine(f *mulFlags) (eng *ecmul.Engine, usage bool, err error) {
	c, err := curves.ByName(f.curve)
	if err != nil {
		return nil, true, err
	}
	b, err := ecmul.ParseBackend(f.backend)
	if err != nil {
		return nil, true, err
	}
	v, err := basext.ParseVariant(f.ext)
	if err != nil {
		return nil, true, err
	}
	eng, err = ecmul.New(c, ecmul.Options{Backend: b, Ext: v})
	return eng, false, err
}

func runMul(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f mulFlags
	fs := flag.NewFlagSet("mul", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), mulHelp); fs.PrintDefaults() }
	addEngineFlags(fs, &f)
	fs.StringVar(&f.in, "in", "-", "input file (- for standard input)")
	fs.StringVar(&f.out, "out", "-", "output file (- for standard output)")
	fs.IntVar(&f.chunk, "chunk", 1<<16, "items read and computed per batch")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 || f.chunk < 1 {
		fmt.Fprintf(stderr, "ecmul mul: unexpected arguments or --chunk below 1\n")
		return exitUsage
	}
	eng, isUsage, err := newEngine(&f)
	if err != nil {
		fmt.Fprintf(stderr, "ecmul mul: %v\n", err)
		if isUsage {
			return exitUsage
		}
		return exitFail
	}
	defer eng.Close()

	in := stdin
	if f.in != "-" {
		file, err := os.Open(f.in)
		if err != nil {
			fmt.Fprintf(stderr, "ecmul mul: %v\n", err)
			return exitFail
		}
		defer file.Close()
		in = file
	}
	out := stdout
	var outFile *os.File
	if f.out != "-" {
		outFile, err = os.Create(f.out)
		if err != nil {
			fmt.Fprintf(stderr, "ecmul mul: %v\n", err)
			return exitFail
		}
		out = outFile
	}
	failed, err := mulStream(context.Background(), eng, in, out, f.chunk)
	if outFile != nil {
		if cerr := outFile.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "ecmul mul: %v\n", err)
		return exitFail
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "ecmul mul: %d item(s) failed\n", failed)
		return exitFail
	}
	return exitOK
}

// parsedLine is one input item: its point and scalar, or why it is invalid.
type parsedLine struct {
	point  *ecmul.Point
	scalar *big.Int
	err    error         // the line is invalid
	res    *ecmul.Result // the computed result of a valid line
}

func parseLine(c *curves.Curve, line string) parsedLine {
	fields := strings.Fields(line)
	if len(fields) != 3 {
		return parsedLine{err: fmt.Errorf("want 3 fields (SCALAR_HEX X_HEX Y_HEX), got %d", len(fields))}
	}
	k, err := ecmul.ParseScalarHex(fields[0])
	if err != nil {
		return parsedLine{err: err}
	}
	x, err := c.ParseHexCoordinate(fields[1])
	if err != nil {
		return parsedLine{err: fmt.Errorf("x: %w", err)}
	}
	y, err := c.ParseHexCoordinate(fields[2])
	if err != nil {
		return parsedLine{err: fmt.Errorf("y: %w", err)}
	}
	return parsedLine{point: &ecmul.Point{X: x, Y: y}, scalar: k}
}

// lineReader yields non-empty lines, cutting any line longer than maxLine.
type lineReader struct {
	r   *bufio.Reader
	err error
}

// next returns the next non-empty line; tooLong reports a line cut at maxLine.
func (lr *lineReader) next() (line string, tooLong, ok bool) {
	for lr.err == nil {
		b, err := lr.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			for errors.Is(err, bufio.ErrBufferFull) { // skip the rest of the line
				_, err = lr.r.ReadSlice('\n')
			}
			lr.err = err
			return "", true, true
		}
		if err != nil {
			lr.err = err
		}
		if len(bytes.TrimRight(b, "\r\n")) > maxLine {
			return "", true, true
		}
		if s := string(bytes.TrimSpace(b)); s != "" {
			return s, false, true
		}
	}
	return "", false, false
}

// mulStream answers every line of in on out, chunk items at a time, and
// returns how many items failed.
func mulStream(ctx context.Context, eng *ecmul.Engine, in io.Reader, out io.Writer, chunk int) (failed int, err error) {
	lr := &lineReader{r: bufio.NewReaderSize(in, maxLine+2)} // room for "\r\n"
	w := bufio.NewWriterSize(out, 1<<16)
	c := eng.Curve()
	width := 2 * c.ByteLen
	lines := make([]parsedLine, 0, chunk)
	for {
		lines = lines[:0]
		for len(lines) < chunk {
			s, tooLong, ok := lr.next()
			if !ok {
				break
			}
			if tooLong {
				lines = append(lines, parsedLine{err: fmt.Errorf("line longer than %d bytes", maxLine)})
				continue
			}
			lines = append(lines, parseLine(c, s))
		}
		if len(lines) == 0 {
			break
		}
		var pts []*ecmul.Point
		var ks []*big.Int
		var idx []int
		for i, l := range lines {
			if l.err == nil {
				pts, ks, idx = append(pts, l.point), append(ks, l.scalar), append(idx, i)
			}
		}
		res, batchErr := eng.ScalarMult(ctx, pts, ks)
		if batchErr != nil && res == nil {
			return failed, batchErr
		}
		for n, i := range idx {
			lines[i].res = &res[n]
		}
		for _, l := range lines {
			if l.err == nil && l.res.Err != nil {
				l.err = l.res.Err
				var ie *ecmul.ItemError
				if errors.As(l.err, &ie) {
					l.err = ie.Err // the item index of a batch means nothing to the reader
				}
			}
			switch {
			case l.err != nil:
				failed++
				fmt.Fprintf(w, "error: %s\n", oneLine(l.err.Error()))
			case l.res.Infinity:
				fmt.Fprintln(w, "infinity")
			default:
				fmt.Fprintf(w, "%0*x %0*x\n", width, l.res.X, width, l.res.Y)
			}
		}
		if batchErr != nil {
			w.Flush()
			return failed, batchErr
		}
		if err := w.Flush(); err != nil {
			return failed, err
		}
	}
	if lr.err != nil && lr.err != io.EOF {
		return failed, lr.err
	}
	return failed, w.Flush()
}

// oneLine keeps an error message on a single output line.
func oneLine(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\r", " "), "\n", " ") }
