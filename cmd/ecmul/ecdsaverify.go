package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/ecdsa"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/hexcode"
)

const ecdsaVerifyHelp = `Usage: ecmul ecdsa-verify [flags] [< input] [> output]

Verifies ECDSA signatures (SEC 1 v2, section 4.1.4): reads one item per
non-empty line and writes one line per item, in input order.

  in:   DIGEST_HEX R_HEX S_HEX QX_HEX QY_HEX
          DIGEST_HEX  the message's hash, an even number of digits (at
                      least two): its leftmost bits, as many as n has, are
                      the integer e
          R_HEX S_HEX the signature; r or s of 0, n or more is invalid
          QX_HEX QY_HEX  the public key Q
  out:  valid | invalid | error: line N: REASON

--sig der takes the signature as one field, SIG_DER_HEX, in place of
R_HEX S_HEX: the hex of its ASN.1 DER encoding, SEQUENCE { r INTEGER,
s INTEGER }, as openssl dgst -sign and crypto/ecdsa.SignASN1 write it. It
must be strict DER, the one encoding of the two numbers: a BER length
(indefinite, or long-form where the short form fits), an integer with a
redundant leading zero byte, a negative integer, another tag or a byte
after the sequence is an error ("error: line N: sig: ..."). r or s of 0,
n or more is invalid, as above.

--key sec1 takes the public key as one field, KEY_SEC1_HEX, in place of
QX_HEX QY_HEX: the hex of its SEC1 encoding, uncompressed (04‖x‖y) or
compressed (02‖x or 03‖x, y even or odd), the two mixed freely. A key that
is no SEC1 point (a wrong length or prefix, the point at infinity 00, an x
with no y on the curve) is an error ("error: line N: key: ...").

--low-s answers invalid for a signature whose s is above n/2, which would
otherwise verify: the rule of Bitcoin's standardness policy and of
libsecp256k1, where of the two signatures (r, s) and (r, n − s) only the
low one is accepted. Signers that normalise s (libsecp256k1, Bitcoin
Core) meet it; OpenSSL's and crypto/ecdsa's signatures have a high s half
the time.

--format jsonl reads one JSON object per line, with exactly the keys
{"digest","r","s","qx","qy"} ("sig" in place of r and s with --sig der,
"key" in place of qx and qy with --key sec1), each once, each a string of
the field's hex, nothing after the object, as mul's jsonl; it answers
{"valid":true}, {"valid":false} or {"error":"line N: REASON"}. The
default, hex, is the fields above. There is no raw format: a digest has
no fixed length.

A line that cannot be an item gets "error: line N: REASON", N its line in
the input from 1, blank lines counted: a wrong field count, bad hex, a
coordinate of Q not below p, Q not on the curve or (0, 0), a line longer
than 4096 bytes. The other items are verified all the same. Fields are
separated by spaces or tabs; hex is in any case, with or without 0x,
leading zeros allowed, and nothing else: at least one digit, no sign
(0x-1 or 0x+1 is bad hex). Blank lines are skipped and answered by nothing;
\r\n line endings and a UTF-8 byte-order mark at the very start are
accepted.

u1·G and u2·Q of a chunk of items are computed on the backend by
ecdsa.Verify, and their sum compared with r (in the gpu backend's verify
kernel, on the host elsewhere), in variable time: the inputs are public. On the gpu and rns-cpu backends u2·Q runs on the ladder, and u1·G
on the variable-time comb; where the gpu backend's kernel has none (16-bit
channels, --ext kawamura) u1·G runs as "ecmul base" runs k·G: on the
constant-time comb, or on the ladder where there is no comb.

Items are read and verified --chunk at a time; a chunk goes on when it is
full, when the input ends, or when no line has come for 2 ms, so the
answers to a paused stream do not wait for more input, as with mul. The
output is flushed after every chunk, in whole lines. --stats prints items,
failed (the items not valid: invalid or an error), seconds, op/s, the peak
RSS and the backend that ran to standard error at the end; a progress line
(the backend, items answered so far, op/s and, with --in a file, the share
of its items answered) is drawn on standard error once the run has lasted
a second, only when standard error is a terminal.

On SIGINT or SIGTERM it stops reading, drops the chunk being verified,
keeps the whole lines of the chunks before and exits 130 (SIGINT) or 143
(SIGTERM). --in is checked before --out is touched, and --out is replaced
only when every item has been answered, so it may be the input; see "ecmul
mul --help".

Exit status: 0 when every item is valid, 1 when any item is invalid or an
error (their count goes to standard error) or the run could not complete,
2 for usage errors, 130 or 143 when SIGINT or SIGTERM stopped it.

Example:

  printf '%s\n' "$DIGEST $R $S $QX $QY" | ecmul ecdsa-verify --curve p256 --backend cpu
  printf '%s\n' "$DIGEST $SIG_DER $KEY_SEC1" | ecmul ecdsa-verify --curve p256 --sig der --key sec1

  (docs/cli.md shows how to make these fields with openssl.)

Flags:
`

