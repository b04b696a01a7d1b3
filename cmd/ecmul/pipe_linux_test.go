package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestGrowPipe: a pipe's buffer grows to pipeBytes, or to the system's
// limit when that is lower (and the process may not exceed it); a regular
// file is left alone.
func TestGrowPipe(t *testing.T) {
	limit := pipeBytes
	if b, err := os.ReadFile("/proc/sys/fs/pipe-max-size"); err == nil {
		if l, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			limit = min(limit, l)
		}
	}
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	before, err := unix.FcntlInt(r.Fd(), unix.F_GETPIPE_SZ, 0)
	require.NoError(t, err)
	growPipe(w)
	after, err := unix.FcntlInt(r.Fd(), unix.F_GETPIPE_SZ, 0)
	require.NoError(t, err)
	require.Contains(t, []int{max(limit, before), pipeBytes}, after)

	f, err := os.Create(filepath.Join(t.TempDir(), "regular"))
	require.NoError(t, err)
	defer f.Close()
	growPipe(f)
	_, err = f.WriteString("still writable\n")
	require.NoError(t, err)
}
