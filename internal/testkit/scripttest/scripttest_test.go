package scripttest

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestScript runs testdata/*.txtar, which use the commands of this package
// on files, so that they need no binary.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:  "testdata",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"mask": Mask, "mkfifo": Mkfifo, "sparse": Sparse},
	})
}
