package scripttest

import (
	"cmp"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// elapsedRE matches the elapsed time of a summary line: "in 0.02s".
var elapsedRE = regexp.MustCompile(`\bin \d+\.\d+s\b`)

// Mask is the command "mask SRC DST [VAR...]". It writes SRC, which is
// stdout, stderr or a file, to the file DST with what differs from run to
// run masked. An elapsed time "in 1.23s" becomes "in X.XXs", and the value
// of each environment variable VAR becomes $VAR. Then "cmp DST want"
// compares the whole output, and -update can rewrite want, which it cannot
// for cmpenv.
func Mask(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: mask SRC DST [VAR...]")
	}
	text := elapsedRE.ReplaceAllString(ts.ReadFile(args[0]), "in X.XXs")
	vars := slices.Clone(args[2:])
	// A longer value first, so that one holding another is replaced whole.
	slices.SortFunc(vars, func(a, b string) int { return cmp.Compare(len(ts.Getenv(b)), len(ts.Getenv(a))) })
	for _, name := range vars {
		v := ts.Getenv(name)
		if v == "" {
			ts.Fatalf("mask: $%s is not set", name)
		}
		text = strings.ReplaceAll(text, v, "$"+name)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(text), 0o666))
}
