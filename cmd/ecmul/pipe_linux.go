package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeBytes is the kernel buffer that mul's input pipe and gen's output
// pipe ask for: with the default 64 KiB, gen and mul hand over a sixth of
// a millisecond of hex lines at a time and wait on each other's wake-ups
// far more often (on a 16-core H200 host, gen | mul ran 8–21% faster with
// 1 MiB, bench/h200/2026-11-23-pipe-buffer/).
const pipeBytes = 1 << 20

// growPipe asks for a pipeBytes buffer on f when f is a pipe. It is only a
// request: the system's limit (/proc/sys/fs/pipe-max-size, 1 MiB by
// default) or an error leaves the pipe as it was.
func growPipe(f *os.File) {
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return
	}
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeBytes) })
	}
}