type ecdsaVerifyFlags struct {
	mulFlags
	sig, key string
	lowS     bool
}

func ecdsaVerifyFlagSet(f *ecdsaVerifyFlags) *flag.FlagSet {
	fs := newFlagSet("ecdsa-verify", ecdsaVerifyHelp)
	addEngineFlags(fs, &f.mulFlags)
	fs.StringVar(&f.in, "in", "-", "input file (- for standard input)")
	fs.StringVar(&f.out, "out", "-", "output file (- for standard output), replaced when every item has been answered; may be the input file")
	fs.IntVar(&f.chunk, "chunk", ecdsaChunk, "items read and verified per batch; memory grows with it, the output does not depend on it")
	fs.StringVar(&f.sig, "sig", "rs", "signature encoding: rs (R_HEX S_HEX) or der (SIG_DER_HEX, one strict DER field)")
	fs.StringVar(&f.key, "key", "xy", "public key encoding: xy (QX_HEX QY_HEX) or sec1 (KEY_SEC1_HEX, compressed or uncompressed)")
	fs.StringVar(&f.format, "format", "hex", "input and output format: hex (fields separated by blanks) or jsonl (one JSON object per line)")
	fs.BoolVar(&f.stats, "stats", false, "print items, failed (not valid), seconds, op/s, peak RSS and the backend to standard error at the end")
	fs.BoolVar(&f.lowS, "low-s", false, "answer invalid for a signature whose s is above n/2 (Bitcoin's policy, libsecp256k1's rule)")
	return fs
}

// ecdsaChunk is --chunk's default: 2·ecdsaChunk multiplications per batch.
const ecdsaChunk = 1 << 15

func runECDSAVerify(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f ecdsaVerifyFlags
	if code, ok := parseFlags(ecdsaVerifyFlagSet(&f), args, stdout, stderr); !ok {
		return code
	}
	if f.chunk < 1 {
		return usageError(stderr, "ecdsa-verify", "--chunk must be at least 1, not %d", f.chunk)
	}
	derSig, sec1Key, err := checkEncodings(f.sig, f.key)
	if err != nil {
		return report(stderr, "ecdsa-verify", exitUsage, err)
	}
	jsonl, err := checkLineFormat("ecdsa-verify", f.format)
	if err != nil {
		return report(stderr, "ecdsa-verify", exitUsage, err)
	}
	c, opts, g, err := engineConfig(&f.mulFlags)
	if err != nil {
		return report(stderr, "ecdsa-verify", exitUsage, err)
	}
	return streamECDSA("ecdsa-verify", "not valid", &f.mulFlags, c, opts, g, stdin, stdout, stderr,
		func(ctx context.Context, eng *ecmul.Engine, out io.Writer, progress func(int)) ecdsaJob {
			v := newVerifier(ctx, c, eng, f.chunk, out)
			v.derSig, v.sec1Key, v.jsonl, v.progress = derSig, sec1Key, jsonl, progress
			if f.lowS {
				v.lowS = new(big.Int).Rsh(c.N(), 1).FillBytes(make([]byte, c.ByteLen()))
			}
			return v
		})
}

