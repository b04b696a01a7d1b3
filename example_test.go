package ecmul_test

import (
	"bytes"
	"context"
	"crypto/ecdh"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"

	"github.com/rnsec/ecmul"
)

// Example_bytes multiplies SEC1 points by big-endian scalars in flat
// buffers: 2·G and 3·G on P-256, as uncompressed SEC1 results.
func Example_bytes() {
	c := ecmul.P256()
	eng, err := ecmul.New(c, ecmul.Options{Backend: ecmul.CPU})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()

	L := c.ByteLen()
	g := c.Generator()
	point := append([]byte{4}, append(g.X.FillBytes(make([]byte, L)), g.Y.FillBytes(make([]byte, L))...)...)
	points := bytes.Repeat(point, 2)
	scalars := make([]byte, 2*L)
	scalars[L-1], scalars[2*L-1] = 2, 3

	out := make([]byte, 2*(1+2*L)) // uncompressed results: 0x04‖x‖y each
	status := make([]ecmul.Status, 2)
	if err := eng.ScalarMultBytes(context.Background(), out, status, scalars, points); err != nil {
		fmt.Println(err)
		return
	}
	for i, s := range status {
		fmt.Printf("%d·G: %v, x = %x…\n", i+2, s, out[i*(1+2*L)+1:i*(1+2*L)+5])
	}
	// Output:
	// 2·G: point, x = 7cf27b18…
	// 3·G: point, x = 5ecbe4d1…
}

// Example_bigInt multiplies *big.Int points by *big.Int scalars; an invalid
// item gets its own error and the others are computed all the same.
func Example_bigInt() {
	c := ecmul.P224()
	eng, err := ecmul.New(c, ecmul.Options{Backend: ecmul.CPU})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()

	g := c.Generator()
	off := &ecmul.Point{X: big.NewInt(1), Y: big.NewInt(2)}
	res := make([]ecmul.Result, 3)
	err = eng.ScalarMult(context.Background(), res,
		[]*big.Int{big.NewInt(2), big.NewInt(5), c.Order()},
		[]*ecmul.Point{g, off, g})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("2·G: x = %x\n", res[0].X)
	fmt.Println("invalid point:", errors.Is(res[1].Err, ecmul.ErrInvalidPoint))
	fmt.Println("n·G is the point at infinity:", res[2].Infinity)
	// Output:
	// 2·G: x = 706a46dc76dcb76798e60e6d89474788d16dc18032d268fd1a704fa6
	// invalid point: true
	// n·G is the point at infinity: true
}

// Example_ecdh computes two parties' ECDH shared secrets on P-256 with
// ecmul, x alone as crypto/ecdh gives it (out of L bytes per item), and
// checks them against crypto/ecdh.
func Example_ecdh() {
	alice, _ := ecdh.P256().NewPrivateKey(bytes.Repeat([]byte{0x11}, 32))
	bob, _ := ecdh.P256().NewPrivateKey(bytes.Repeat([]byte{0x22}, 32))

	c := ecmul.P256()
	eng, err := ecmul.New(c, ecmul.Options{Backend: ecmul.CPU})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()

	// Each party's private scalar times the other's public point, in one
	// batch of two items.
	scalars := append(alice.Bytes(), bob.Bytes()...)
	points := append(bob.PublicKey().Bytes(), alice.PublicKey().Bytes()...)
	L := c.ByteLen()
	secrets := make([]byte, 2*L) // x alone: L bytes per item
	status := make([]ecmul.Status, 2)
	if err := eng.ScalarMultBytes(context.Background(), secrets, status, scalars, points); err != nil {
		fmt.Println(err)
		return
	}
	want, _ := alice.ECDH(bob.PublicKey())
	fmt.Println("statuses:", status[0], status[1])
	fmt.Println("the parties agree:", bytes.Equal(secrets[:L], secrets[L:]))
	fmt.Println("as crypto/ecdh:", bytes.Equal(secrets[:L], want))
	// Output:
	// statuses: point point
	// the parties agree: true
	// as crypto/ecdh: true
}

// Example_scalarMultBytes is the README's example: SEC1 points by big-endian
// scalars, one point compressed, one scalar a multiple of n, one point
// invalid; the gpu if there is one, else the cpu.
func Example_scalarMultBytes() {
	c := ecmul.P256()
	e, err := ecmul.New(c, ecmul.Options{}) // the gpu if there is one, else the cpu
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()

	L := c.ByteLen()
	g := c.Generator()
	gc := append([]byte{0x02 | byte(g.Y.Bit(0))}, g.X.FillBytes(make([]byte, L))...) // 0x03‖x: 1+L bytes
	bad := append([]byte{0x02}, bytes.Repeat([]byte{0xff}, L)...)
	points := bytes.Join([][]byte{gc, gc, bad}, nil)
	scalars := bytes.Join([][]byte{
		big.NewInt(2).FillBytes(make([]byte, L)),
		c.Order().FillBytes(make([]byte, L)),
		big.NewInt(3).FillBytes(make([]byte, L)),
	}, nil)
	out := make([]byte, 3*(1+2*L)) // uncompressed SEC1 results (3*(1+L): compressed, 3*L: x alone)
	status := make([]ecmul.Status, 3)

	if err := e.ScalarMultBytes(context.Background(), out, status, scalars, points); err != nil {
		fmt.Println(err)
		return
	}
	for i, s := range status {
		r := out[i*(1+2*L) : (i+1)*(1+2*L)]
		switch {
		case s == ecmul.StatusPoint:
			fmt.Printf("%d: %s…\n", i, hex.EncodeToString(r[:9]))
		default:
			fmt.Printf("%d: %v (invalid point: %v)\n", i, s, errors.Is(s.Err(), ecmul.ErrInvalidPoint))
		}
	}
	// Output:
	// 0: 047cf27b188d034f7e…
	// 1: infinity (invalid point: false)
	// 2: coordinate out of range (invalid point: true)
}

// ExampleWithProgress follows a batch as it goes: the last report has every
// item answered.
func ExampleWithProgress() {
	c := ecmul.P256()
	eng, err := ecmul.New(c, ecmul.Options{Backend: ecmul.CPU})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()

	const n = 300
	scalars, points := make([]*big.Int, n), make([]*ecmul.Point, n)
	for i := range n {
		scalars[i], points[i] = big.NewInt(int64(i+1)), c.Generator()
	}
	var last string
	ctx := ecmul.WithProgress(context.Background(), func(done, total int) {
		last = fmt.Sprintf("%d of %d", done, total)
	})
	res := make([]ecmul.Result, n)
	if err := eng.ScalarMult(ctx, res, scalars, points); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("last report:", last)
	// Output:
	// last report: 300 of 300
}
