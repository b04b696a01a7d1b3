package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/rns"
)

const mulHelp = `Usage: ecmul mul [flags] [< input] [> output]

Multiplies points by scalars: reads one item per non-empty line and writes
one line per item, in input order. Blank lines are skipped and answered by
nothing; leading and trailing blanks, \r\n line endings and a UTF-8
byte-order mark at the very start are accepted. k·P runs on the kernel's
Montgomery ladder (--schedule) on the gpu and rns-cpu backends, and on the
reference implementations on the cpu backend.

Formats (--format):

  hex (default)
    in:   SCALAR_HEX X_HEX Y_HEX      three fields separated by spaces or tabs
    out:  X_HEX Y_HEX                 lowercase, zero-padded to the field size
                                      (56 digits for P-224, 64 otherwise)
  sec1
    in:   SCALAR_HEX POINT_HEX        POINT_HEX: SEC1, uncompressed 04||x||y
                                      or compressed 02||x / 03||x (y even / odd)
    out:  04||X||Y                    uncompressed SEC1, lowercase hex
  jsonl
    in:   {"scalar":"HEX","x":"HEX","y":"HEX"}
          one JSON object per line with exactly these three keys, each a
          string of hex; unknown or repeated keys, other value types and
          anything after the object make the line an error
    out:  {"x":"HEX","y":"HEX"}
  raw (binary, fixed-size records; L = 28 for P-224, 32 otherwise)
    in:   SCALAR ‖ X ‖ Y               L bytes each, big-endian; the scalar
                                      is any value, reduced mod n
    out:  STATUS ‖ X ‖ Y               STATUS 0: a point, 1: infinity,
                                      2: error; X, Y zero unless STATUS is 0
                                      (STATUS ‖ X with --x-only). A failed
                                      item's reason goes to standard error
                                      as "ecmul mul: item N: REASON", N from
                                      1; a partial last record is a failed
                                      item.

  Hex input is in any case, with or without a 0x prefix, leading zeros
  allowed, and nothing else: at least one digit, no sign (-1, 0x-1 or 0x+1
  is bad hex), no blank. The scalar is any non-negative integer of up to 512
  bits, reduced mod n. A point must be on the curve, coordinates below p,
  not (0, 0).

  Every format answers the point at infinity (k ≡ 0 mod n) with "infinity"
  ({"infinity":true} in jsonl) and an invalid item (bad hex, coordinate >= p,
  point not on the curve, (0, 0), scalar over 512 bits, a line longer than
  4096 bytes, ...) with "error: line N: REASON" ({"error":"line N: REASON"}
  in jsonl), N its line in the input from 1, blank lines counted; the other
  items are computed all the same.

  --x-only writes only the x coordinate of each result: X_HEX (hex and sec1)
  or {"x":"HEX"} (jsonl).

Streaming: the input is read, computed and written --chunk items at a time;
the next chunk is read and the previous one written while a chunk is
computed, so a stream of any length runs in bounded memory: at most
--inflight + 2 chunks exist, and with the default chunk the peak RSS stays
below 300 MiB on the cpu backend and below 600 MiB on the gpu backend (CUDA
context included). Output keeps the input order and is flushed after every
chunk, every write ending at a line's end; a chunk goes on when it is full,
when the input ends, or when no line has come for 2 ms, so the answers to a
paused stream do not wait for more input. --stats prints items, failed
items, seconds, op/s, the peak RSS and the backend that ran to standard
error at the end; a progress line (the backend, items answered so far, op/s
and, with --in a file, the share of its items answered) is drawn on
standard error once the run has lasted a second, only when standard error
is a terminal.

Signals: on SIGINT or SIGTERM, mul stops reading and computing, writes the
answers it has (whole lines, the start of the whole output) and exits 130
(SIGINT) or 143 (SIGTERM); a second signal ends it at once.

--out: --in is checked first (a directory or a missing file fails before
--out is touched). --out FILE is written through a temporary file in its
directory (.FILE.ecmul-RANDOM), renamed over FILE when every item has been
answered; a run that cannot complete or that a signal stops leaves FILE as
it was (write to standard output to keep an interrupted run's lines). So
--out may be the input file; FILE keeps its permissions, a link its
target; its directory must be writable. A device or FIFO (/dev/null), or a
path under /dev or /proc, is written directly.

Exit status: 0 when every item succeeded, 1 when any item failed (their count
goes to standard error) or the run could not complete (unreadable input,
unwritable output, --backend gpu without a GPU), 2 for usage errors, 130 or
143 when SIGINT or SIGTERM stopped it.

Examples:

  printf '2 b70e0cbd6bb4bf7f321390b94a03c1d356c21122343280d6115c1d21 bd376388b5f723fb4c22dfe6cd4375a05a07476444d5819985007e34\n' | ecmul mul --backend cpu
  ecmul gen --curve p256 --n 1000000 | ecmul mul --curve p256 --stats > out.txt
  ecmul mul --curve secp256k1 --format jsonl --x-only --in items.jsonl --out x.jsonl

Flags:
`

