//go:build linux || darwin

package main

import (
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// isTerminal reports whether f is a terminal: whether the terminal
// attributes of its descriptor can be read. /dev/null and pipes are not.
func isTerminal(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	rc.Control(func(fd uintptr) {
		var t syscall.Termios
		_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, ioctlGetTermios, uintptr(unsafe.Pointer(&t)))
		ok = errno == 0
	})
	return ok
}

// peakRSS returns the peak resident set size of this process in bytes.
func peakRSS() (bytes int64, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss), true // bytes
	}
	return int64(ru.Maxrss) * 1024, true // kilobytes
}

// processCPU returns the CPU time this process has used so far, user and
// system, every thread.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
