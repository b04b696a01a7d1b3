//go:build unix

package main

import (
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// setUmask sets the process's umask to mask until the end of the test,
// and reports that it could.
func setUmask(t *testing.T, mask int) bool {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
	return true
}

// otherOwner gives the file path an owner and group other than the
// process's, when the process may (root), and returns the check that a
// file has them; nil when it may not.
func otherOwner(t *testing.T, path string) func(t *testing.T, path string) {
	const uid, gid = 4321, 8765
	if os.Geteuid() != 0 || os.Chown(path, uid, gid) != nil {
		return nil
	}
	return func(t *testing.T, path string) {
		st, err := os.Stat(path)
		require.NoError(t, err)
		sys := st.Sys().(*syscall.Stat_t)
		require.Equal(t, [2]uint32{uid, gid}, [2]uint32{sys.Uid, sys.Gid}, "%s keeps its owner and group", path)
	}
}