type mulFlags struct {
	curve, backend, schedule, ext, in, out string
	devices                                string
	chunk, inflight, channelBits           int
	cpuProfile                             string
	format                                 string
	xOnly, stats, noSpin                   bool
	// base is ecmul base: G is every item's point, and the input holds
	// the scalar alone (no flag: the command says it).
	base bool
	// openTime is how long opening the engine took, for --stats.
	openTime time.Duration
}

// cmd is the name of the command the flags are of: mul, or base.
func (f *mulFlags) cmd() string {
	if f.base {
		return "base"
	}
	return "mul"
}

func addEngineFlags(fs *flag.FlagSet, f *mulFlags) {
	fs.StringVar(&f.curve, "curve", "p224", "curve: p224, p256 or secp256k1 (also P-224, secp224r1, P-256, secp256r1, prime256v1; any case)")
	fs.StringVar(&f.backend, "backend", "auto", "backend: auto (gpu if one can be used, else cpu), gpu, rns-cpu (the kernel's CPU twin, slow) or cpu")
	fs.StringVar(&f.schedule, "schedule", ladder.DefaultKind.String(), "ladder schedule of the rns-cpu and gpu backends: coz (Hamburg's co-Z ladder, 11 reductions per bit) or paper (Table I of the paper, 18)")
	fs.StringVar(&f.ext, "ext", "shenoy", "base extension of the rns-cpu and gpu backends: shenoy or kawamura (16-bit channels only)")
	fs.IntVar(&f.channelBits, "channel-bits", 0, "RNS channel width of the rns-cpu and gpu backends: 16 (the paper's) or 30; 0 picks 30, or 16 for kawamura")
	fs.StringVar(&f.devices, "devices", "all", "GPUs of the gpu backend: all, or comma-separated device ordinals such as 0,2 (ecmul devices lists them)")
	fs.BoolVar(&f.noSpin, "no-spin", false, "gpu backend: run the host work of small batches on fresh goroutines, not on threads kept spinning between them (for a host whose cores other busy work shares)")
}

func mulFlagSet(f *mulFlags) *flag.FlagSet { return streamFlagSet("mul", mulHelp, f) }

// streamFlagSet returns the flag set of mul or base, which share every
// flag.
func streamFlagSet(name, help string, f *mulFlags) *flag.FlagSet {
	fs := newFlagSet(name, help)
	addEngineFlags(fs, f)
	fs.StringVar(&f.in, "in", "-", "input file (- for standard input)")
	fs.StringVar(&f.out, "out", "-", "output file (- for standard output), replaced when every item has been answered; may be the input file")
	fs.IntVar(&f.chunk, "chunk", stream.DefaultChunk, "items read and computed per batch; memory grows with it, the output does not depend on it")
	fs.StringVar(&f.format, "format", "hex", "input and output format: hex, sec1, jsonl or raw")
	fs.BoolVar(&f.xOnly, "x-only", false, "write only the x coordinate of each result")
	fs.IntVar(&f.inflight, "inflight", 0, "chunks computed at once; 0: 2 on the gpu backend (one is validated while the other runs on the GPU), 1 otherwise")
	fs.BoolVar(&f.stats, "stats", false, "print items, failed, seconds, op/s, peak RSS and the backend to standard error at the end")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the stream to this file (for go tool pprof): where the host's time goes")
	return fs
}