// checkEncodings reads --sig and --key, in any case: whether the
// signature is one DER field, and whether the key is one SEC1 field.
func checkEncodings(sig, key string) (derSig, sec1Key bool, err error) {
	switch strings.ToLower(sig) {
	case "rs":
	case "der":
		derSig = true
	default:
		return false, false, fmt.Errorf("--sig: unknown encoding %q (want rs or der)", sig)
	}
	switch strings.ToLower(key) {
	case "xy":
	case "sec1":
		sec1Key = true
	default:
		return false, false, fmt.Errorf("--key: unknown encoding %q (want xy or sec1)", key)
	}
	return derSig, sec1Key, nil
}

// checkLineFormat reads --format of ecdsa-verify or ecdsa-sign (cmd), in
// any case: whether it is jsonl.
func checkLineFormat(cmd, format string) (jsonl bool, err error) {
	switch f, err := stream.ParseFormat(format); {
	case err != nil:
		return false, fmt.Errorf("--format: %w", err)
	case f == stream.JSONL:
		return true, nil
	case f != stream.Hex:
		return false, fmt.Errorf("--format %s: %s reads hex or jsonl", f, cmd)
	}
	return false, nil
}

// verifier gathers the items of a chunk, verifies them in one call and
// writes their answers.
type verifier struct {
	ctx context.Context // ends the run: the chunk being verified is dropped
	c   *curves.Curve
	eng *ecmul.Engine
	lineChunk
	w               *stream.ItemWriter // writes whole lines
	digests         [][]byte
	sigs, keys      []byte
	items, notValid int
	progress        func(int) // counts the items answered, for the progress line
	derSig, sec1Key bool      // the line's signature is one DER field, its key one SEC1 field
	jsonl           bool      // lines are JSON objects, answers too
	lowS            []byte    // with --low-s, n/2 (rounded down) in ByteLen bytes: a greater s is invalid
}

func newVerifier(ctx context.Context, c *curves.Curve, eng *ecmul.Engine, chunk int, out io.Writer) *verifier {
	return &verifier{ctx: ctx, c: c, eng: eng, lineChunk: lineChunk{chunk: chunk}, w: stream.NewLineWriter(out)}
}

// inputLine is one line of the input as stream.Lines yields it, its text
// copied.
type inputLine struct {
	text    []byte
	num     int
	tooLong bool
}

// pauseFlush is how long runChunks waits for the next line before it
// answers the lines it holds, as mul does: the answers to a paused stream
// do not wait for more input.
var pauseFlush = 2 * time.Millisecond

// counts returns the items read, and those not answered valid.
func (v *verifier) counts() (items, notValid int) { return v.items, v.notValid }

// chunker is a command that answers lines a chunk at a time: add takes a
// line (and answers the chunk when it is full), pending reports whether
// lines wait for their answers, and flush answers them.
type chunker interface {
	add(line []byte, num int, tooLong bool) error
	pending() bool
	flush() error
}

// lineChunk is the bookkeeping of a chunk of lines that ecdsa-verify and
// ecdsa-sign answer together: each line's number, its error (nil for an
// item) and its item.
type lineChunk struct {
	chunk int     // lines a chunk takes before it is answered
	nums  []int   // line numbers of the chunk's lines
	errs  []error // a line's error, nil for an item
	idx   []int   // a line's item, -1 for none
}

// pending reports whether lines wait to be answered.
func (c *lineChunk) pending() bool { return len(c.nums) > 0 }

// take records one line: too long, or parsed by parse, after which items
// is the chunk's item count. It reports whether the chunk is full.
func (c *lineChunk) take(line []byte, num int, tooLong bool, parse func(string) error, items func() int) bool {
	c.nums = append(c.nums, num)
	var err error
	if tooLong {
		err = fmt.Errorf("longer than %d bytes", stream.MaxLine)
	} else {
		err = parse(string(line))
	}
	c.errs = append(c.errs, err)
	item := -1
	if err == nil {
		item = items() - 1
	}
	c.idx = append(c.idx, item)
	return len(c.nums) >= c.chunk
}

