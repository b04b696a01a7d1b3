package stream_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
)

// TestLines: blank lines are skipped but counted, \r\n and a leading BOM
// are accepted, a line over stream.MaxLine is passed as too long, and each's error
// ends the reading.
func TestLines(t *testing.T) {
	in := "\xef\xbb\xbfa b\r\n\n  c\t\r\n" + strings.Repeat("x", stream.MaxLine+1) + "\nd"
	type got struct {
		line    string
		num     int
		tooLong bool
	}
	var lines []got
	require.NoError(t, stream.Lines(strings.NewReader(in), func(line []byte, num int, tooLong bool) error {
		lines = append(lines, got{string(line), num, tooLong})
		return nil
	}))
	require.Equal(t, []got{{"a b", 1, false}, {"c", 3, false}, {"", 4, true}, {"d", 5, false}}, lines)
	stop := errors.New("stop")
	n := 0
	require.ErrorIs(t, stream.Lines(strings.NewReader(in), func([]byte, int, bool) error { n++; return stop }), stop)
	require.Equal(t, 1, n)
	require.Equal(t, []string{"a", "b", "c"}, stream.Fields(" a\tb  c "))
}
