//go:build !unix

package main

import "io/fs"

// ownerOf reports that files have no owner to keep here.
func ownerOf(fs.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }
