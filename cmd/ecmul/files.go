package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// openInput opens the input a command streams: the file --in names, or
// stdin for "-". It is checked before anything is written: a directory is
// refused here rather than by its first read. close closes the file.
func openInput(name string, stdin io.Reader) (in io.Reader, close func(), err error) {
	if name == "-" {
		return stdin, func() {}, nil
	}
	file, err := os.Open(name)
	if err != nil {
		return nil, nil, fmt.Errorf("--in %s: %w", name, pathErr(err))
	}
	st, err := file.Stat()
	if err == nil && st.IsDir() {
		err = errors.New("is a directory")
	}
	if err != nil {
		file.Close()
		return nil, nil, fmt.Errorf("--in %s: %w", name, pathErr(err))
	}
	return file, func() { file.Close() }, nil
}

// pathErr is err without the operation and path of an *fs.PathError,
// which the message names already.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// outputFile is where a command writes: stdout, or the file --out names. A
// regular file, or a new one, is written through a temporary file in its
// directory, renamed over it by commit when the run has answered every
// item, so that a run that does not complete leaves the file as it was
// (and an input that is the same file is read whole before it is
// replaced). The file keeps its permission bits and, where the system
// allows, its owner; a new one gets 0666 less the umask, as a shell's >
// gives. Anything else --out may name (a device such as /dev/null, a
// FIFO, a file under /dev or /proc such as /dev/stdout) is written
// directly.
type outputFile struct {
	io.Writer
	name   string   // as --out gives it
	file   *os.File // nil for stdout
	target string   // the file renamed over; "" when written directly
}

// openOutput opens the output --out names: stdout for "-".
func openOutput(name string, stdout io.Writer) (*outputFile, error) {
	if name == "-" {
		return &outputFile{Writer: stdout, name: name}, nil
	}
	o := &outputFile{name: name}
	st, err := os.Stat(name)
	switch {
	case err == nil && st.IsDir():
		return nil, fmt.Errorf("--out %s: is a directory", name)
	case err == nil && !st.Mode().IsRegular(), err == nil && isSystemPath(name):
		if o.file, err = os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0); err != nil {
			return nil, fmt.Errorf("--out %s: %w", name, pathErr(err))
		}
		o.Writer = o.file
		return o, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("--out %s: %w", name, pathErr(err))
	}
	o.target = name
	if resolved, err := filepath.EvalSymlinks(name); err == nil {
		o.target = resolved // a link stays, and the file it names is replaced
	}
	if o.file, err = createTemp(o.target); err != nil {
		return nil, fmt.Errorf("--out %s: cannot create a temporary file in its directory, through which it is written: %w", name, pathErr(err))
	}
	if st != nil {
		keepOwner(o.file, st)
	}
	o.Writer = o.file
	return o, nil
}

// isSystemPath reports whether name lies under /dev or /proc, whose files
// (/dev/stdout, /proc/self/fd/1) stand for open files: replacing the file
// they resolve to would undo a shell's >> or 2>&1.
func isSystemPath(name string) bool {
	abs, err := filepath.Abs(name)
	return err == nil && (strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/"))
}

// createTemp creates a new, empty file beside target, named
// .NAME.ecmul-RANDOM, with permissions 0666 less the umask.
func createTemp(target string) (*os.File, error) {
	dir, base := filepath.Split(target)
	for range 100 {
		name := filepath.Join(dir, "."+base+".ecmul-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fs.ErrExist
}

// keepOwner gives f the permission bits of the file st describes and,
// where the system allows it, its owner and group; what cannot be kept is
// left as f has it.
func keepOwner(f *os.File, st fs.FileInfo) {
	if uid, gid, ok := ownerOf(st); ok {
		f.Chown(uid, gid)
	}
	f.Chmod(st.Mode().Perm())
}

// commit ends the output of a run that answered every item: the file is
// closed and, when written through a temporary file, renamed over --out.
func (o *outputFile) commit() error {
	if o.file == nil {
		return nil
	}
	err := o.file.Close()
	if err == nil && o.target != "" {
		err = os.Rename(o.file.Name(), o.target)
	}
	if err != nil {
		o.abort()
		return fmt.Errorf("--out %s: %w", o.name, err)
	}
	o.file = nil
	return nil
}

// abort ends the output of a run that did not complete: a temporary file
// is removed, and --out left as it was. After commit it does nothing.
func (o *outputFile) abort() {
	if o.file == nil {
		return
	}
	o.file.Close()
	if o.target != "" {
		os.Remove(o.file.Name())
	}
	o.file = nil
}
