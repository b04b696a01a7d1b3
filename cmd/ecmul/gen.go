package main

import (
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"

	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/hexcode"
	"github.com/rnsec/ecmul/internal/par"
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

On SIGINT or SIGTERM, gen stops drawing, writes the lines it has drawn
(whole lines, the start of the whole output) and exits 130 (SIGINT) or 143
(SIGTERM). --out is replaced only when every line has been written, as
"ecmul mul --help" says.

Exit status: 0 on success, 1 when the output cannot be written, 2 for usage
errors, 130 or 143 when SIGINT or SIGTERM stopped it.

Examples:

  ecmul gen --curve p256 --n 10000000 --seed 7 | ecmul mul --curve p256 --stats > /dev/null
  ecmul gen --curve secp256k1 --n 1000 --format sec1 --compressed --out items.txt

Flags:
`

// genFlags are the settings of gen.
type genFlags struct {
	curve, format, out string
	n                  int64
	seed               uint64
	compressed         bool
	pool               int
}

func genFlagSet(f *genFlags) *flag.FlagSet {
	fs := newFlagSet("gen", genHelp)
	fs.StringVar(&f.curve, "curve", "p224", "curve: p224, p256 or secp256k1")
	fs.Int64Var(&f.n, "n", 1000, "number of lines")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed")
	fs.StringVar(&f.format, "format", "hex", "output format: hex, sec1, jsonl or raw")
	fs.BoolVar(&f.compressed, "compressed", false, "sec1: write compressed points (02/03||x)")
	fs.IntVar(&f.pool, "pool", 1024, "number of distinct random points")
	fs.StringVar(&f.out, "out", "-", "output file (- for standard output), replaced when every line has been written")
	return fs
}

// checkGenFlags checks gen's flags and returns the curve and format.
func checkGenFlags(f *genFlags) (*curves.Curve, stream.Format, error) {
	switch {
	case f.n < 0:
		return nil, "", fmt.Errorf("--n must not be negative, not %d", f.n)
	case f.pool < 1:
		return nil, "", fmt.Errorf("--pool must be at least 1, not %d", f.pool)
	}
	c, err := curves.ByName(f.curve)
	if err != nil {
		return nil, "", flagNamed("--curve", err)
	}
	format, err := stream.ParseFormat(f.format)
	if err != nil {
		return nil, "", fmt.Errorf("--format: %w", err)
	}
	if f.compressed && format != stream.SEC1 {
		return nil, "", errors.New("--compressed applies to --format sec1 only")
	}
	return c, format, nil
}

func runGen(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var f genFlags
	if code, ok := parseFlags(genFlagSet(&f), args, stdout, stderr); !ok {
		return code
	}
	c, format, err := checkGenFlags(&f)
	if err != nil {
		return report(stderr, "gen", exitUsage, err)
	}
	if file, ok := stdout.(*os.File); ok {
		growPipe(file)
	}
	ctx, stopSignals := catchSignals()
	defer stopSignals()
	out, err := openOutput(f.out, stdout)
	if err != nil {
		return report(stderr, "gen", exitFail, err)
	}
	defer out.abort()
	lines, err := genItems(ctx, out, c, f.n, f.seed, format, f.compressed, f.pool)
	sig := stopSignals()
	if err == nil && sig == nil {
		err = out.commit()
	}
	switch {
	case sig != nil:
		return interrupted(stderr, "gen", sig, int(lines), out)
	case err != nil:
		return report(stderr, "gen", exitFail, err)
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
		line = hexcode.Append(append(line, `{"scalar":"`...), scalar)
		return append(append(line, point...), '\n')
	default:
		line = append(hexcode.Append(line, scalar), ' ')
		return append(append(line, point...), '\n')
	}
}

