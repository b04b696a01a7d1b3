package main

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// TestInputCounter: the counter finds the items of the input however it is
// read, blank lines left out, and the share of them answered.
func TestInputCounter(t *testing.T) {
	in := "\ufeff1 2 3\r\n\n  \t\r\n4 5 6\n\t7 8 9\n10 11 12"
	for _, r := range []io.Reader{strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in)), iotest.HalfReader(strings.NewReader(in))} {
		c := &inputCounter{r: r}
		_, err := io.ReadAll(c)
		require.NoError(t, err)
		require.EqualValues(t, 4, c.lines.Load())
		require.InDelta(t, 0.5, c.fraction(2, int64(len(in))), 1e-9)
	}

	// Half of the input read: its items are estimated from that half.
	lines := strings.Repeat("a b c\n", 100)
	c := &inputCounter{r: strings.NewReader(lines[:300])}
	_, err := io.ReadAll(c)
	require.NoError(t, err)
	require.InDelta(t, 0.25, c.fraction(25, int64(len(lines))), 1e-9, "50 items read of an estimated 100")
	require.Zero(t, (&inputCounter{}).fraction(0, 10), "nothing read yet")

	// Raw records: a partial last record is an item.
	c = &inputCounter{r: strings.NewReader(strings.Repeat("x", 250)), record: 84}
	_, err = io.ReadAll(c)
	require.NoError(t, err)
	require.InDelta(t, 1.0/3, c.fraction(1, 250), 1e-9)
}
