package ecdsa_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/ecdsa"
)

// ExampleSign signs two digests on P-256: the first with RFC 6979's key
// (its signature is the RFC's, A.2.5), the second with a key of 0, which
// fails alone. Verify then checks the first signature.
func ExampleSign() {
	e, err := ecmul.New(ecmul.P256(), ecmul.Options{}) // the gpu if there is one, else the cpu
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()

	L := e.Curve().ByteLen()
	key, _ := hex.DecodeString("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721")
	digest := sha256.Sum256([]byte("sample"))
	digests := [][]byte{digest[:], digest[:]}
	keys := append(key, make([]byte, L)...) // the second key is 0

	sigs := make([]byte, len(digests)*2*L)
	errs := make([]error, len(digests))
	if err := ecdsa.Sign(context.Background(), e, sigs, errs, digests, keys, ecdsa.SignOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("r %x\ns %x\n", sigs[:L], sigs[L:2*L])
	fmt.Println(errs[1])

	pub, _ := hex.DecodeString("04" +
		"60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6" +
		"7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299")
	verdicts := make([]ecdsa.Verdict, 1)
	if err := ecdsa.Verify(context.Background(), e, verdicts, digests[:1], sigs[:2*L], pub); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(verdicts[0])
	// Output:
	// r efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716
	// s f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8
	// ecdsa: item 1: private key outside [1, n−1]: it is 0
	// valid
}
