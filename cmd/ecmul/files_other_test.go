//go:build !unix

package main

import "testing"

// setUmask reports that there is no umask here.
func setUmask(*testing.T, int) bool { return false }

// otherOwner reports that files have no owner to change here.
func otherOwner(*testing.T, string) func(*testing.T, string) { return nil }
