//go:build unix

package scripttest

import (
	"os"
	"strconv"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// Mkfifo is the command "mkfifo PATH": make a named pipe at PATH, a file
// that blocks whoever opens it for reading until a writer comes.
func Mkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o644))
}

// Sparse is the command "sparse PATH BYTES": make PATH a file of BYTES
// zero bytes that takes no disk space, a sparse file.
func Sparse(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sparse PATH BYTES")
	}
	n, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil {
		ts.Fatalf("sparse: %v", err)
	}
	path := ts.MkAbs(args[0])
	ts.Check(os.WriteFile(path, nil, 0o644))
	ts.Check(os.Truncate(path, n))
}
