package main

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
)

// openPTY returns both ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	var n, unlock uint32
	for _, c := range []struct {
		req uintptr
		arg *uint32
	}{{syscall.TIOCSPTLCK, &unlock}, {syscall.TIOCGPTN, &n}} {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), c.req, uintptr(unsafe.Pointer(c.arg))); errno != 0 {
			master.Close()
			t.Skipf("no pseudo-terminal: %v", errno)
		}
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Skipf("no pseudo-terminal: %v", err)
	}
	return master, tty
}

// TestMulProgressOnTerminal is the other side of
// TestMulNoProgressOffTerminal: on a terminal, the progress line is drawn,
// names the backend, counts the items of a chunk as they are answered, and
// is erased.
func TestMulProgressOnTerminal(t *testing.T) {
	withFastProgress(t)
	master, tty := openPTY(t)
	defer master.Close()
	require.True(t, isTerminal(tty))

	var seen bytes.Buffer
	var wg sync.WaitGroup
	wg.Go(func() { io.Copy(&seen, master) })

	c := curves.P224()
	rng := newRNG(35)
	items := validItems(t, rng, c, 40)
	in := input(rng, items)
	inPath := t.TempDir() + "/in.txt"
	require.NoError(t, os.WriteFile(inPath, []byte(in), 0o644))
	var out bytes.Buffer
	code := run([]string{"mul", "--backend", "rns-cpu", "--chunk", "1000", "--in", inPath}, nil, &out, tty)
	require.Equal(t, exitOK, code)
	require.Equal(t, output(items), out.String())

	code = run([]string{"verify", "--backend", "cpu", "--n", "300", "--chunk", "10"}, nil, io.Discard, tty)
	require.Equal(t, exitOK, code)

	tty.Close() // the master then reads EOF (EIO)
	wg.Wait()
	got := seen.String()
	require.Contains(t, got, "\r")
	require.Contains(t, got, "ecmul mul (rns-cpu): ")
	require.Contains(t, got, "% ecmul mul (rns-cpu):", "with --in a file, the line shows the share answered")
	within := false // a count inside the one chunk of 40 items
	for _, m := range regexp.MustCompile(`(\d+)% ecmul mul \(rns-cpu\): (\d+) items`).FindAllStringSubmatch(got, -1) {
		pct, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[2])
		if n > 0 && n < len(items) {
			within = true
		}
		// the whole file is read at once: the share is of items answered
		require.InDelta(t, 100*float64(n)/float64(len(items)), float64(pct), 3, "%d items answered shown as %d%%", n, pct)
	}
	require.True(t, within, "items are counted as they are answered, not per chunk: %q", got)
	require.Contains(t, got, "ecmul verify: ")
	require.True(t, strings.HasSuffix(got, "\r\x1b[K"), "the line is erased at the end: %q", got[max(0, len(got)-40):])
}