// parseDevices reads --devices: nil for all, else the ordinals listed.
func parseDevices(s string) ([]int, error) {
	if strings.EqualFold(strings.TrimSpace(s), "all") {
		return nil, nil
	}
	return intList("--devices", s, 0, nil)
}

// parseSchedule reads a --schedule name, in any case.
func parseSchedule(s string) (ladder.Kind, error) {
	return ladder.ParseKind(strings.ToLower(s))
}

// checkChannelBits refuses a --channel-bits that the library would refuse,
// naming the flags.
func checkChannelBits(bits int, ext basext.Variant) error {
	if !slices.Contains(rns.Widths, bits) {
		return fmt.Errorf("--channel-bits %d: want %d or %d", bits, rns.Widths[0], rns.Widths[1])
	}
	if bits != rns.ChannelBits && ext != basext.Shenoy {
		return fmt.Errorf("--channel-bits %d needs --ext shenoy: --ext %v takes %d-bit channels only", bits, ext, rns.ChannelBits)
	}
	return nil
}

// engineConfig reads the engine flags: the curve, the options and the gpu
// backend's settings they describe. Its errors are usage errors.
func engineConfig(f *mulFlags) (*curves.Curve, ecmul.Options, diag.Tuning, error) {
	var o ecmul.Options
	var g diag.Tuning
	var ext basext.Variant
	var kind ladder.Kind
	c, err := curves.ByName(f.curve)
	err = flagNamed("--curve", err)
	if err == nil {
		o.Backend, err = parseBackend(f.backend)
		err = flagNamed("--backend", err)
	}
	if err == nil {
		ext, err = basext.ParseVariant(f.ext)
		g.Extension = extensionOf(ext)
		err = flagNamed("--ext", err)
	}
	if err == nil {
		kind, err = parseSchedule(f.schedule)
		g.Schedule = scheduleOf(kind)
		err = flagNamed("--schedule", err)
	}
	if err == nil && f.channelBits != 0 {
		err = checkChannelBits(f.channelBits, ext)
	}
	if err == nil {
		o.Devices, err = parseDevices(f.devices)
	}
	// a batch is one --chunk: the GPU's launches and pinned buffers take
	// that size too
	g.ChannelBits, g.Chunk, g.NoSpin = f.channelBits, f.chunk, f.noSpin
	return c, o, g, err
}

// checkMulFlags checks mul's own flags and returns the format.
func checkMulFlags(f *mulFlags) (stream.Format, error) {
	switch {
	case f.chunk < 1:
		return "", fmt.Errorf("--chunk must be at least 1, not %d", f.chunk)
	case f.inflight < 0:
		return "", fmt.Errorf("--inflight must be at least 0, not %d", f.inflight)
	}
	format, err := stream.ParseFormat(f.format)
	if err != nil {
		return "", fmt.Errorf("--format: %w", err)
	}
	return format, nil
}

func runMul(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runStream(new(mulFlags), mulFlagSet, args, stdin, stdout, stderr)
}

// runStream runs mul or base (f.base), parsing args into f with the flag
// set flags returns.
func runStream(f *mulFlags, flags func(*mulFlags) *flag.FlagSet, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	name := f.cmd()
	if code, ok := parseFlags(flags(f), args, stdout, stderr); !ok {
		return code
	}
	format, err := checkMulFlags(f)
	if err != nil {
		return report(stderr, name, exitUsage, err)
	}
	c, opts, g, err := engineConfig(f)
	if err != nil {
		return report(stderr, name, exitUsage, err)
	}
	s, code := openStream(name, f, c, opts, g, stdin, stdout, stderr)
	if s == nil {
		return code
	}
	defer s.close()
	f.openTime = s.openTime
	return mulStream(s.ctx, s.stopSignals, f, format, s.eng, s.in, s.out, stderr)
}

