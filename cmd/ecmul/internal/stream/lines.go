package stream

import (
	"bufio"
	"errors"
	"io"

	"github.com/rnsec/ecmul/internal/curves"
)

// Lines calls each with every non-empty line of in, blanks around it
// trimmed, and its number from 1, blank lines counted, as Mul reads the
// line formats: \n or \r\n endings, a UTF-8 byte-order mark at the very
// start skipped, a line longer than MaxLine passed with tooLong set and no
// text. line is valid only during the call. Lines stops at the first error
// of each, which it returns, or of reading (io.EOF is the end, not an
// error).
func Lines(in io.Reader, each func(line []byte, num int, tooLong bool) error) error {
	lr := &lineReader{r: bufio.NewReaderSize(in, max(MaxLine+2, 1<<16))} // room for "\r\n"
	for {
		line, num, tooLong, ok := lr.next()
		if !ok {
			break
		}
		if err := each(line, num, tooLong); err != nil {
			return err
		}
	}
	if errors.Is(lr.err, io.EOF) {
		return nil
	}
	return lr.err
}

// Fields splits a line on runs of spaces and tabs, the only separators the
// line formats allow.
func Fields(line string) []string { return fieldsOf(line) }

// ParseSEC1Hex reads a point as mul's sec1 format reads POINT_HEX: an
// optional 0x or 0X, then the hex of a SEC1 encoding, uncompressed or
// compressed, decoded by package hexcode and validated by
// curves.Curve.DecodeSEC1.
func ParseSEC1Hex(c *curves.Curve, field string) (*curves.Point, error) {
	b, err := decodeSEC1Hex(field, 1+2*c.ByteLen())
	if err != nil {
		return nil, err
	}
	return c.DecodeSEC1(b)
}

// JSONStrings reads a line of a jsonl format: a JSON object of exactly the
// keys given, compared exactly, each once, each a string, nothing after
// the object; it returns their values in the order of keys.
func JSONStrings(line string, keys []string) ([]string, error) { return jsonStrings(line, keys) }

// AppendJSONError appends {"error":"MSG"}, the answer of a failed item in
// the jsonl format, msg on one line.
func AppendJSONError(dst []byte, msg string) []byte {
	b, _ := jsonMarshal(map[string]string{"error": OneLine(msg)})
	return append(dst, b...)
}