// genItems writes count random valid lines of format to w, and returns
// how many it wrote. When ctx ends, it stops drawing, writes the lines
// drawn and returns ctx's error.
func genItems(ctx context.Context, w io.Writer, c *curves.Curve, count int64, seed uint64, format stream.Format, compressed bool, poolSize int) (int64, error) {
	rng := rand.New(rand.NewPCG(seed, 0x6a09e667f3bcc908))
	pool := &genPool{s: sampler{c, seed}, points: make([]*curves.Point, poolSize)}
	if count >= int64(poolSize) {
		pool.fill()
	}
	pt := &pointTexts{c: c, pool: pool, format: format, compressed: compressed, texts: make([][]byte, poolSize)}
	ks := newScalarSampler(c.N())
	nb := len(ks.n)
	// The draws run here, block after block, in order: the lines depend on
	// the seed alone, whatever the cores. Each drawn block is formatted on
	// all cores and written by a second goroutine while the next one is
	// drawn.
	free, drawn := make(chan *genBlockBuf, genAhead), make(chan *genBlockBuf, genAhead)
	for range genAhead {
		free <- &genBlockBuf{scalars: make([]byte, genBlock*nb), picks: make([]int, genBlock)}
	}
	failed := make(chan struct{})
	var werr error
	var written int64
	go func() {
		defer close(failed)
		for blk := range drawn {
			if werr = blk.write(w, format, nb, pt.texts); werr != nil {
				return
			}
			written += int64(blk.m)
			free <- blk
		}
	}()
	stopped := func() (int64, error) { // the blocks drawn are written
		close(drawn)
		<-failed
		return written, cmp.Or(werr, ctx.Err())
	}
	for done := int64(0); done < count; {
		if ctx.Err() != nil {
			return stopped()
		}
		var blk *genBlockBuf
		select {
		case blk = <-free:
		case <-failed:
			return written, werr
		case <-ctx.Done():
			return stopped()
		}
		blk.m = int(min(count-done, genBlock))
		for i := range blk.m {
			ks.nextInto(rng, blk.scalars[i*nb:(i+1)*nb])
			blk.picks[i] = rng.IntN(poolSize)
			pt.text(blk.picks[i])
		}
		drawn <- blk
		done += int64(blk.m)
	}
	close(drawn)
	<-failed
	return written, werr
}

// pointTexts holds the text of each point of gen's pool in the output
// format, made when the point is first picked.
type pointTexts struct {
	c          *curves.Curve
	pool       *genPool
	format     stream.Format
	compressed bool
	texts      [][]byte
}

func (pt *pointTexts) text(i int) []byte {
	if pt.texts[i] != nil {
		return pt.texts[i]
	}
	c, p := pt.c, pt.pool.point(i)
	var t []byte
	switch pt.format {
	case stream.Raw:
		t = make([]byte, 2*c.ByteLen())
		p.X.FillBytes(t[:c.ByteLen()])
		p.Y.FillBytes(t[c.ByteLen():])
	case stream.SEC1:
		t = hex.AppendEncode(nil, c.EncodeSEC1(p, pt.compressed))
	case stream.JSONL:
		t = stream.AppendCoordinate(append(t, `","x":"`...), c, p.X)
		t = stream.AppendCoordinate(append(t, `","y":"`...), c, p.Y)
		t = append(t, `"}`...)
	default:
		t = stream.AppendCoordinate(append(stream.AppendCoordinate(t, c, p.X), ' '), c, p.Y)
	}
	pt.texts[i] = t
	return t
}

// genAhead is the number of blocks gen holds: one being drawn, one being
// formatted and written, one waiting between them.
const genAhead = 3

// genBlockBuf is one block of gen's lines: the draws (each line's scalar
// and point), then the formatted parts.
type genBlockBuf struct {
	m       int
	scalars []byte
	picks   []int
	bufs    [][]byte
}

// write formats the block's lines on all cores, in parts of at least 1,024
// lines, and writes them in order. The point texts its lines pick were
// made before the block was handed over.
func (b *genBlockBuf) write(w io.Writer, format stream.Format, nb int, texts [][]byte) error {
	parts := par.Bounds(b.m, runtime.GOMAXPROCS(0), 1024)
	for len(b.bufs) < len(parts)-1 {
		b.bufs = append(b.bufs, nil)
	}
	par.Do(b.m, runtime.GOMAXPROCS(0), 1024, func(p, lo, hi int) {
		line := b.bufs[p][:0]
		for i := lo; i < hi; i++ {
			line = appendGenLine(line, format, b.scalars[i*nb:(i+1)*nb], texts[b.picks[i]])
		}
		b.bufs[p] = line
	})
	for _, buf := range b.bufs[:len(parts)-1] { // parts of at least 1,024 lines: no buffering needed
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}
