//go:build !unix

package stream

import "time"

// cpuTime is 0 where the process's CPU time is not read: no cpu-ns/item.
func cpuTime() time.Duration { return 0 }
