package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/atomicfile"
	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/golden/scaffold"
	"github.com/ragbaseline/ragbaseline/internal/kb"
)

type initOptions struct {
	IO      *cmdutil.Streams
	Dir     string
	KBScope string
}

// newCmdInit builds rag-eval init: it parses the flags into initOptions
// and calls runF, or initRun when runF is nil.
func newCmdInit(f *cmdutil.Streams, runF func(*initOptions) error) *cobra.Command {
	o := &initOptions{IO: f}
	cmd := &cobra.Command{
		Use:   "init --dir DIR",
		Short: "Create a new eval set: starter golden cases and seed documents",
		Long: `init creates an eval set in --dir: cases/golden-cases.json with three starter
cases, seed-docs/ with two starter documents, empty fixtures/ and reports/, and
a .gitignore that keeps the reports that are not the accepted baseline out of
git. The golden file and the documents declare the kb scope, by default the
directory's name, so that each set has its own namespace in the store. The
starter is valid as written; replace its cases and documents with your own
(docs/golden-cases.md, docs/corpus.md). Then it prints the commands that seed,
snapshot and judge the set.

It never overwrites: when one of its files exists, it names every one that does
and writes nothing (exit 2). Each file is written atomically.`,
		Example: `  rag-eval init --dir eval/payments
  rag-eval init --dir eval/payments --kb-scope payments-runbooks`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(o)
			}
			return initRun(o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Dir, "dir", "", "directory of the new eval set (required; created if missing)")
	fs.StringVar(&o.KBScope, "kb-scope", "", "kb scope of the set's documents and golden file (default: the directory's name as a slug, e.g. payments)")
	cmd.MarkFlagRequired("dir")
	return cmd
}

func initRun(o *initOptions) error {
	if o.Dir == "" {
		return errors.New("--dir must not be empty")
	}
	if o.KBScope == "" {
		o.KBScope = scaffold.DefaultKBScope(o.Dir)
	} else if err := kb.ValidKBScope(o.KBScope); err != nil {
		return fmt.Errorf("--kb-scope %q %w", o.KBScope, err)
	}
	files := scaffold.Files(o.KBScope)
	var exist []string
	dirs := []string{o.Dir}
	for _, f := range files {
		dirs = append(dirs, filepath.Dir(filepath.Join(o.Dir, filepath.FromSlash(f.Path))))
	}
	for _, d := range scaffold.Dirs {
		dirs = append(dirs, filepath.Join(o.Dir, filepath.FromSlash(d.Path)))
	}
	for _, p := range dirs {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return fmt.Errorf("%s exists and is not a directory; nothing written", p)
		}
	}
	for _, f := range files {
		p := filepath.Join(o.Dir, filepath.FromSlash(f.Path))
		if _, err := os.Lstat(p); err == nil {
			exist = append(exist, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if len(exist) > 0 {
		return fmt.Errorf("%s already %s; init never overwrites, nothing written:\n%s",
			o.Dir, plural(len(exist), "holds a file of an eval set", "holds files of an eval set"), strings.Join(exist, "\n"))
	}
	for _, p := range dirs {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return err
		}
	}
	for _, f := range files {
		if err := atomicfile.WriteFile(filepath.Join(o.Dir, filepath.FromSlash(f.Path)), f.Data, 0o644); err != nil {
			return err
		}
	}

	w := o.IO.Out
	fmt.Fprintf(w, "created the eval set %s, kb scope %s:\n", o.Dir, o.KBScope)
	var paths, whats []string
	for _, f := range files {
		paths = append(paths, filepath.Join(o.Dir, filepath.FromSlash(f.Path)))
		whats = append(whats, f.What)
	}
	for _, d := range scaffold.Dirs {
		paths = append(paths, filepath.Join(o.Dir, filepath.FromSlash(d.Path))+string(filepath.Separator))
		whats = append(whats, d.What)
	}
	width := 0
	for _, p := range paths {
		width = max(width, len(p))
	}
	for i, p := range paths {
		fmt.Fprintf(w, "  %-*s  %s\n", width, p, whats[i])
	}
	fmt.Fprintf(w, `next: edit the documents and the cases (docs/corpus.md, docs/golden-cases.md), then
  rag-seed --docs %s --kb-scope %s
  rag-snapshot --dir %s
  rag-eval --dir %s
and commit %s and baseline.md: the accepted baseline.
`, shellQuote(filepath.Join(o.Dir, "seed-docs")), o.KBScope, shellQuote(o.Dir), shellQuote(o.Dir), filepath.Join(o.Dir, "reports", "baseline.json"))
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
