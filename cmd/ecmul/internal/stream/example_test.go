package stream_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/internal/curves"
)

// ExampleMul answers a stream of hex lines, in order: a good item, a point
// off the curve (answered with its line's error) and a multiple of n.
func ExampleMul() {
	c := curves.P224()
	eng, err := ecmul.New(ecmul.P224(), ecmul.Options{Backend: ecmul.CPU})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
	in := fmt.Sprintf("2 %x %x\n5 1 2\n%x %x %x\n", c.Gx(), c.Gy(), c.N(), c.Gx(), c.Gy())
	sum, err := stream.Mul(context.Background(), eng, strings.NewReader(in), os.Stdout, stream.Options{Format: stream.Hex})
	fmt.Println(sum.Items, "items,", sum.Failed, "failed,", err)
	// Output:
	// 706a46dc76dcb76798e60e6d89474788d16dc18032d268fd1a704fa6 1c2b76a7bc25e7702a704fa986892849fca629487acf3709d2e4e8bb
	// error: line 2: P-224: point is not on the curve
	// infinity
	// 3 items, 1 failed, <nil>
}
