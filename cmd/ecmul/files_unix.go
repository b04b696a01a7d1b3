//go:build unix

package main

import (
	"io/fs"
	"syscall"
)

// ownerOf returns the owner and group of the file st describes.
func ownerOf(st fs.FileInfo) (uid, gid int, ok bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(sys.Uid), int(sys.Gid), true
}
