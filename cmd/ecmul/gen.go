package main

import (
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"

	"github.com/rnsec/ecmul/curves"
	"github.com/rnsec/ecmul/internal/par"
	"github.com/rnsec/ecmul/stream"
)

const genHelp = `Usage: ecmul gen [flags] [> output]

Writes --n random valid input lines (or raw records) for "ecmul mul", fast: every line is a
uniformly random scalar in [1, n) and a point drawn at random from a pool of
--pool random points k·G (computed once, on all cores). The output depends only
on --curve, --seed, --format, --compressed and --pool, so a seed names a
data set, and a run is a prefix of any longer one. Use it to feed experiments and memory measurements of "ecmul mul".

Formats (--format), the input formats of "ecmul mul":

  hex    SCALAR_HEX X_HEX Y_HEX
  sec1   SCALAR_HEX 04||X||Y        (02||X or 03||X with --compressed)
  jsonl  {"scalar":"HEX","x":"HEX","y":"HEX"}
  raw    SCALAR ‖ X ‖ Y             binary records, L bytes each (28 for
                                    P-224, 32 otherwise), no separators

Exit status: 0 on success, 1 when the output cannot be written, 2 for usage
errors.

Examples:

  ecmul gen --curve p256 --n 10000000 --seed 7 | ecmul mul --curve p256 --stats > /dev/null
  ecmul gen --curve secp256k1 --n 1000 --format sec1 --compressed --out items.txt

Flags:
`

func runGen(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), genHelp); fs.PrintDefaults() }
	curve := fs.String("curve", "p224", "curve: p224, p256 or secp256k1")
	n := fs.Int64("n", 1000, "number of lines")
	seed := fs.Uint64("seed", 1, "random seed")
	formatName := fs.String("format", "hex", "output format: hex, sec1, jsonl or raw")
	compressed := fs.Bool("compressed", false, "sec1: write compressed points (02/03||x)")
	pool := fs.Int("pool", 1024, "number of distinct random points")
	outPath := fs.String("out", "-", "output file (- for standard output)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "ecmul gen: "+format+"\n", a...)
		return exitUsage
	}
	if fs.NArg() > 0 {
		return usage("unexpected arguments %q", fs.Args())
	}
	if *n < 0 {
		return usage("--n must not be negative, not %d", *n)
	}
	if *pool < 1 {
		return usage("--pool must be at least 1, not %d", *pool)
	}
	c, err := curves.ByName(*curve)
	if err != nil {
		return usage("%v", err)
	}
	format, err := stream.ParseFormat(*formatName)
	if err != nil {
		return usage("%v", err)
	}
	if *compressed && format != stream.SEC1 {
		return usage("--compressed applies to --format sec1 only")
	}
	out := stdout
	if file, ok := out.(*os.File); ok {
		growPipe(file)
	}
	var file *os.File
	if *outPath != "-" {
		if file, err = os.Create(*outPath); err != nil {
			fmt.Fprintf(stderr, "ecmul gen: %v\n", err)
			return exitFail
		}
		out = file
	}
	err = genItems(out, c, *n, *seed, format, *compressed, *pool)
	if file != nil {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "ecmul gen: %v\n", err)
		return exitFail
	}
	return exitOK
}

// genPool holds the points of gen: point i is the sampler's point i of
// streamGenPoint, computed when first needed.
type genPool struct {
	s      sampler
	points []*curves.Point
}

func (p *genPool) point(i int) *curves.Point {
	if p.points[i] == nil {
		p.points[i] = p.s.point(streamGenPoint, uint64(i))
	}
	return p.points[i]
}

// fill computes every point of the pool, on all cores.
func (p *genPool) fill() { p.points = p.s.points(streamGenPoint, 0, len(p.points)) }

// genBlock is the number of lines gen draws, then formats on all cores, at
// a time.
const genBlock = 1 << 14

// appendGenLine appends one line of format (one record for raw): the
// scalar, then the point's text.
func appendGenLine(line []byte, format stream.Format, scalar, point []byte) []byte {
	switch format {
	case stream.Raw: // scalar ‖ x ‖ y, no separators
		return append(append(line, scalar...), point...)
	case stream.JSONL:
		line = hex.AppendEncode(append(line, `{"scalar":"`...), scalar)
		return append(append(line, point...), '\n')
	default:
		line = append(hex.AppendEncode(line, scalar), ' ')
		return append(append(line, point...), '\n')
	}
}

// genItems writes count random valid lines of format to w.
func genItems(w io.Writer, c *curves.Curve, count int64, seed uint64, format stream.Format, compressed bool, poolSize int) error {
	rng := rand.New(rand.NewPCG(seed, 0x6a09e667f3bcc908))
	pool := &genPool{s: sampler{c, seed}, points: make([]*curves.Point, poolSize)}
	if count >= int64(poolSize) {
		pool.fill()
	}
	texts := make([][]byte, poolSize)
	text := func(i int) []byte {
		if texts[i] != nil {
			return texts[i]
		}
		p := pool.point(i)
		var t []byte
		switch format {
		case stream.Raw:
			t = make([]byte, 2*c.ByteLen())
			p.X.FillBytes(t[:c.ByteLen()])
			p.Y.FillBytes(t[c.ByteLen():])
		case stream.SEC1:
			t = hex.AppendEncode(nil, c.EncodeSEC1(p, compressed))
		case stream.JSONL:
			t = stream.AppendCoordinate(append(t, `","x":"`...), c, p.X)
			t = stream.AppendCoordinate(append(t, `","y":"`...), c, p.Y)
			t = append(t, `"}`...)
		default:
			t = stream.AppendCoordinate(append(stream.AppendCoordinate(t, c, p.X), ' '), c, p.Y)
		}
		texts[i] = t
		return t
	}
	ks := newScalarSampler(c.N())
	nb := len(ks.n)
	scalars, picks := make([]byte, genBlock*nb), make([]int, genBlock)
	var bufs [][]byte
	for done := int64(0); done < count; {
		m := int(min(count-done, genBlock))
		// the draws, in order on one goroutine: the lines depend on the
		// seed alone, whatever the cores
		for i := range m {
			copy(scalars[i*nb:], ks.next(rng))
			picks[i] = rng.IntN(poolSize)
			text(picks[i])
		}
		parts := par.Bounds(m, runtime.GOMAXPROCS(0), 1024)
		for len(bufs) < len(parts)-1 {
			bufs = append(bufs, nil)
		}
		par.Do(m, runtime.GOMAXPROCS(0), 1024, func(p, lo, hi int) {
			line := bufs[p][:0]
			for i := lo; i < hi; i++ {
				line = appendGenLine(line, format, scalars[i*nb:(i+1)*nb], texts[picks[i]])
			}
			bufs[p] = line
		})
		for _, b := range bufs[:len(parts)-1] { // parts of at least 1,024 lines: no buffering needed
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		done += int64(m)
	}
	return nil
}