// runChunks feeds every line of in to ch and has it answer its lines when
// the input ends or when no line has come for pauseFlush. Lines are read
// on a goroutine of their own, so that a pause is seen while a read waits.
func runChunks(in io.Reader, ch chunker) error {
	lines := make(chan inputLine, 1024)
	done := make(chan struct{})
	defer close(done)
	var readErr error // set before lines is closed
	go func() {
		defer close(lines)
		readErr = stream.Lines(in, func(line []byte, num int, tooLong bool) error {
			select {
			case lines <- inputLine{bytes.Clone(line), num, tooLong}:
				return nil
			case <-done:
				return errors.New("stopped")
			}
		})
	}()
	pause := time.NewTimer(pauseFlush)
	pause.Stop()
	for {
		var l inputLine
		var ok bool
		select {
		case l, ok = <-lines:
		default:
			if !ch.pending() {
				l, ok = <-lines
				break
			}
			pause.Reset(pauseFlush)
			select {
			case l, ok = <-lines:
				pause.Stop()
			case <-pause.C:
				if err := ch.flush(); err != nil {
					return err
				}
				continue
			}
		}
		if !ok {
			if readErr != nil {
				return readErr
			}
			return ch.flush()
		}
		if err := ch.add(l.text, l.num, l.tooLong); err != nil {
			return err
		}
	}
}

// add takes one line: an item, or its error.
func (v *verifier) add(line []byte, num int, tooLong bool) error {
	if v.take(line, num, tooLong, v.parse, func() int { return len(v.digests) }) {
		return v.flush()
	}
	return nil
}

// parse appends the item of a line to the chunk's buffers. Every field is
// decoded by package hexcode, as every hex field of mul and base is.
func (v *verifier) parse(line string) error {
	var fields []string
	if v.jsonl {
		var err error
		if fields, err = stream.JSONStrings(line, v.jsonKeys()); err != nil {
			return err
		}
	} else if fields = stream.Fields(line); len(fields) != len(v.layout()) {
		want := v.layout()
		return fmt.Errorf("want %d fields (%s), got %d", len(want), strings.Join(want, " "), len(fields))
	}
	digest, err := decodeHexBytes(fields[0])
	if err != nil {
		return fmt.Errorf("digest: %w", err)
	}
	L := v.c.ByteLen()
	var rs []byte
	if v.derSig {
		rs, err = parseDERHex(fields[1], publicCurve(v.c))
		if err != nil {
			return fmt.Errorf("sig: %w", err)
		}
		fields = fields[2:]
	} else {
		rs = make([]byte, 2*L)
		for i, f := range fields[1:3] {
			if !decodeSignatureInt(rs[i*L:(i+1)*L], f) {
				return fmt.Errorf("%c: not hex: %q", "rs"[i], f)
			}
		}
		fields = fields[3:]
	}
	var qx, qy *big.Int
	if v.sec1Key {
		q, err := stream.ParseSEC1Hex(v.c, fields[0])
		if err != nil {
			return fmt.Errorf("key: %w", err)
		}
		qx, qy = q.X, q.Y
	} else {
		if qx, err = v.c.ParseHexCoordinate(fields[0]); err != nil {
			return fmt.Errorf("qx: %w", err)
		}
		if qy, err = v.c.ParseHexCoordinate(fields[1]); err != nil {
			return fmt.Errorf("qy: %w", err)
		}
	}
	if v.lowS != nil && bytes.Compare(rs[L:], v.lowS) > 0 {
		// s above n/2: zero is an s that Verify finds Invalid, after it
		// has checked the key as for any other signature
		clear(rs[L:])
	}
	v.digests = append(v.digests, digest)
	v.sigs = append(v.sigs, rs...)
	v.keys = append(v.keys, 4)
	v.keys = append(v.keys, qx.FillBytes(make([]byte, L))...)
	v.keys = append(v.keys, qy.FillBytes(make([]byte, L))...)
	return nil
}

// layout names the fields of a line for the signature and key encodings
// chosen.
func (v *verifier) layout() []string {
	fields := []string{"DIGEST_HEX"}
	if v.derSig {
		fields = append(fields, "SIG_DER_HEX")
	} else {
		fields = append(fields, "R_HEX", "S_HEX")
	}
	if v.sec1Key {
		return append(fields, "KEY_SEC1_HEX")
	}
	return append(fields, "QX_HEX", "QY_HEX")
}

