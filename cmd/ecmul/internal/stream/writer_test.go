package stream_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/internal/curves"
)

// writeLog records every write made to it.
type writeLog struct {
	all    bytes.Buffer
	writes [][]byte
	fail   error // returned by every write once set
}

func (l *writeLog) Write(p []byte) (int, error) {
	if l.fail != nil {
		return 0, l.fail
	}
	l.writes = append(l.writes, bytes.Clone(p))
	l.all.Write(p)
	return len(p), nil
}

// requireWholeWrites checks that every write of log ends where an item
// ends (a \n, or a whole record of size bytes when size > 0) and is at
// most stream.WriteSize bytes, unless it is one item alone.
func requireWholeWrites(t *testing.T, log *writeLog, size int) {
	t.Helper()
	at := 0
	for i, w := range log.writes {
		require.NotEmpty(t, w, "write %d is empty", i)
		if size > 0 {
			require.Zero(t, (at+len(w))%size, "write %d of %d bytes, at %d, ends inside a record of %d", i, len(w), at, size)
			require.True(t, len(w) <= max(stream.WriteSize, size), "write %d: %d bytes", i, len(w))
		} else {
			require.Equal(t, byte('\n'), w[len(w)-1], "write %d of %d bytes, at %d, ends inside a line", i, len(w), at)
			if len(w) > stream.WriteSize {
				require.Equal(t, len(w)-1, bytes.IndexByte(w, '\n'), "write %d: %d bytes, more than one line", i, len(w))
			}
		}
		at += len(w)
	}
}

// TestItemWriterEndsAtItems: lines of any length (longer than a write
// included) and records, given in pieces cut anywhere, reach the writer
// below whole, in writes of at most WriteSize bytes but for a longer item
// alone, all of them and in order; a write error stops the writer.
func TestItemWriterEndsAtItems(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := range 40 {
		record := 0
		if trial%2 == 1 {
			record = 1 + rng.Intn(100)
		}
		var in []byte
		for len(in) < 5*stream.WriteSize {
			if record > 0 {
				for range record {
					in = append(in, byte(rng.Intn(256)))
				}
				continue
			}
			n := rng.Intn(200)
			if rng.Intn(100) == 0 {
				n = stream.WriteSize + rng.Intn(stream.WriteSize) // longer than a write
			}
			in = append(append(in, bytes.Repeat([]byte{'a' + byte(rng.Intn(26))}, n)...), '\n')
		}
		var log writeLog
		w := stream.NewLineWriter(&log)
		if record > 0 {
			w = stream.NewRecordWriterForTest(&log, record)
		}
		for rest := in; len(rest) > 0; {
			n := min(len(rest), rng.Intn(3*stream.WriteSize))
			if n == 0 {
				n = 1
			}
			_, err := w.Write(rest[:n])
			require.NoError(t, err)
			rest = rest[n:]
		}
		require.NoError(t, w.Flush())
		require.Equal(t, in, log.all.Bytes(), "trial %d", trial)
		requireWholeWrites(t, &log, record)
	}

	log := writeLog{fail: errors.New("disk full")}
	w := stream.NewLineWriter(&log)
	_, err := w.Write(bytes.Repeat([]byte("a line\n"), stream.WriteSize))
	require.ErrorContains(t, err, "disk full")
	_, err = w.WriteString("more\n")
	require.ErrorContains(t, err, "disk full")
	require.ErrorContains(t, w.Flush(), "disk full")
}

// mixedInput returns count items of format f on curve c, G their point:
// one in real a real multiplication, one in 10 an error (a scalar that is
// not hex; in raw, a point off the curve), the others scalar 0 (the point
// at infinity, cheap).
func mixedInput(c *curves.Curve, f stream.Format, count, real int, seed int64) string {
	rng := rand.New(rand.NewSource(seed))
	L := c.ByteLen()
	gx, gy := fmt.Sprintf("%0*x", 2*L, c.Gx()), fmt.Sprintf("%0*x", 2*L, c.Gy())
	var b strings.Builder
	for i := range count {
		k, x, y := "0", gx, gy
		switch {
		case i%real == 0:
			k = new(big.Int).Rand(rng, c.N()).Text(16)
		case i%10 == 5:
			k, x, y = "zz", fmt.Sprintf("%0*x", 2*L, 1), fmt.Sprintf("%0*x", 2*L, 2)
		}
		switch f {
		case stream.Raw:
			kb, _ := new(big.Int).SetString(strings.Replace(k, "zz", "5", 1), 16)
			xb, _ := new(big.Int).SetString(x, 16)
			yb, _ := new(big.Int).SetString(y, 16)
			for _, v := range []*big.Int{kb, xb, yb} {
				b.Write(v.FillBytes(make([]byte, L)))
			}
		case stream.JSONL:
			fmt.Fprintf(&b, "{\"scalar\":%q,\"x\":%q,\"y\":%q}\n", k, x, y)
		case stream.SEC1:
			fmt.Fprintf(&b, "%s 04%s%s\n", k, x, y)
		default:
			fmt.Fprintf(&b, "%s %s %s\n", k, x, y)
		}
	}
	return b.String()
}