// mulStream runs the stream from in to out and reports on stderr; it
// returns the exit status. out is replaced (committed) when every item was
// answered; when ctx ends, stopSignals says by which signal.
func mulStream(ctx context.Context, stopSignals func() os.Signal, f *mulFlags, format stream.Format, eng *ecmul.Engine, in io.Reader, out *outputFile, stderr io.Writer) int {
	if file, ok := in.(*os.File); ok {
		growPipe(file)
	}
	start := time.Now()
	in, prog := mulProgress(stderr, f.cmd(), eng, in, format, f.base)
	if format != stream.Raw && os.Getenv("GOGC") == "" {
		// the line formats' text buffers, kept by the chunks in flight,
		// would take the heap past the memory ceiling at Go's default
		defer debug.SetGCPercent(debug.SetGCPercent(lineFormatGOGC))
	}
	stopProfile, err := startCPUProfile(f.cpuProfile)
	if err != nil {
		return report(stderr, f.cmd(), exitFail, err)
	}
	sum, err := stream.Mul(ctx, eng, in, out, mulOptions(f, format, eng, stderr, prog.add))
	stopProfile()
	prog.finish()
	sig := stopSignals()
	if err == nil && sig == nil {
		err = out.commit()
	}
	if f.stats {
		printStats(stderr, "ecmul "+f.cmd(), sum, time.Since(start), f.openTime, eng.Backend())
	}
	switch {
	case sig != nil:
		return interrupted(stderr, f.cmd(), sig, sum.Items, out)
	case err != nil:
		return report(stderr, f.cmd(), exitFail, err)
	case sum.Failed > 0:
		fmt.Fprintf(stderr, "ecmul %s: %d item(s) failed\n", f.cmd(), sum.Failed)
		return exitFail
	}
	return exitOK
}

// mulOptions returns the stream's options for the flags and the engine.
func mulOptions(f *mulFlags, format stream.Format, eng *ecmul.Engine, stderr io.Writer, progress func(int)) stream.Options {
	opts := stream.Options{Format: format, XOnly: f.xOnly, Chunk: f.chunk, Inflight: f.inflight, ErrOut: stderr, Progress: progress, Base: f.base}
	if opts.Inflight == 0 {
		opts.Inflight = 1
		if eng.Backend() == ecmul.GPU {
			opts.Inflight = 2
		}
	}
	return opts
}

// mulProgress starts the progress line of mul or base (cmd; base's raw
// records are the scalar alone). When in is a regular file, it returns in
// wrapped to count the items read, and the line shows the share of the
// file's items answered.
func mulProgress(stderr io.Writer, cmd string, eng *ecmul.Engine, in io.Reader, format stream.Format, base bool) (io.Reader, *progress) {
	label := "ecmul " + cmd + " (" + eng.Backend().String() + ")"
	file, ok := in.(*os.File)
	if !ok {
		return in, startProgress(stderr, label, nil)
	}
	st, err := file.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return in, startProgress(stderr, label, nil)
	}
	counter := &inputCounter{r: in}
	if format == stream.Raw {
		counter.record = int64(3 * eng.Curve().ByteLen())
		if base {
			counter.record = int64(eng.Curve().ByteLen())
		}
	}
	size := st.Size()
	return counter, startProgress(stderr, label, func(done int64) float64 { return counter.fraction(done, size) })
}

// printStats writes the --stats line, naming the backend that ran, with the
// time the stream took (el) and the time opening the engine took before it.
func printStats(w io.Writer, prefix string, sum stream.Summary, el, open time.Duration, backend ecmul.Backend) {
	rss := "n/a"
	if b, ok := peakRSS(); ok {
		rss = fmt.Sprintf("%.1f", float64(b)/(1<<20))
	}
	sec := el.Seconds()
	fmt.Fprintf(w, "%s: stats: items=%d failed=%d seconds=%.3f op/s=%.0f peak_rss_mib=%s backend=%s open_seconds=%.3f\n",
		prefix, sum.Items, sum.Failed, sec, float64(sum.Items)/max(sec, 1e-9), rss, backend, open.Seconds())
}

// lineFormatGOGC is the garbage collector's target for the line formats:
// on an H200 host it kept P-224 and P-256 hex streams at 410 and 421 MiB
// peak (644 and 631 MiB at Go's default of 100) for 8% of their speed.
const lineFormatGOGC = 25

// startCPUProfile starts a CPU profile into path, if one is named, and
// returns the function that ends it.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