// jsonKeys are the keys of a jsonl line for the encodings chosen: the
// fields of layout, in lower case without _HEX, and sig and key for the
// DER and SEC1 fields.
func (v *verifier) jsonKeys() []string {
	keys := []string{"digest", "r", "s", "qx", "qy"}
	if v.derSig {
		keys = slices.Replace(keys, 1, 3, "sig")
	}
	if v.sec1Key {
		keys = slices.Replace(keys, len(keys)-2, len(keys), "key")
	}
	return keys
}

// parseDERHex reads SIG_DER_HEX: the hex of a strict DER signature, as
// ecdsa.ParseDER reads it, returned as r‖s.
func parseDERHex(field string, c ecmul.Curve) ([]byte, error) {
	der, err := decodeHexBytes(field)
	if err != nil {
		return nil, err
	}
	return ecdsa.ParseDER(der, c)
}

// decodeHexBytes decodes DIGEST_HEX or SIG_DER_HEX: an optional 0x or 0X,
// then an even number of hex digits, at least two.
func decodeHexBytes(field string) ([]byte, error) {
	digits := hexcode.TrimPrefix([]byte(field))
	if len(digits) == 0 {
		return nil, errors.New("not hex: no digits")
	}
	b := make([]byte, (len(digits)+1)/2)
	if !hexcode.DecodeInto(b, digits) {
		return nil, fmt.Errorf("not hex: invalid character %s", hexcode.QuoteByte(digits[hexcode.IndexNonHex(digits)]))
	}
	if len(digits)%2 == 1 {
		return nil, errors.New("an odd number of hex digits")
	}
	return b, nil
}

// decodeSignatureInt decodes R_HEX or S_HEX (an optional 0x or 0X, then
// hex digits, any number of them) into dst, big-endian, and reports
// whether the field is such hex. A value of 2^(8·len(dst)) or more leaves
// dst zero, which ecdsa.Verify finds invalid, as it finds r or s of n or
// more.
func decodeSignatureInt(dst []byte, field string) bool {
	digits := hexcode.TrimPrefix([]byte(field))
	if len(digits) == 0 {
		return false
	}
	b := make([]byte, (len(digits)+1)/2)
	if !hexcode.DecodeInto(b, digits) {
		return false
	}
	if extra := len(b) - len(dst); extra > 0 {
		if !allZero(b[:extra]) {
			return true
		}
		b = b[extra:]
	}
	copy(dst[len(dst)-len(b):], b)
	return true
}

// verdictLine is the answer of a valid or invalid item, in jsonl or not.
var verdictLine = map[bool]map[bool]string{
	false: {true: "valid\n", false: "invalid\n"},
	true:  {true: "{\"valid\":true}\n", false: "{\"valid\":false}\n"},
}

// flush verifies the chunk's items and writes every line's answer.
func (v *verifier) flush() error {
	if len(v.nums) == 0 {
		return nil
	}
	verdicts := make([]ecdsa.Verdict, len(v.digests))
	if err := ecdsa.Verify(v.ctx, v.eng, verdicts, v.digests, v.sigs, v.keys); err != nil {
		return err
	}
	for i, num := range v.nums {
		err := v.errs[i]
		if err == nil {
			switch vd := verdicts[v.idx[i]]; {
			case vd == ecdsa.Valid || vd == ecdsa.Invalid:
				v.w.WriteString(verdictLine[v.jsonl][vd == ecdsa.Valid])
			default:
				err = vd.Err()
			}
		}
		if err != nil {
			msg := fmt.Sprintf("line %d: %s", num, message(err))
			if v.jsonl {
				v.w.Write(append(stream.AppendJSONError(nil, msg), '\n'))
			} else {
				fmt.Fprintf(v.w, "error: %s\n", msg)
			}
		}
		if err != nil || verdicts[v.idx[i]] != ecdsa.Valid {
			v.notValid++
		}
	}
	v.items += len(v.nums)
	if v.progress != nil {
		v.progress(len(v.nums))
	}
	v.nums, v.errs, v.idx, v.digests, v.sigs, v.keys = v.nums[:0], v.errs[:0], v.idx[:0], v.digests[:0], v.sigs[:0], v.keys[:0]
	return v.w.Flush()
}