// recordOut is the size of a raw output record on c.
func recordOut(c *curves.Curve) int { return 1 + 2*c.ByteLen() }

// TestMulWritesWholeAnswers: every write Mul makes ends where an answer
// ends, a line or a raw record, in every format, with chunks whose output
// is several writes long.
func TestMulWritesWholeAnswers(t *testing.T) {
	c := curves.P224()
	eng := cpuEngine(t, c)
	for _, f := range append(stream.LineFormats, stream.Raw) {
		t.Run(string(f), func(t *testing.T) {
			in := mixedInput(c, f, 10000, 50, 2) // a long output, computed fast
			var log writeLog
			sum, err := stream.Mul(context.Background(), eng, strings.NewReader(in), &log, stream.Options{Format: f})
			require.NoError(t, err)
			require.Equal(t, 10000, sum.Items)
			require.Greater(t, log.all.Len(), 2*stream.WriteSize)
			size := 0
			if f == stream.Raw {
				size = recordOut(c)
				require.Equal(t, 10000*size, log.all.Len())
			} else {
				require.Equal(t, 10000, bytes.Count(log.all.Bytes(), []byte("\n")))
			}
			requireWholeWrites(t, &log, size)
		})
	}
}

// TestMulStopsWithContext: when the context ends in the middle of a
// stream, Mul writes the answers it has, which are the start of the whole
// stream's answers and end with a whole one, counts them, and returns the
// context's error; in every format, through the bytes API (hex, raw) and
// the *big.Int one (sec1, jsonl).
func TestMulStopsWithContext(t *testing.T) {
	c := curves.P256()
	eng := cpuEngine(t, c)
	// chunks of many of the cpu backend's parts (64 items), so that the
	// context ends in the middle of one
	const count, chunk = 3000, 1000
	for _, f := range append(stream.LineFormats, stream.Raw) {
		t.Run(string(f), func(t *testing.T) {
			in := mixedInput(c, f, count, 2, 3)
			var whole bytes.Buffer
			_, err := stream.Mul(context.Background(), eng, strings.NewReader(in), &whole, stream.Options{Format: f, Chunk: chunk})
			require.NoError(t, err)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var done atomic.Int64 // the engine and the writer both report
			progress := func(n int) {
				if done.Add(int64(n)) >= chunk+chunk/2 {
					cancel()
				}
			}
			var got bytes.Buffer
			sum, err := stream.Mul(ctx, eng, strings.NewReader(in), &got, stream.Options{Format: f, Chunk: chunk, Progress: progress})
			require.ErrorIs(t, err, context.Canceled)
			if !bytes.HasPrefix(whole.Bytes(), got.Bytes()) {
				at := 0
				for at < got.Len() && got.Bytes()[at] == whole.Bytes()[at] {
					at++
				}
				t.Fatalf("the output is not the start of the whole stream's: at byte %d, %q where %q is due",
					at, got.Bytes()[at:min(at+80, got.Len())], whole.Bytes()[at:min(at+80, whole.Len())])
			}
			require.Less(t, got.Len(), whole.Len())
			if f == stream.Raw {
				require.Zero(t, got.Len()%recordOut(c))
				require.Equal(t, got.Len()/recordOut(c), sum.Items)
			} else {
				require.True(t, got.Len() == 0 || got.Bytes()[got.Len()-1] == '\n', "the output ends inside a line")
				require.Equal(t, bytes.Count(got.Bytes(), []byte("\n")), sum.Items)
			}
			require.GreaterOrEqual(t, sum.Items, chunk, "the chunk computed before the end is written")
		})
	}
}
