package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// fsImmutableFL is FS_IMMUTABLE_FL of linux/fs.h: nothing can be created
// in, removed from or renamed in a directory with it, whoever asks.
const fsImmutableFL = 0x10

// unwritableDir makes dir a directory in which no file can be created:
// read-only permissions or, for a user whom they do not stop (root), the
// immutable attribute, cleared when the test ends. It skips the test when
// neither holds.
func unwritableDir(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	if !canCreate(dir) {
		return
	}
	f, err := os.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags|fsImmutableFL))
	}
	if err != nil {
		t.Skipf("cannot make %s unwritable: permissions do not stop this user, and the immutable attribute: %v", dir, err)
	}
	t.Cleanup(func() { unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags)) })
	if canCreate(dir) {
		t.Skipf("cannot make %s unwritable", dir)
	}
}

// canCreate reports whether a file can be created in dir.
func canCreate(dir string) bool {
	f, err := os.CreateTemp(dir, "probe")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}

// TestOutputDirUnwritable: --out in a directory where no file can be
// created fails with exit status 1 and a message naming --out, before the
// input is read, and leaves the file as it was, even where the file itself
// is writable.
func TestOutputDirUnwritable(t *testing.T) {
	for _, fc := range fileCommands(t) {
		dir := t.TempDir()
		out := filepath.Join(dir, "o")
		require.NoError(t, os.WriteFile(out, []byte("keep\n"), 0o644))
		unwritableDir(t, dir)
		args := append(slices.Clone(fc.args), "--out", out)
		in := strings.NewReader(fc.in)
		var stdout, stderr strings.Builder
		code := run(args, in, &stdout, &stderr)
		requireContent(t, out, "keep\n", "%q", args)
		require.Equal(t, exitFail, code, "%q: %s", args, stderr.String())
		require.Empty(t, stdout.String())
		require.True(t, strings.HasPrefix(stderr.String(), "ecmul "+fc.args[0]+": --out "+out+": cannot create a temporary file in its directory"), stderr.String())
		require.Equal(t, len(fc.in), in.Len(), "%q: the input is not read", args)
	}
}

// TestOutputWrittenDirectly: --out naming a FIFO, a device or a path
// under /dev is written directly, not replaced: the FIFO stays a FIFO and
// gets the answers, /dev/null stays a device, and --out /dev/stdout
// writes into the file standard output is, which keeps its inode.
func TestOutputWrittenDirectly(t *testing.T) {
	fc := fileCommands(t)[0]
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, unix.Mkfifo(fifo, 0o644))
	got := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- b
	}()
	code, _, stderr := cli(t, fc.in, append(slices.Clone(fc.args), "--out", fifo)...)
	require.Equal(t, fc.code, code, stderr)
	require.Equal(t, fc.wantOut, string(<-got))
	st, err := os.Lstat(fifo)
	require.NoError(t, err)
	require.Equal(t, os.ModeNamedPipe, st.Mode().Type())
	requireDir(t, dir, "fifo")

	code, _, stderr = cli(t, fc.in, append(slices.Clone(fc.args), "--out", os.DevNull)...)
	require.Equal(t, fc.code, code, stderr)
	st, err = os.Stat(os.DevNull)
	require.NoError(t, err)
	require.Equal(t, os.ModeDevice|os.ModeCharDevice, st.Mode().Type())

	path := filepath.Join(dir, "stdout.txt")
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	before, err := f.Stat()
	require.NoError(t, err)
	cmd := cliProcess(t, append(slices.Clone(fc.args), "--out", "/dev/stdout")...)
	cmd.Stdin, cmd.Stdout = strings.NewReader(fc.in), f
	require.NoError(t, cmd.Run())
	after, err := os.Stat(path)
	require.NoError(t, err)
	require.True(t, os.SameFile(before, after), "the file standard output is, not a new one")
	requireContent(t, path, fc.wantOut)
	requireDir(t, dir, "fifo", "stdout.txt")
}
