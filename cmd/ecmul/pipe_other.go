//go:build !linux

package main

import "os"

// growPipe leaves f as it is: only Linux lets a program size a pipe.
func growPipe(*os.File) {}
